/**
 * The coordinator's HTTP API: the server that serves stored captures to evaluator nodes and the API ({@link
 * org.replayfarm.coordinator.http.CoordinatorHttp}), the job API over a {@code JobService} ({@link
 * org.replayfarm.coordinator.http.ApiRoutes}: captures, jobs, progress as server-sent events, results), and the
 * API's JSON forms ({@code JobRequest}, {@code ProgressJson}). The CLI's {@code CoordinatorClient} speaks it.
 */
package org.replayfarm.coordinator.http;
