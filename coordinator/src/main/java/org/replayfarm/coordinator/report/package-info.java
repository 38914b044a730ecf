/**
 * The end of a run: {@link org.replayfarm.coordinator.report.Comparison} runs the chosen device, {@link
 * org.replayfarm.coordinator.report.Diff} compares its outputs with the host's merged results (images texel by
 * texel, memory ranges byte by byte or as typed elements, {@code RangeViews}, under {@code DiffOptions} and
 * {@code Tolerance}), and {@link org.replayfarm.coordinator.report.RunReport} writes report.json, summary.txt,
 * junit.xml, the host, device and diff files and pictures. Also here: the stores that wrote a differing element
 * ({@code StoreTrace}, with source lines from {@code DwarfLines}) and the tolerance a report suggests
 * ({@code ToleranceSuggestion}). One path for {@code replay run} and the coordinator's cluster jobs.
 */
package org.replayfarm.coordinator.report;
