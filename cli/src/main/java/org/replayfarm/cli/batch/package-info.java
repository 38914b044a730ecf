/**
 * {@code replay run} over many captures: the batch run in one embedded cluster ({@link
 * org.replayfarm.cli.batch.BatchRun}), its baseline of known differences ({@code Baseline}), and where a run spent
 * its time ({@code RunTimings}).
 */
package org.replayfarm.cli.batch;
