package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code replay eval}: a fault stops its group only; a runaway loop meets its budget; the output layout. */
@Tag("cluster")
class EvalCommandTest {
    @TempDir
    Path dir;

    /** Each group stores its id at out[id]; group 2 first moves its address 4 GiB away (outside every range). */
    static final String STORE_ID = """
            s_load_dwordx2 s[4:5], s[0:1], 0x0
            s_waitcnt lgkmcnt(0)
            s_cmp_eq_u32 s2, 2
            s_cbranch_scc0 store
            s_add_u32 s5, s5, 1
            store:
            s_lshl_b32 s6, s2, 2
            v_mov_b32 v1, s6
            v_mov_b32 v2, s2
            global_store_dword v1, v2, s[4:5]
            s_endpgm
            """;

    private Path capture(String asm, String groups) throws Exception {
        Path s = dir.resolve("k.s");
        Files.writeString(s, asm);
        Path out = dir.resolve("k.capture");
        CliRun built = CliRun.of("capture", "build", "--asm", s.toString(), "--groups", groups, "--group-size", "1",
                "--arg", "zeros:64", "--workgroup-id-sgpr", "2", "-o", out.toString());
        assertEquals(0, built.exitCode(), built.err());
        return out;
    }

    @Test
    void a_fault_stops_its_group_only_and_the_rest_of_the_job_completes() throws Exception {
        Path capture = capture(STORE_ID, "4");
        CliRun eval = CliRun.of("eval", capture.toString(), "--every-group", "--out", dir.resolve("out").toString());
        assertEquals(1, eval.exitCode(), "a faulted group makes the exit status 1\n" + eval.out() + eval.err());
        assertTrue(eval.out().contains("group (2, 0, 0) wave 0 lane 0 pc 0x"), eval.out());
        assertTrue(eval.out().contains("global_store_dword v1, v2, s[4:5]"), eval.out());
        assertTrue(eval.out().contains("outside every memory range"), eval.out());
        ByteBuffer out = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("out/host/guest-0.bin"))).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(0, out.getInt(0));
        assertEquals(1, out.getInt(4));
        assertEquals(0, out.getInt(8), "group 2 stored nothing");
        assertEquals(3, out.getInt(12));
        JsonNode report = new ObjectMapper().readTree(dir.resolve("out/report.json").toFile());
        assertEquals("replay-farm/eval-report/1", report.get("schema").asText());
        assertEquals(4, report.get("groups").asInt());
        assertEquals(1, report.get("faults").size());
        assertEquals(2, report.get("faults").get(0).get("group").get(0).asInt());
        assertTrue(report.get("instructions_by_fidelity").get("exact").asLong() > 0);
        assertEquals("host/guest-0.bin", report.get("ranges").get(0).get("file").asText());
    }

    @Test
    void a_runaway_loop_is_stopped_by_the_instruction_budget() throws Exception {
        Path capture = capture("loop:\ns_branch loop\ns_endpgm\n", "2");
        CliRun eval = CliRun.of("eval", capture.toString(), "--group", "1", "--budget", "5000", "--out",
                dir.resolve("out").toString());
        assertEquals(1, eval.exitCode(), eval.out() + eval.err());
        assertTrue(eval.out().contains("group (1, 0, 0) wave 0 pc 0x"), eval.out());
        assertTrue(eval.out().contains("instruction budget of 5000 exhausted"), eval.out());
        assertTrue(eval.out().contains("groups          1 "), eval.out());
    }

    @Test
    void groups_are_checked_against_the_dispatch_and_the_results_do_not_depend_on_threads() throws Exception {
        Path capture = capture(STORE_ID.replace("s_cmp_eq_u32 s2, 2", "s_cmp_eq_u32 s2, 99"), "4");
        CliRun outside = CliRun.of("eval", capture.toString(), "--group", "4,0", "--out", dir.resolve("x").toString());
        assertEquals(2, outside.exitCode());
        assertTrue(outside.err().contains("group (4, 0, 0) is outside the dispatch of 4 x 1 x 1 groups"), outside.err());
        CliRun one = CliRun.of("eval", capture.toString(), "--every-group", "--threads", "1", "--out", dir.resolve("a").toString());
        CliRun three = CliRun.of("eval", capture.toString(), "--every-group", "--threads", "3", "--out", dir.resolve("b").toString());
        assertEquals(0, one.exitCode(), one.out());
        assertEquals(0, three.exitCode(), three.out());
        assertEquals(java.util.Arrays.toString(Files.readAllBytes(dir.resolve("a/host/guest-0.bin"))),
                java.util.Arrays.toString(Files.readAllBytes(dir.resolve("b/host/guest-0.bin"))));
    }

    @Test
    void a_group_named_twice_is_refused_naming_it_by_eval_run_and_submit() throws Exception {
        // an atomic add of 1 per lane: group 0 three times once gave a counter of 192 for 64 lanes
        Path capture = capture(STORE_ID, "4");
        for (String command : List.of("eval", "run")) {
            CliRun twice = CliRun.of(command, capture.toString(), "--group", "0", "--group", "1", "--group", "0,0,0",
                    "--group", "0", "--out", dir.resolve(command).toString());
            assertEquals(2, twice.exitCode(), command + ": " + twice.out() + twice.err());
            assertTrue(twice.err().contains("group (0, 0, 0) 3 times: name each group once"), twice.err());
            assertTrue(!Files.exists(dir.resolve(command)), command + " wrote nothing");
        }
        CliRun submit = CliRun.of("submit", capture.toString(), "--coordinator", "http://127.0.0.1:9", "--group", "2",
                "--group", "2,0");
        assertEquals(2, submit.exitCode(), submit.out() + submit.err());
        assertTrue(submit.err().contains("group (2, 0, 0) 2 times"), submit.err());
    }

    /**
     * A write that fails part way (a folder stands where an output goes, as a full disk or a kill would stop
     * it) leaves no report.json beside the new outputs, an INCOMPLETE note, every file written either whole
     * or not at all under its final name, and no temporary file; the next run over the same folder finishes it.
     */
    @Test
    void outputs_are_renamed_into_place_report_json_last_and_an_unfinished_folder_says_so() throws Exception {
        Path capture = capture(STORE_ID.replace("s_cmp_eq_u32 s2, 2", "s_cmp_eq_u32 s2, 99"), "4");
        for (String command : List.of("eval", "run")) {
            Path out = dir.resolve(command);
            CliRun first = CliRun.of(command, capture.toString(), "--group", "1", "--out", out.toString());
            assertEquals(0, first.exitCode(), first.out() + first.err());
            assertTrue(Files.isRegularFile(out.resolve("report.json")));
            byte[] oldGuest = Files.readAllBytes(out.resolve("host/guest-0.bin"));
            // eval stops at its second range, run at summary.txt (after every host file)
            Path blocked = out.resolve(command.equals("eval") ? "host/guest-1.bin" : "summary.txt");
            Files.delete(blocked);
            Files.createDirectories(blocked.resolve("in-the-way"));
            CliRun second = CliRun.of(command, capture.toString(), "--every-group", "--out", out.toString());
            assertEquals(2, second.exitCode(), command + ": " + second.out() + second.err());
            assertTrue(!Files.exists(out.resolve("report.json")), command + ": the old report.json is gone, no new one");
            assertTrue(Files.readString(out.resolve("INCOMPLETE")).contains("holds no finished run"), command);
            byte[] guest = Files.readAllBytes(out.resolve("host/guest-0.bin"));
            assertEquals(64, guest.length);
            assertTrue(!java.util.Arrays.equals(oldGuest, guest), command + ": guest-0.bin is the new run's, whole");
            try (var files = Files.walk(out)) {
                assertEquals(List.of(), files.filter(f -> f.getFileName().toString().endsWith(".tmp")).toList());
            }
            Files.delete(blocked.resolve("in-the-way"));
            Files.delete(blocked);
            CliRun third = CliRun.of(command, capture.toString(), "--every-group", "--out", out.toString());
            assertEquals(0, third.exitCode(), third.out() + third.err());
            assertTrue(Files.isRegularFile(out.resolve("report.json")) && !Files.exists(out.resolve("INCOMPLETE")), command);
        }
    }
}
