package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.Toolchain;

/**
 * replay run on every example against its recorded native x86-64 run (an independent execution of the
 * same source by clang-19): no differences; and a deliberately corrupted copy of that run is caught at
 * exactly the corrupted places, traced to the groups that stored them.
 */
@Tag("cluster")
class RunAgainstDeviceTest {
    private static final String NATIVE = "native x86-64 (clang-19)";

    @TempDir
    Path dir;

    @Test
    void saxpy_equals_its_recorded_native_run() throws Exception {
        Path capture = Toolchain.root().resolve("examples/saxpy/saxpy.capture");
        CliRun run = CliRun.of("run", capture.toString(), "--every-group", "--evaluators", "2", "--out", dir.resolve("out").toString());
        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains("device          recorded run '" + NATIVE + "' (auto: no GPU on this node"), run.out());
        assertTrue(run.out().contains("result          equal (exit status 0)"), run.out());
        JsonNode report = new ObjectMapper().readTree(dir.resolve("out/report.json").toFile());
        JsonNode y = report.get("comparison").get("ranges").get(1);
        assertEquals(4000, y.get("compared").asInt(), "every byte of y was stored by the host and compared");
        assertEquals(0, y.get("differing").asInt());
        assertEquals(0, report.get("comparison").get("ranges").get(0).get("device_only").asInt());
        assertEquals("equal", report.get("result").get("status").asText());
    }

    @Test
    void a_corrupted_copy_of_the_native_run_is_caught_at_exactly_the_corrupted_places() throws Exception {
        Path capture = corrupted(dir);
        CliRun run = CliRun.of("run", capture.toString(), "--every-group", "--device", "recorded:corrupted", "--evaluators", "2",
                "--out", dir.resolve("out").toString());
        assertEquals(1, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains("result          different (exit status 1)"), run.out());
        JsonNode ranges = new ObjectMapper().readTree(dir.resolve("out/report.json").toFile()).get("comparison").get("ranges");
        JsonNode x = ranges.get(0);
        assertEquals(List.of(0, 0, 1, 1), List.of(x.get("compared").asInt(), x.get("differing").asInt(),
                x.get("device_only").asInt(), x.get("regions_total").asInt()));
        assertEquals(12, x.get("regions").get(0).get("offset").asInt());
        assertEquals(0, x.get("regions").get(0).get("groups").size(), "no group stored x");
        JsonNode y = ranges.get(1);
        assertEquals(List.of(4000, 5, 0, 2), List.of(y.get("compared").asInt(), y.get("differing").asInt(),
                y.get("device_only").asInt(), y.get("regions_total").asInt()));
        JsonNode first = y.get("regions").get(0);
        assertEquals(List.of(400, 4), List.of(first.get("offset").asInt(), first.get("length").asInt()));
        assertEquals("(1, 0, 0)", first.get("groups").get(0).get("group").asText(), "y[100] is group 1's");
        assertEquals(0, first.get("groups").get(0).get("approximate_instructions").asInt());
        assertEquals(List.of(100, 100), List.of(first.get("first_element").asInt(), first.get("last_element").asInt()));
        JsonNode last = y.get("regions").get(1);
        // y is float*: the run covers the element whose last byte changed, y[999]
        assertEquals(List.of(3996, 4, 1), List.of(last.get("offset").asInt(), last.get("length").asInt(),
                last.get("differing").asInt()));
        assertEquals(999, last.get("first_element").asInt());
        assertEquals(2, y.get("differing_elements").asInt());
        assertEquals("arg2", y.get("name").asText(), "saxpy.o has no -cl-kernel-arg-info: y is named by its position");
        assertEquals("float*", y.get("type_name").asText());
        assertEquals("(15, 0, 0)", last.get("groups").get(0).get("group").asText());
        String junit = Files.readString(dir.resolve("out/junit.xml"));
        assertTrue(junit.contains("tests=\"4\" failures=\"2\" errors=\"0\" skipped=\"2\""), junit);

        // a group selection compares that group's bytes and device-only changes inside its footprint only
        CliRun one = CliRun.of("run", capture.toString(), "--group", "1", "--device", "recorded:corrupted", "--evaluators", "1",
                "--out", dir.resolve("one").toString());
        assertEquals(1, one.exitCode(), one.out() + one.err());
        JsonNode sel = new ObjectMapper().readTree(dir.resolve("one/report.json").toFile()).get("comparison").get("ranges");
        assertEquals(List.of(256, 4, 0), List.of(sel.get(1).get("compared").asInt(), sel.get(1).get("differing").asInt(),
                sel.get(1).get("device_only").asInt()));
        assertEquals("bytes 256..511", sel.get(1).get("footprint").asText());
        assertEquals(0, sel.get(0).get("device_only").asInt(), "group 1 stored no byte of x: no footprint there");

        // the untouched native run is still there, and still equal
        CliRun clean = CliRun.of("run", capture.toString(), "--every-group", "--device", "recorded:" + NATIVE,
                "--out", dir.resolve("clean").toString());
        assertEquals(0, clean.exitCode(), clean.out() + clean.err());
    }

    @Test
    void device_none_compares_nothing_and_an_unknown_label_is_an_error_listing_the_labels() throws Exception {
        Path capture = Toolchain.root().resolve("examples/saxpy/saxpy.capture");
        CliRun none = CliRun.of("run", capture.toString(), "--group", "0", "--device", "none", "--out", dir.resolve("n").toString());
        assertEquals(0, none.exitCode(), none.out() + none.err());
        assertTrue(none.out().contains("device          none (asked for): the host model only, nothing compared"), none.out());
        assertTrue(none.out().contains("result          host only (exit status 0)"), none.out());
        assertTrue(Files.readString(dir.resolve("n/junit.xml")).contains("skipped=\"4\""));
        CliRun unknown = CliRun.of("run", capture.toString(), "--group", "0", "--device", "recorded:gpu", "--out",
                dir.resolve("u").toString());
        assertEquals(2, unknown.exitCode());
        assertTrue(unknown.err().contains("no recorded run labelled 'gpu'; it has ['" + NATIVE + "']"), unknown.err());
        CliRun bad = CliRun.of("run", capture.toString(), "--group", "0", "--device", "gpu", "--out", dir.resolve("b").toString());
        assertEquals(2, bad.exitCode());
        assertTrue(bad.err().contains("expected " + org.replayfarm.gpunode.device.DeviceChoice.SPELLINGS + ""), bad.err());
    }

    /**
     * saxpy with a second run labelled "corrupted": the native run's outputs with x's byte 12 changed
     * (x is only read, so that is a device-only change), y[100]'s four bytes flipped and y's last byte changed.
     */
    static Path corrupted(Path dir) throws Exception {
        Path capture = dir.resolve("saxpy.capture");
        Files.copy(Toolchain.root().resolve("examples/saxpy/saxpy.capture"), capture);
        CliRun exported = CliRun.of("run", capture.toString(), "--group", "0", "--evaluators", "1", "--out",
                dir.resolve("export").toString());
        assertEquals(0, exported.exitCode(), exported.out() + exported.err());
        Path from = Files.createDirectories(dir.resolve("bad"));
        byte[] x = Files.readAllBytes(dir.resolve("export/device/guest-0.bin"));
        byte[] y = Files.readAllBytes(dir.resolve("export/device/guest-1.bin"));
        x[12] ^= 0x40;
        for (int i = 400; i < 404; i++) {
            y[i] ^= (byte) 0xFF;
        }
        y[3999] ^= 1;
        Files.write(from.resolve("guest-0.bin"), x);
        Files.write(from.resolve("guest-1.bin"), y);
        CliRun added = CliRun.of("capture", "add-run", capture.toString(), "--label", "corrupted", "--from", from.toString());
        assertEquals(0, added.exitCode(), added.out() + added.err());
        return capture;
    }
}
