/**
 * The run daemon: {@link org.replayfarm.cli.daemon.RunDaemon} keeps an embedded farm node warm for this user's
 * {@code replay run}s, {@link org.replayfarm.cli.daemon.DaemonClient} hands a run to it (starting one when there is
 * none), and {@code DaemonWire} is what they say to each other over the socket.
 */
package org.replayfarm.cli.daemon;
