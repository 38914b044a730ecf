package org.replayfarm.cli.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.report.CompareWith;
import org.replayfarm.gpunode.device.DeviceChoice;
import org.replayfarm.cli.CliRun;
import org.replayfarm.cli.Replay;
import org.replayfarm.cli.batch.BatchRun;

/**
 * {@code --abs} and {@code --rel} beside {@code --ulp} on {@code replay run} and {@code replay submit}, views with
 * tolerances, and a manifest line's own tolerances: parsed as given, a bad value refused naming the option and the
 * value before anything starts.
 */
@Tag("unit")
class ToleranceOptionsTest {
    @TempDir
    Path dir;

    private static CompareWith run(String... options) {
        List<String> args = new java.util.ArrayList<>(List.of("run", "k.capture", "--every-group", "--out", "o"));
        args.addAll(List.of(options));
        picocli.CommandLine.ParseResult p = Replay.commandLine().parseArgs(args.toArray(String[]::new));
        return ((RunCommand) p.subcommand().commandSpec().userObject()).comparison.compareWith();
    }

    @Test
    void abs_rel_and_view_tolerances_are_parsed_beside_ulp() {
        CompareWith c = run("--abs", "2.4e-7", "--rel", "1e-5", "--ulp", "2", "--view", "C=f32,abs=1e-6",
                "--view", "image:1=rel=1e-3");
        assertEquals(2.4e-7, c.abs());
        assertEquals(1e-5, c.rel());
        assertEquals(2, c.ulp());
        assertEquals(List.of("C=f32,abs=1e-6", "image:1=rel=1e-3"), c.views());
        CompareWith exact = run();
        assertEquals(0.0, exact.abs());
        assertEquals(0.0, exact.rel());
        picocli.CommandLine.ParseResult submit = Replay.commandLine().parseArgs("submit", "k.capture", "--every-group",
                "--abs", "1e-6", "--rel", "0.001");
        CompareWith sent = ((SubmitCommand) submit.subcommand().commandSpec().userObject()).comparison.compareWith();
        assertEquals(1e-6, sent.abs());
        assertEquals(0.001, sent.rel());
    }

    @Test
    void a_bad_value_is_refused_naming_the_option_and_the_value() {
        assertEquals("--abs '-1e-6': expected a finite number 0 or more (1e-6, 0.001)",
                assertThrows(IllegalArgumentException.class, () -> run("--abs", "-1e-6")).getMessage());
        assertEquals("--rel 'lots': expected a finite number 0 or more (1e-6, 0.001)",
                assertThrows(IllegalArgumentException.class, () -> run("--rel", "lots")).getMessage());
        assertEquals("--abs 'NaN': expected a finite number 0 or more (1e-6, 0.001)",
                assertThrows(IllegalArgumentException.class, () -> run("--abs", "NaN")).getMessage());
        assertEquals("--view 'C=f32,abs=': abs '': expected a finite number 0 or more (1e-6, 0.001)",
                assertThrows(IllegalArgumentException.class, () -> run("--view", "C=f32,abs=")).getMessage());
        // through the command: exit status 2, the message on stderr, nothing started (submit checks before it uploads)
        CliRun submit = CliRun.of("submit", dir.resolve("missing.capture").toString(), "--every-group", "--abs", "1e-6x");
        assertEquals(2, submit.exitCode(), submit.out() + submit.err());
        assertTrue(submit.err().contains("--abs '1e-6x': expected a finite number 0 or more (1e-6, 0.001)"), submit.err());
    }

    @Test
    void a_manifest_line_gives_its_capture_tolerances_of_its_own() throws Exception {
        Path manifest = dir.resolve("suite.txt");
        Files.writeString(manifest, """
                # the suite
                saxpy.capture
                sub dir/expk.capture --abs 2.4e-7 --view C=f32,rel=1e-5   # near zero after cancellation
                bloom.capture --ulp 4 --rel 1e-6 --view image:1=abs=1e-3 --view C=f32
                """);
        List<BatchRun.Listed> listed = BatchRun.manifest(manifest);
        assertEquals(3, listed.size());
        assertEquals(dir.resolve("saxpy.capture"), listed.get(0).capture());
        assertEquals(BatchRun.Own.NONE, listed.get(0).own());
        assertEquals(dir.resolve("sub dir/expk.capture"), listed.get(1).capture(), "a path may hold spaces");
        assertEquals(new BatchRun.Own(null, 2.4e-7, null, List.of("C=f32,rel=1e-5")), listed.get(1).own());
        assertEquals(new BatchRun.Own(4, null, 1e-6, List.of("image:1=abs=1e-3", "C=f32")), listed.get(2).own());
        // over the command's: what the line names replaces, its views follow the command's
        CompareWith command = new CompareWith(DeviceChoice.parse("none"), 2, false).withTolerances(1e-3, 0)
                .withViews(List.of("A=f32"), 10);
        CompareWith mine = listed.get(1).own().over(command);
        assertEquals(2, mine.ulp());
        assertEquals(2.4e-7, mine.abs());
        assertEquals(0.0, mine.rel());
        assertEquals(List.of("A=f32", "C=f32,rel=1e-5"), mine.views());
        assertEquals(command, BatchRun.Own.NONE.over(command));
        List<BatchRun.Item> items = BatchRun.items(listed);
        assertEquals("expk", items.get(1).name());
        assertEquals(listed.get(1).own(), items.get(1).own());

        Files.writeString(manifest, "a.capture\nb.capture --abs x\n");
        assertEquals(manifest + " line 2: --abs 'x': expected a finite number 0 or more (1e-6, 0.001)",
                assertThrows(IllegalArgumentException.class, () -> BatchRun.manifest(manifest)).getMessage());
        Files.writeString(manifest, "b.capture --budget 5\n");
        assertEquals(manifest + " line 1: '--budget' is not an option a capture's line takes (--ulp N, --abs X, --rel X, "
                + "--view SPEC)", assertThrows(IllegalArgumentException.class, () -> BatchRun.manifest(manifest))
                .getMessage());
        Files.writeString(manifest, "b.capture --view\n");
        assertEquals(manifest + " line 1: --view needs a value",
                assertThrows(IllegalArgumentException.class, () -> BatchRun.manifest(manifest)).getMessage());
        Files.writeString(manifest, "b.capture --view C=f32,abs=-1\n");
        assertEquals(manifest + " line 1: --view 'C=f32,abs=-1': abs '-1': expected a finite number 0 or more (1e-6, 0.001)",
                assertThrows(IllegalArgumentException.class, () -> BatchRun.manifest(manifest)).getMessage());
        CliRun refused = CliRun.of("run", "--manifest", manifest.toString(), "--every-group", "--out",
                dir.resolve("out").toString());
        assertEquals(2, refused.exitCode(), refused.out() + refused.err());
        assertTrue(refused.err().contains("--manifest " + manifest + " line 1: --view 'C=f32,abs=-1'"), refused.err());
    }
}
