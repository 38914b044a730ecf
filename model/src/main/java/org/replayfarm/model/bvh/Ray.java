package org.replayfarm.model.bvh;

/**
 * The ray operands of image_bvh_intersect_ray (reference §5.1): the extent (the farthest distance a box
 * test accepts), origin, direction (the triangle test's) and inverse direction (the box test's), as
 * float32 values. The a16 form's float16 direction and inverse are widened before they get here.
 */
public record Ray(float extent, float ox, float oy, float oz, float dx, float dy, float dz, float ix, float iy,
                  float iz) {
    /** A ray whose inverse direction is 1/direction per component, rounded to float. */
    public static Ray of(float extent, float ox, float oy, float oz, float dx, float dy, float dz) {
        return new Ray(extent, ox, oy, oz, dx, dy, dz, 1f / dx, 1f / dy, 1f / dz);
    }
}
