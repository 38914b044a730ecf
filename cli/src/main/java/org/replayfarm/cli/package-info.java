/**
 * The {@code replay} command line, the farm's one distribution: {@link org.replayfarm.cli.Replay} is the jar's main
 * class (what the {@code ./replay} script runs) and lists every subcommand, one picocli class each
 * ({@code CaptureCommand}, {@code EvalCommand}, {@code RunCommand}, {@code NodeCommand}, {@code SubmitCommand},
 * {@code ExplainCommand}, ...), with the options several of them share ({@code GroupOptions},
 * {@code CompareOptions}, {@code DispatchOptions}, {@code CoordinatorOption}). Also here: the job API's client
 * ({@code CoordinatorClient}), the run daemon and its client ({@code RunDaemon}, {@code DaemonClient}), many
 * captures in one run ({@code BatchRun}) and the distribution's logging ({@link org.replayfarm.cli.LogSetup}).
 */
package org.replayfarm.cli;
