package org.replayfarm.coordinator.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;
import org.replayfarm.evalnode.eval.ReportJson;

/**
 * report.json's run sections (docs/report-schema.md) beside {@link ComparisonReport} and the sampling section,
 * defined once: the run's identity, {@code device}, {@code result}, {@code timings}, {@code farm} and
 * {@code first_divergence}; and a batch's {@code batch.json}. Each record is one object, its components the
 * object's fields in the order written, named in snake case by {@link ReportJson} ({@code exitStatus} is
 * {@code exit_status}); a component marked {@link JsonInclude.Include#NON_NULL} is left out when null.
 */
public final class ReportSections {
    private ReportSections() {
    }

    /** Who ran: the fields a run report adds at its top level after the host's. */
    public record Run(String captureFile, String capturePath, String job, String selection,
                      long nondeterministicSlices) {
    }

    /** The device side: what {@code --device} asked for, what ran and how. */
    public record Device(String choice, String kind, String label, String reason, List<Execution> executions,
                         @JsonInclude(JsonInclude.Include.NON_NULL) Exec exec,
                         @JsonInclude(JsonInclude.Include.NON_NULL) Fidelity fidelity,
                         List<HotInstruction> hotGuestInstructions,
                         @JsonInclude(JsonInclude.Include.NON_NULL) PcSamples pcSamples) {
    }

    /** One execution of the dispatch on the device ({@code serialized}: unknown, true or false). */
    public record Execution(String id, long durationNs, String serialized) {
    }

    /** How an {@code exec:} device's program ended. */
    public record Exec(String command, int exitStatus, String stderrTail, double seconds) {
    }

    /** What a translated run says about itself. */
    public record Fidelity(long translatedExact, long translatedApproximate, long refused, long unreached,
                           long waveInstructions, long laneInstructions, long faultedGroups) {
    }

    /** A guest instruction PC samples were traced to, hottest first. */
    public record HotInstruction(String pc, int line, String text, long samples, List<Stall> stallReasons) {
    }

    /** A stall reason's samples at one instruction. */
    public record Stall(String reason, long samples) {
    }

    /** How many PC samples were traced to a guest instruction and how many could not be. */
    public record PcSamples(long attributed, long unattributed) {
    }

    /** The outcome in one word, the exit status and why. */
    public record Result(String status, int exitStatus, List<String> reasons) {
    }

    /** Where the time went. */
    public record Timings(double hostSeconds, double deviceSeconds, double diffSeconds) {
    }

    /**
     * A farm job's slicing: slices planned, resent, results that came back again, and the evaluator nodes the job
     * stopped sending slices to, with why.
     */
    public record Farm(long slices, long resent, long duplicates, List<NodeOut> nodesOutOfRotation) {
        /** From the job's retired nodes, in the map's order. */
        public static Farm of(long slices, long resent, long duplicates, Map<String, String> retired) {
            return new Farm(slices, resent, duplicates, retired.entrySet().stream()
                    .map(e -> new NodeOut(e.getKey(), e.getValue())).toList());
        }
    }

    /** An evaluator node out of the job's rotation. */
    public record NodeOut(String node, String reason) {
    }

    /** {@code batch.json}: a batch of captures run by {@code replay run CAPTURE... | --manifest FILE}. */
    public record Batch(String schema, double seconds, int exitStatus, Map<String, Integer> counts,
                        List<BatchCapture> captures) {
        public static final String SCHEMA = "replay-farm/batch-report/1";

        /** The file's text: indented, ending in a newline. */
        public String text() throws com.fasterxml.jackson.core.JsonProcessingException {
            return ReportJson.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(this) + "\n";
        }
    }

    /** One capture of a batch: its status, why, how long, where its report lies, and the notes. */
    public record BatchCapture(String name, String capture, String sha256, String status, String reason, double seconds,
                               String report, List<String> notes) {
    }

    /**
     * {@code first_divergence}, written by {@code replay explain --first-divergence}: one record for both methods,
     * the fields of the other method left out ({@code lockstep traces}: {@code instructionsCompared},
     * {@code approximateWithinTolerance}, {@code tracedSeconds}, {@code recent}; {@code probe bisection}:
     * {@code start} ... {@code probeSeconds}, {@code probes}), and what was found ({@code wave} ... {@code operands})
     * only when found.
     */
    public record FirstDivergence(String method, String device, List<Integer> group,
                                  @JsonInclude(JsonInclude.Include.NON_NULL) Long instructionsCompared,
                                  @JsonInclude(JsonInclude.Include.NON_NULL) Long approximateWithinTolerance,
                                  @JsonInclude(JsonInclude.Include.NON_NULL) Double tracedSeconds,
                                  @JsonInclude(JsonInclude.Include.NON_NULL) String start,
                                  @JsonInclude(JsonInclude.Include.NON_NULL) String store,
                                  @JsonInclude(JsonInclude.Include.NON_NULL) Long sliceInstructions,
                                  @JsonInclude(JsonInclude.Include.NON_NULL) Long sliceProbeable,
                                  @JsonInclude(JsonInclude.Include.NON_NULL) Long probeRuns,
                                  @JsonInclude(JsonInclude.Include.NON_NULL) Double probeSeconds,
                                  boolean found, @JsonInclude(JsonInclude.Include.NON_NULL) Integer wave,
                                  @JsonInclude(JsonInclude.Include.NON_NULL) String pc,
                                  @JsonInclude(JsonInclude.Include.NON_NULL) String instruction,
                                  @JsonInclude(JsonInclude.Include.NON_NULL) String kind,
                                  @JsonInclude(JsonInclude.Include.NON_NULL) String why,
                                  @JsonInclude(JsonInclude.Include.NON_NULL) String sourceLine,
                                  @JsonInclude(JsonInclude.Include.NON_NULL) List<Register> differs,
                                  @JsonInclude(JsonInclude.Include.NON_NULL) List<Register> operands,
                                  @JsonInclude(JsonInclude.Include.NON_NULL) List<Recent> recent,
                                  @JsonInclude(JsonInclude.Include.NON_NULL) List<Probe> probes, List<String> notes) {
    }

    /** A register's value on each side (hex); {@code lane} for a vector register; {@code device} null: not probed. */
    public record Register(String register, @JsonInclude(JsonInclude.Include.NON_NULL) Integer lane, String host,
                           String device) {
    }

    /** An instruction of the same wave before the divergent one, with each side's register changes. */
    public record Recent(String pc, String instruction, String host, String device) {
    }

    /** One probe of a bisection: the run, the wave, the pc (hex), which execution of it, and the verdict. */
    public record Probe(int run, int wave, String pc, int execution, String instruction, String verdict) {
    }
}
