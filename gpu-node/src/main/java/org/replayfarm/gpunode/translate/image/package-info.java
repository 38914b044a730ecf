/**
 * The launch bundle's image section ({@link org.replayfarm.gpunode.translate.image.ImageBundle}): how a capture's
 * images travel to a translated program, which reads and writes their texels in place through rt_image.h, and how
 * their final texels are read back. The translation backends ({@code cuda-cpu}, {@code cuda}) lay it out and read
 * it back.
 */
package org.replayfarm.gpunode.translate.image;
