/**
 * The shadow-pass example's inputs, generated from a seed for {@code replay example shadow-pass}: the scene ({@link
 * org.replayfarm.cli.example.ShadowScene}: ground, boxes and spheres as triangles, a camera and a point light), the
 * depth, normal and initial mask images with the expected mask ({@link org.replayfarm.cli.example.ShadowPass}), and
 * the independent double-precision ray tracer the expected mask comes from ({@link
 * org.replayfarm.cli.example.ReferenceTracer}), which shares no code with the RDNA 2 BVH builder or node test.
 */
package org.replayfarm.cli.example;
