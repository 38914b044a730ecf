/**
 * The web UI: {@link org.replayfarm.coordinator.web.WebUi} serves the page, its script and style (static resources
 * under {@code org/replayfarm/coordinator/web/}, no build step) and the login page beside the API.
 */
package org.replayfarm.coordinator.web;
