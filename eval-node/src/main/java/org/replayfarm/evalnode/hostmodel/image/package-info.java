/**
 * The texture unit and the ray-intersection unit: image loads, stores, atomics and samples (MIMG; {@code
 * ImageUnit}), filtering and addressing ({@code ImageSampler}), an image resource as texels ({@code
 * ImageView}), and {@code image_bvh_intersect_ray} / {@code image_bvh64_intersect_ray} ({@code BvhUnit}).
 * RDNA 2 ISA, "Vector Memory Image Instructions", "Ray Tracing".
 */
package org.replayfarm.evalnode.hostmodel.image;
