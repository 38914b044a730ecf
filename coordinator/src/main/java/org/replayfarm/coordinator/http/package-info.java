/**
 * The coordinator's HTTP side: the server that serves stored captures to evaluator nodes ({@link
 * org.replayfarm.coordinator.http.CoordinatorHttp}), the job API over a {@code JobService} ({@link
 * org.replayfarm.coordinator.http.ApiRoutes}: captures, jobs, progress as server-sent events, results), the web UI
 * ({@link org.replayfarm.coordinator.http.WebUi}), a standby coordinator's forwarding to the active one
 * ({@code StandbyForward}), and the API's JSON forms ({@code JobRequest}, {@code ProgressJson}). The cluster's node
 * start-up serves it; the CLI's {@code CoordinatorClient} speaks it.
 */
package org.replayfarm.coordinator.http;
