package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.Toolchain;

/**
 * {@code replay capture export} gives another tool what it needs, and {@code --device dir:PATH} takes what it
 * produced: a "translator" written here reads only the export (manifest, kernarg, ranges) and computes saxpy
 * itself; its folder compares equal, and a planted difference in it is caught at its element, the capture untouched.
 */
@Tag("cluster")
class ExportAndDeviceDirTest {
    @TempDir
    Path dir;

    @Test
    void an_outside_tool_runs_the_export_and_its_folder_is_the_device() throws Exception {
        Path saxpy = Toolchain.root().resolve("examples/saxpy");
        Path capture = dir.resolve("saxpy.capture");
        Files.copy(saxpy.resolve("saxpy.capture"), capture);
        byte[] before = Files.readAllBytes(capture);
        Path export = dir.resolve("export");
        CliRun ex = CliRun.of("capture", "export", capture.toString(), "--out", export.toString());
        assertEquals(0, ex.exitCode(), ex.out() + ex.err());
        JsonNode m = new ObjectMapper().readTree(export.resolve("manifest.json").toFile());
        assertEquals("replay-farm/capture-export/1", m.get("schema").asText());
        // the code is the object's .text, as llvm-objcopy-19 extracts it (saxpy.o has no relocations in .text)
        Toolchain.run(dir, "llvm-objcopy-19", "-O", "binary", "--only-section=.text", saxpy.resolve("saxpy.o").toString(),
                dir.resolve("text.bin").toString());
        assertArrayEquals(Files.readAllBytes(dir.resolve("text.bin")), Files.readAllBytes(export.resolve("code.bin")));
        assertArrayEquals(Files.readAllBytes(saxpy.resolve("x.bin")), Files.readAllBytes(export.resolve("guest-0.bin")));
        assertArrayEquals(Files.readAllBytes(saxpy.resolve("y.bin")), Files.readAllBytes(export.resolve("guest-1.bin")));
        assertEquals("float*", m.get("ranges").get(1).get("type_name").asText());
        long kernargFromSgprs = 0;
        for (JsonNode u : m.get("registers").get("user_sgprs")) {
            if (u.get("role").asText().equals("KERNARG_SEGMENT_PTR")) {
                int shift = u.get("sgpr").asInt() % 2 == 0 ? 0 : 32; // s[4:5]: low word first
                kernargFromSgprs |= Long.decode(u.get("value").asText()) << shift;
            }
        }
        assertEquals(Long.decode(m.get("kernarg").get("guest_address").asText()), kernargFromSgprs,
                "the kernarg pointer SGPRs hold the kernarg segment's address");

        // the outside tool: the kernarg offsets are llvm-readelf-19's (the metadata note), the rest the manifest's
        String notes = Toolchain.run(dir, "llvm-readelf-19", "--notes", saxpy.resolve("saxpy.o").toString());
        assertTrue(notes.contains(".offset:         8"), notes);
        ByteBuffer k = ByteBuffer.wrap(Files.readAllBytes(export.resolve("kernarg.bin"))).order(ByteOrder.LITTLE_ENDIAN);
        float a = k.getFloat(0);
        long xAddress = k.getLong(8);
        long yAddress = k.getLong(16);
        int n = k.getInt(24);
        assertEquals(Long.decode(m.get("ranges").get(0).get("guest_address").asText()), xAddress);
        assertEquals(Long.decode(m.get("ranges").get(1).get("guest_address").asText()), yAddress);
        ByteBuffer x = ByteBuffer.wrap(Files.readAllBytes(export.resolve("guest-0.bin"))).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer y = ByteBuffer.wrap(Files.readAllBytes(export.resolve("guest-1.bin"))).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            y.putFloat(4 * i, a * x.getFloat(4 * i) + y.getFloat(4 * i));
        }
        Path device = Files.createDirectories(dir.resolve("device"));
        Files.write(device.resolve("guest-1.bin"), y.array());
        CliRun equal = CliRun.of("run", capture.toString(), "--every-group", "--device", "dir:" + device, "--evaluators", "2",
                "--out", dir.resolve("equal").toString());
        assertEquals(0, equal.exitCode(), equal.out() + equal.err());
        assertTrue(equal.out().contains("device          the folder " + device), equal.out());
        assertTrue(equal.out().contains("1000 element(s) compared, 0 differing"), equal.out());

        float y5 = y.getFloat(4 * 5);
        y.putFloat(4 * 5, y5 + 1);
        Files.write(device.resolve("guest-1.bin"), y.array());
        CliRun differs = CliRun.of("run", capture.toString(), "--every-group", "--device", "dir:" + device, "--evaluators",
                "2", "--out", dir.resolve("differs").toString());
        assertEquals(1, differs.exitCode(), differs.out() + differs.err());
        assertTrue(differs.out().contains(String.format("element 5 (bytes 20..23): host %s (0x%08x), device %s (0x%08x)", y5,
                Float.floatToRawIntBits(y5), y5 + 1, Float.floatToRawIntBits(y5 + 1))), differs.out());
        assertArrayEquals(before, Files.readAllBytes(capture), "the capture is not touched");
        Files.write(device.resolve("guest-1.bin"), new byte[3]);
        CliRun wrong = CliRun.of("run", capture.toString(), "--group", "0", "--device", "dir:" + device, "--out",
                dir.resolve("wrong").toString());
        assertEquals(2, wrong.exitCode());
        assertTrue(wrong.err().contains("guest-1.bin: 3 bytes, but range 1 ('arg2 y.bin') of the capture holds 4000"),
                wrong.err());
        // refused before evaluating (it came after the whole evaluation, with an ERROR log line and the exception's
        // class name): one line, nothing evaluated
        assertTrue(wrong.err().startsWith("replay: --device dir:" + device + ": "), wrong.err());
        assertTrue(!wrong.err().contains("evaluating") && !wrong.err().contains("Exception") && !wrong.err().contains("ERROR"),
                wrong.err());
    }
}
