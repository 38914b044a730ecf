package org.replayfarm.coordinator.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.replayfarm.coordinator.report.SyntheticCapture.W;
import static org.replayfarm.coordinator.report.SyntheticCapture.f32;
import static org.replayfarm.coordinator.report.SyntheticCapture.group;
import static org.replayfarm.coordinator.report.SyntheticCapture.rgba;
import static org.replayfarm.coordinator.report.SyntheticCapture.texel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.eval.Evaluation;
import org.replayfarm.evalnode.hostmodel.StoreRun;
import org.replayfarm.evalnode.hostmodel.TexelStore;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The files a compared run leaves in DIR: what a person opens and what a machine parses. */
@Tag("unit")
class RunReportTest {
    @TempDir
    Path dir;

    @Test
    void report_json_pngs_and_junit_xml_name_the_corrupted_places() throws Exception {
        SyntheticCapture c = new SyntheticCapture(dir.resolve("capture"));
        // one group stores the whole of image 0 (white) and bytes 0..63 of range 0
        List<TexelStore> texels = new ArrayList<>();
        for (int y = 0; y < 4; y++) {
            for (int x = 0; x < W; x++) {
                texels.add(texel(0, x, y, rgba(255, 255, 255, 255)));
            }
        }
        texels.add(texel(1, 0, 0, f32(0.5f)));
        c.totals.add(group(0, 0, List.of(new StoreRun(0, 0, new byte[64])), texels, List.of(), 2, null));
        Evaluation.Outcome o = c.totals.outcome(Duration.ofMillis(3), 1);
        byte[] image0 = o.images().texels(0).clone();
        image0[(1 * W + 5) * 4] = 0;   // (5, 1) differs
        byte[] range0 = o.memory().range(0).clone();
        range0[7] = 1;                 // differs
        range0[90] = 0;                // device-only (initial byte 90 is 90)
        var device = SyntheticCapture.device(range0, null, image0, o.images().texels(1).clone());
        DiffOptions options = DiffOptions.exact(true);
        DiffResult diff = Diff.compare(o.memory(), o.images(), device, options);
        Path out = dir.resolve("out");
        RunReport.Verdict v = RunReport.write(out, o, c.kernel, new RunReport.Identity("ab".repeat(32), "synthetic.capture",
                "job-1", "every group"), new RunReport.Device("auto", "recorded run 'synthetic device'", device, 0.001),
                diff, options, 0, 0.002);
        assertEquals(1, v.exitStatus());

        JsonNode report = new ObjectMapper().readTree(out.resolve("report.json").toFile());
        assertEquals("replay-farm/run-report/2", report.get("schema").asText());
        assertEquals("job-1", report.get("job").asText());
        assertEquals("synthetic device", report.get("device").get("label").asText());
        assertEquals("recorded", report.get("device").get("kind").asText());
        assertEquals(1, report.get("groups").asInt());
        assertEquals(2, report.get("instructions_by_fidelity").get("approximate").asInt());
        JsonNode img = report.get("comparison").get("images").get(0);
        assertEquals(32, img.get("compared").asInt());
        assertEquals(1, img.get("differing").asInt());
        assertEquals(0, img.get("device_only").asInt());
        JsonNode region = img.get("regions").get(0);
        assertEquals(List.of(5, 1, 5, 1), List.of(region.get("x0").asInt(), region.get("y0").asInt(), region.get("x1").asInt(),
                region.get("y1").asInt()));
        assertEquals("(0, 0, 0)", region.get("groups").get(0).get("group").asText());
        assertEquals(2, region.get("groups").get(0).get("approximate_instructions").asInt());
        JsonNode r0 = report.get("comparison").get("ranges").get(0);
        assertEquals(List.of(64, 1, 1, 2), List.of(r0.get("compared").asInt(), r0.get("differing").asInt(),
                r0.get("device_only").asInt(), r0.get("regions_total").asInt()));
        assertEquals(90, r0.get("regions").get(1).get("offset").asInt());
        assertTrue(!report.get("comparison").get("ranges").get(1).get("recorded").asBoolean());
        assertEquals("different", report.get("result").get("status").asText());
        assertEquals(1, report.get("result").get("exit_status").asInt());
        assertTrue(report.get("timings").get("diff_seconds").asDouble() > 0);

        // host/ and device/ hold the bytes; the PNGs decode and show the differing texel
        assertArrayEquals(range0, Files.readAllBytes(out.resolve("device/guest-0.bin")));
        assertArrayEquals(o.memory().range(0), Files.readAllBytes(out.resolve("host/guest-0.bin")));
        assertArrayEquals(image0, Files.readAllBytes(out.resolve("device/image-0.raw")));
        BufferedImage host = ImageIO.read(out.resolve("host/image-0.png").toFile());
        assertEquals(W, host.getWidth());
        assertEquals(0xFFFFFF, host.getRGB(5, 1) & 0xFFFFFF);
        BufferedImage dev = ImageIO.read(out.resolve("device/image-0.png").toFile());
        assertEquals(0x00FFFF, dev.getRGB(5, 1) & 0xFFFFFF, "the device's red channel is 0 there");
        BufferedImage pic = ImageIO.read(out.resolve("diff/image-0.png").toFile());
        for (int y = 0; y < 4; y++) {
            for (int x = 0; x < W; x++) {
                int expected = x == 5 && y == 1 ? DiffPicture.DIFFERING : 0x555555;
                assertEquals(expected, pic.getRGB(x, y) & 0xFFFFFF, "diff picture at (" + x + ", " + y + ")");
            }
        }

        Document junit = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(out.resolve("junit.xml").toFile());
        Element suite = junit.getDocumentElement();
        assertEquals("4", suite.getAttribute("tests"));
        assertEquals("2", suite.getAttribute("failures"));
        assertEquals("1", suite.getAttribute("skipped"));
        NodeList cases = suite.getElementsByTagName("testcase");
        assertEquals("image 0 (colour)", ((Element) cases.item(0)).getAttribute("name"));
        assertEquals(1, ((Element) cases.item(0)).getElementsByTagName("failure").getLength());
        assertEquals(0, ((Element) cases.item(1)).getElementsByTagName("failure").getLength(), "image 1 equal");
        assertEquals(1, ((Element) cases.item(3)).getElementsByTagName("skipped").getLength(), "range 1 not recorded");

        String summary = Files.readString(out.resolve("summary.txt"));
        assertTrue(summary.contains("result          different (exit status 1)"), summary);
        assertTrue(summary.contains("image 0 (colour): 1 of 32 compared texels differ, 0 device-only"), summary);
        assertTrue(summary.contains("range 0 (out): 1 of 64 compared bytes differ, 1 device-only"), summary);
    }

    @Test
    void a_farm_job_s_summary_does_not_say_on_0_threads() throws Exception {
        SyntheticCapture c = new SyntheticCapture(dir.resolve("farm-capture"));
        c.totals.add(group(0, 0, List.of(new StoreRun(0, 0, new byte[64])), List.of(), List.of(), 2, null));
        java.io.StringWriter farm = new java.io.StringWriter();
        // a cluster job service that runs no evaluator itself reports 0 threads (FarmNode's reportThreads)
        Evaluation.summarize(c.totals.outcome(Duration.ofMillis(3), 0), new java.io.PrintWriter(farm));
        assertTrue(farm.toString().startsWith("groups          1 (on the farm's evaluator nodes, 0.003 s)"), farm.toString());
        assertTrue(!farm.toString().contains("thread"), farm.toString());
        java.io.StringWriter local = new java.io.StringWriter();
        Evaluation.summarize(new SyntheticCapture(dir.resolve("local-capture")).totals.outcome(Duration.ofMillis(3), 2),
                new java.io.PrintWriter(local));
        assertTrue(local.toString().startsWith("groups          0 (on 2 thread(s), 0.003 s)"), local.toString());
    }

    @Test
    void a_sampled_device_run_s_report_names_its_hottest_instructions_and_how_many_samples_were_traced() throws Exception {
        SyntheticCapture c = new SyntheticCapture(dir.resolve("sampled-capture"));
        c.totals.add(group(0, 0, List.of(new StoreRun(0, 0, new byte[64])), List.of(), List.of(), 2, null));
        Evaluation.Outcome o = c.totals.outcome(Duration.ofMillis(3), 1);
        var plain = SyntheticCapture.device(o.memory().range(0).clone(), null, o.images().texels(0).clone(),
                o.images().texels(1).clone());
        var hot = org.replayfarm.proto.GuestHotspot.newBuilder().setGuestPc(0x1c).setLine(8).setText("v_mul_f32 v1, v1, v2")
                .setSamples(40).build();
        var device = new org.replayfarm.gpunode.device.DeviceRun("cuda", "H200", plain.ranges(), plain.images(),
                plain.executions(), plain.fidelity(), List.of(hot), 40, 7);
        DiffOptions options = DiffOptions.exact(true);
        DiffResult diff = Diff.compare(o.memory(), o.images(), device, options);
        Path out = dir.resolve("sampled-out");
        RunReport.write(out, o, c.kernel, new RunReport.Identity("cd".repeat(32), "sampled.capture", "job-2", "every group"),
                new RunReport.Device("cuda", "H200", device, 0.001), diff, options, 0, 0.002);
        JsonNode report = new ObjectMapper().readTree(out.resolve("report.json").toFile());
        JsonNode samples = report.get("device").get("pc_samples");
        assertEquals(40, samples.get("attributed").asLong());
        assertEquals(7, samples.get("unattributed").asLong());
        JsonNode first = report.get("device").get("hot_guest_instructions").get(0);
        assertEquals("0x1c", first.get("pc").asText());
        assertEquals(40, first.get("samples").asInt());
        String summary = Files.readString(out.resolve("summary.txt"));
        assertTrue(summary.contains("pc samples      40 traced to a guest instruction, 7 not"), summary);
        assertTrue(summary.contains("hottest guest   0x1c v_mul_f32 v1, v1, v2 (40)"), summary);
    }
}
