/**
 * The first wrong instruction: by lockstep traces of the host model and a translation ({@link
 * org.replayfarm.cli.divergence.FirstDivergence}) or by probe bisection on a device ({@code ProbeDivergence}), and
 * the planted single-instruction bugs its benchmark finds ({@code Mutants} in a translation, {@code ExecMutant} in
 * the host model).
 */
package org.replayfarm.cli.divergence;
