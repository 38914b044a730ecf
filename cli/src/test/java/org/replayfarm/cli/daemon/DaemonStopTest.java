package org.replayfarm.cli.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.cli.CliRun;

/**
 * Issue 39: {@code replay daemon stop} stopped every daemon of the user's, whatever distribution started it. It now
 * stops this distribution's and says how many of others it left; {@code --all} stops every one. (A socket nobody
 * answers is a daemon that died: the command removes it, which is how the test sees which ones it went to.)
 */
@Tag("unit")
class DaemonStopTest {
    @TempDir
    Path tmp;

    @Test
    void stop_is_this_distributions_and_all_is_everyones() throws Exception {
        String before = System.getProperty("java.io.tmpdir");
        System.setProperty("java.io.tmpdir", tmp.toString());
        try {
            Path folder = DaemonWire.folder();
            Path other = Files.createFile(folder.resolve("0123abcd-build-settings.sock"));
            Path mine = Files.createFile(folder.resolve(DaemonWire.install() + "-build-settings.sock"));
            CliRun stop = CliRun.of("daemon", "stop");
            assertEquals(0, stop.exitCode(), stop.err());
            assertTrue(stop.out().contains("no run daemon of this distribution"), stop.out());
            assertTrue(stop.out().contains("1 daemon socket(s) of other replay distributions left as they are "
                    + "(replay daemon stop --all stops them too)"), stop.out());
            assertFalse(Files.exists(mine), "this distribution's dead socket was gone to (and removed)");
            assertTrue(Files.exists(other), "another distribution's socket is left alone");
            CliRun all = CliRun.of("daemon", "stop", "--all");
            assertEquals(0, all.exitCode(), all.err());
            assertFalse(Files.exists(other), "--all goes to every daemon's socket");
            assertFalse(all.out().contains("left as they are"), all.out());
        } finally {
            System.setProperty("java.io.tmpdir", before);
        }
    }
}
