/**
 * Lockstep traces: a translation's CPU runner records one group instruction by instruction ({@link
 * org.replayfarm.evalnode.trace.DeviceTrace}, read from a build with {@code -DRT_TRACE}), and {@link
 * org.replayfarm.evalnode.trace.Lockstep} runs that group on the host model beside the trace and finds the first
 * instruction the translation got wrong. {@code replay explain --first-divergence} uses it.
 */
package org.replayfarm.evalnode.trace;
