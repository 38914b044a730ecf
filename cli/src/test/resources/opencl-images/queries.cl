// Every image query of OpenCL C 2.0 on a 2D image read and one written, a 3D image and a 1D image.
kernel void queries(read_only image2d_t a, write_only image2d_t b, read_only image3d_t c, read_only image1d_t d,
                    global int *out) {
    if (get_global_id(0) != 0) {
        return;
    }
    out[0] = get_image_width(a);
    out[1] = get_image_height(a);
    out[2] = get_image_channel_data_type(a);
    out[3] = get_image_channel_order(a);
    int2 da = get_image_dim(a);
    out[4] = da.x;
    out[5] = da.y;
    out[6] = get_image_width(b);
    out[7] = get_image_height(b);
    out[8] = get_image_channel_data_type(b);
    out[9] = get_image_channel_order(b);
    out[10] = get_image_width(c);
    out[11] = get_image_height(c);
    out[12] = get_image_depth(c);
    int4 dc = get_image_dim(c);
    out[13] = dc.x;
    out[14] = dc.y;
    out[15] = dc.z;
    out[16] = dc.w;
    out[17] = get_image_channel_data_type(c);
    out[18] = get_image_channel_order(c);
    out[19] = get_image_width(d);
    out[20] = get_image_channel_data_type(d);
    out[21] = get_image_channel_order(d);
}
