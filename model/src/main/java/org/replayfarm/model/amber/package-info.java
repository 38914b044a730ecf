/**
 * AmberScript (google/amber, docs/amber_script.md) for the farm's compute runs: {@link
 * org.replayfarm.model.amber.AmberScript#parse} reads a script into shaders, buffers and images with the bytes
 * Amber would upload, samplers, pipelines and commands; {@link org.replayfarm.model.amber.Expect#check} checks
 * an EXPECT against buffer contents after the runs. No Vulkan here: a runner builds and evaluates the pipelines.
 *
 * <p>Facts taken from Amber (its docs and its parser/verifier sources, read for behaviour only): EXPECT's
 * {@code IDX} is a byte offset; {@code TOLERANCE t%} means |actual - expected| <= t/100 * |expected|; buffers
 * are std430 unless STD140; a vec3 (and a 3-row matrix column) takes 4 components; std140 pads matrix columns and
 * {@code []} array elements to 4 components; FORMAT buffer values are raw component integers (UNORM as 0..255);
 * SERIES_FROM is refused for vectors and matrices. Where this package departs from Amber it says so: float16
 * values are rounded to nearest even (Amber truncates, and turns 0.0 into 2.0), and float16 components can be
 * EXPECTed and compared by RMSE (Amber refuses both).
 */
package org.replayfarm.model.amber;
