/**
 * Probe bisection (issue 34): the first wrong instruction of a device that can run a capture but not trace it
 * ({@code exec:} programs, and translations when asked). {@link org.replayfarm.evalnode.probe.Execution} records the
 * host model's run of one group, {@link org.replayfarm.evalnode.probe.Slice} takes the backward slice of a differing
 * store over it, {@link org.replayfarm.evalnode.probe.ProbePatcher} writes probe captures that store chosen registers
 * at chosen PCs into an extra range, and {@link org.replayfarm.evalnode.probe.ProbeSearch} runs them on the device and
 * bisects the slice. Used by the cli's {@code replay explain --first-divergence --method probes}.
 */
package org.replayfarm.evalnode.probe;
