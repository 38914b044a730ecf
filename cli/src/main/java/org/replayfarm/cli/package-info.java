/**
 * The {@code replay} command: {@link org.replayfarm.cli.Replay} (the distribution's main class) and the
 * distribution's logging ({@code LogSetup}). The subcommands are in {@code commands}, the run daemon in
 * {@code daemon}, the coordinator's client in {@code client}; what they use in {@code harness} (the native
 * harness), {@code divergence}, {@code vulkan}, {@code batch} and {@code examples}.
 */
package org.replayfarm.cli;
