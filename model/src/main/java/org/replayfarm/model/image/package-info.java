/**
 * Images as RDNA 2 (gfx10.3) sees them, shared by the host model and the translator: the image resource
 * (T#, 128 or 256 bits) and sampler (S#, 128 bits) descriptors, decoded and encoded field by field; the
 * gfx10 unified image formats and the conversion of a texel to and from its channels' register values;
 * and the resolution of a descriptor to the captured image it names.
 *
 * <p>Field positions: the gfx10.3 SQ_IMG_RSRC_WORD0..7 and SQ_IMG_SAMP_WORD0..3 layouts as AMD's ROCr
 * image library declares them for Navi; format numbers: the gfx10 unified FORMAT enumeration (the same
 * numbers as the MTBUF/V# FORMAT, plus 128..130 for the sRGB formats).
 */
package org.replayfarm.model.image;
