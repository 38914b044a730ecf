/**
 * The examples' generators: the shadow pass scene and its reference tracer ({@link
 * org.replayfarm.cli.examples.ShadowPass}, {@code ShadowScene}, {@code ReferenceTracer}) that
 * {@code replay example} builds captures from.
 */
package org.replayfarm.cli.examples;
