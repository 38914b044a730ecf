/**
 * The native harness: an OpenCL C kernel run natively by clang-19 for x86-64, the independent execution the host
 * model is compared with ({@link org.replayfarm.cli.harness.NativeHarness}), and how image and sampler arguments
 * reach its own image implementation ({@code NativeImages}).
 */
package org.replayfarm.cli.harness;
