/**
 * RDNA 2 ray-tracing BVHs: the node formats ({@link org.replayfarm.model.bvh.NodeLayout}, {@code NodeType}), the
 * BVH resource descriptor ({@code BvhDescriptor}), a builder from a triangle soup ({@link
 * org.replayfarm.model.bvh.BvhBuilder}), and what {@code image_bvh_intersect_ray} returns for one node ({@link
 * org.replayfarm.model.bvh.NodeTest}, over a {@code Ray} and a {@code NodeMemory}). The host model's BVH unit runs
 * the node test, the capture builder writes BVH descriptors and the shadow-pass example builds its scene's BVH.
 */
package org.replayfarm.model.bvh;
