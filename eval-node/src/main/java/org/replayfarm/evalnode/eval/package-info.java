/**
 * Evaluating a capture's groups on the host model and merging their results: {@link
 * org.replayfarm.evalnode.eval.Evaluation} ({@code replay eval}: the selected groups on a number of threads, merged
 * in group order, written as {@code host/guest-<n>.bin} and report.json), the group selection ({@link
 * org.replayfarm.evalnode.eval.GroupSelection}), the merges of memory and images with their store conflicts and
 * order-dependent atomics ({@code MemoryMerge}, {@code ImageMerge}), and how an output folder is written so that it
 * is finished or says it is not ({@link org.replayfarm.evalnode.eval.OutputFolder}). The CLI's commands and the
 * coordinator's jobs, comparison and run report build on it.
 */
package org.replayfarm.evalnode.eval;
