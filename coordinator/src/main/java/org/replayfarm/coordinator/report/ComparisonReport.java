package org.replayfarm.coordinator.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.replayfarm.evalnode.eval.ReportJson;

/**
 * report.json's {@code comparison} section (docs/report-schema.md), defined once: each record is one object of
 * the section, its components the object's fields in the order written, named in snake case by
 * {@link ReportJson} ({@code deviceOnly} is {@code device_only}). A component that is null is written as null, but for those marked
 * {@link JsonInclude.Include#NON_NULL}, which are left out. {@link RunReport} fills them from a {@link DiffResult}.
 */
public record ComparisonReport(boolean performed, Tolerances tolerances, Suggestion suggestion, boolean everyGroup,
                               List<Image> images, List<Range> ranges) {
    /** This section as a tree, to set into report.json. */
    public ObjectNode tree() {
        return ReportJson.tree(this);
    }

    /** What the command asked and what it applied to. */
    public record Tolerances(int ulp, double abs, double rel, boolean approximate, String description,
                             List<String> appliedTo, List<String> exact, List<ByView> byView, String statement) {
    }

    /** A range or image a {@code --view} gave tolerances of its own. */
    public record ByView(String what, int ulp, double abs, double rel, String description) {
    }

    /** The flags that would accept every difference. */
    public record Suggestion(String text, long values, long ulps, double abs, double rel, List<String> flags) {
    }

    /** The tolerance a range or image was compared with, and where it came from. */
    public record Applied(int ulp, double abs, double rel, String from) {
    }

    /** The largest distances of the differences beyond the tolerance. */
    public record Largest(long ulps, double abs, double rel, boolean approximate) {
    }

    /** One image. */
    public record Image(int index, String name, boolean recorded, long texels, long compared, long differing,
                        long deviceOnly, long toleratedUlp, long toleratedAbs, long toleratedRel,
                        long toleratedApproximate, long toleratedReassociated, long toleratedFloatMode,
                        Applied tolerance, Largest largestDifference, String footprint, long regionsTotal,
                        @JsonInclude(JsonInclude.Include.NON_NULL) String diffPng, List<Value> values,
                        List<ImageRegion> regions) {
    }

    /** A 4-connected region of differing or device-only texels in one plane (inclusive box). */
    public record ImageRegion(@JsonInclude(JsonInclude.Include.NON_NULL) String cropPng, int mip, int layer, int z,
                              int x0, int y0, int x1, int y1, long texels, long differing, long deviceOnly,
                              List<Group> groups) {
    }

    /** One memory range. */
    public record Range(int index, String name, String rangeName, String parameter, int argument, String typeName,
                        boolean recorded, long bytes, long compared, long differing, long deviceOnly, long toleratedUlp,
                        long toleratedAbs, long toleratedRel, long toleratedApproximate, long toleratedReassociated,
                        long toleratedFloatMode, Applied tolerance, Largest largestDifference, String footprint,
                        long regionsTotal, @JsonInclude(JsonInclude.Include.NON_NULL) OrderDependent orderDependent,
                        View view, long elements, long comparedElements, long differingElements,
                        long deviceOnlyElements, @JsonInclude(JsonInclude.Include.NON_NULL) String heatMapPng,
                        List<ByteRegion> regions, List<Value> values) {
    }

    /** What a range's order-dependent locations compared as. */
    public record OrderDependent(long locations, long equal, long withinReassociationBound, long anotherExchange,
                                 long beyond, double largestBound, double largestDifference, String op, long groups,
                                 long terms, String hostOrder, String text) {
    }

    /** How a range was typed and shaped. */
    public record View(boolean typed, String type, int elementBytes, int rows, int cols, String source, String unit) {
    }

    /** A run of consecutive differing or device-only bytes. */
    public record ByteRegion(long offset, long length, long differing, long deviceOnly, long firstElement,
                             long lastElement, List<Group> groups) {
    }

    /** A group that stored part of a region. */
    public record Group(String group, long stored, long approximateInstructions) {
    }

    /** A differing or device-only element, texel or byte. */
    public record Value(long index, long row, long col, String where, String kind, List<String> host,
                        List<String> device, List<String> hostBits, List<String> deviceBits, List<Long> ulps,
                        String unit, List<String> groups, List<Store> stores) {
    }

    /** A store or atomic to a value's bytes, re-run with store tracing. */
    public record Store(String group, int wave, int lane, String pc, String instruction, String kind, String value,
                        String source) {
    }
}
