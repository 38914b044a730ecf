image_load v[4:7], v[0:1], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
image_load v[4:6], v[0:1], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D unorm tfe d16
image_load_mip v[4:7], v[0:3], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_3D unorm
image_load v[4:6], v[0:1], s[0:7] dmask:0x7 dim:SQ_RSRC_IMG_2D_ARRAY unorm a16
image_load v4, [v0, v9, v11], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_2D_ARRAY unorm
image_store v[4:7], v[0:1], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
image_store_mip v[4:5], v[0:2], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D unorm d16
image_get_resinfo v[4:7], v0, s[0:7] dmask:0xf dim:SQ_RSRC_IMG_CUBE unorm
image_atomic_add v4, v[0:1], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm glc
image_atomic_cmpswap v[4:7], v[0:1], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D unorm glc
image_atomic_fmax v4, v0, s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_1D unorm
image_sample v[4:7], v[0:1], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D
image_sample_lz v[4:7], v[0:2], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_3D
image_sample_l v[4:5], v[0:2], s[0:7], s[8:11] dmask:0x3 dim:SQ_RSRC_IMG_2D tfe d16
image_sample_l v[4:7], v[0:1], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D_ARRAY a16
image_sample v4, v[0:2], s[0:7], s[8:11] dmask:0x8 dim:SQ_RSRC_IMG_CUBE
image_bvh_intersect_ray v[4:7], v[0:10], s[0:3]
image_bvh_intersect_ray v[4:7], v[0:7], s[0:3] a16
image_bvh64_intersect_ray v[4:7], v[0:11], s[0:3]
image_bvh_intersect_ray v[4:7], [v9, v10, v11, v12, v13, v14, v15, v16, v17, v18, v19], s[4:7]
buffer_load_format_xyzw v[4:7], v0, s[0:3], 0 idxen
buffer_load_format_d16_xyz v[4:5], v[0:1], s[0:3], s5 idxen offen offset:16
buffer_load_format_d16_hi_x v[4:5], v0, s[0:3], 0 offen tfe
buffer_store_format_xy v[4:5], v0, s[0:3], 0 idxen
buffer_store_format_d16_xyzw v[4:5], v0, s[0:3], 0 offen
tbuffer_load_format_xyz v[4:6], v0, s[0:3], 0 format:[BUF_FMT_32_32_32_FLOAT] idxen
tbuffer_store_format_d16_x v4, v0, s[0:3], 4 format:[BUF_FMT_8_8_8_8_UNORM] offen
image_gather4 v[4:7], v[0:1], s[0:7], s[8:11] dmask:0x1 dim:SQ_RSRC_IMG_2D
