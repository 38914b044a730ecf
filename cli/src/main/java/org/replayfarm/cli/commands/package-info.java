/**
 * Every {@code replay} subcommand (a picocli {@code *Command} class each) and the option groups they share
 * ({@code CompareOptions}, {@code CoordinatorOption}, {@code DiscoveryOptions}, {@code DispatchOptions},
 * {@code GroupOptions}, {@code MetricsOptions}, {@code SourceOptions}).
 */
package org.replayfarm.cli.commands;
