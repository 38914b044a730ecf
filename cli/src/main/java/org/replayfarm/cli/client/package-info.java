/**
 * The client of a coordinator's HTTP API ({@link org.replayfarm.cli.client.CoordinatorClient}): submit, watch,
 * jobs, cancel, results, status and purge speak to a farm through it, following a standby to the active one.
 */
package org.replayfarm.cli.client;
