package org.replayfarm.coordinator.report;

import java.util.ArrayList;
import java.util.List;
import org.replayfarm.coordinator.report.DiffResult.ImageDiff;
import org.replayfarm.coordinator.report.DiffResult.RangeDiff;
import org.replayfarm.evalnode.eval.Evaluation;
import org.replayfarm.evalnode.hostmodel.InitialImages;
import org.replayfarm.evalnode.hostmodel.InitialMemory;
import org.replayfarm.evalnode.hostmodel.Kernel;

/**
 * {@code junit.xml} in the JUnit XML form CI systems read: one test case per image and per memory range.
 * A case fails when it differs, is skipped when the device run did not record it (or there is no device),
 * and passes otherwise.
 */
public final class JunitXml {
    private JunitXml() {
    }

    private record Case(String name, String failure, String skipped) {
    }

    static String of(Kernel kernel, Evaluation.Outcome o, RunReport.Identity id, RunReport.Device device, DiffResult diff) {
        List<Case> cases = new ArrayList<>();
        String noDevice = "no device run: " + device.reason();
        for (InitialImages.Entry e : o.images().initial().images()) {
            String name = "image " + e.index() + " (" + e.image().getName() + ")";
            ImageDiff d = diff == null ? null : diff.images().get(e.index());
            if (d == null || !d.recorded()) {
                cases.add(new Case(name, null, d == null ? noDevice : "the device run did not record this image"));
            } else {
                cases.add(new Case(name, d.equal() ? null : String.format("%d of %d compared texels differ, %d device-only texels, "
                        + "%d region(s); see diff/image-%d.png", d.differing(), d.compared(), d.deviceOnly(), d.regionCount(),
                        d.index()), null));
            }
        }
        for (InitialMemory.Range r : o.memory().initial().ranges()) {
            String name = "range " + r.index() + " (" + r.name() + ")";
            RangeDiff d = diff == null ? null : diff.ranges().get(r.index());
            if (d == null || !d.recorded()) {
                cases.add(new Case(name, null, d == null ? noDevice : "the device run did not record this range"));
            } else {
                String first = d.regions().isEmpty() ? "" : "; first run at byte " + d.regions().get(0).offset();
                cases.add(new Case(name, d.equal() ? null : String.format("%d of %d compared bytes differ, %d device-only bytes, "
                        + "%d run(s)%s", d.differing(), d.compared(), d.deviceOnly(), d.regionCount(), first), null));
            }
        }
        long failures = cases.stream().filter(c -> c.failure() != null).count();
        long skipped = cases.stream().filter(c -> c.skipped() != null).count();
        String suite = "replay " + org.replayfarm.model.elf.OpenClNames.demangle(kernel.capture().getProgram().getKernelName());
        StringBuilder x = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        x.append(String.format(java.util.Locale.ROOT, "<testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"%d\" time=\"%.3f\">%n",
                escape(suite), cases.size(), failures, skipped, o.wallTime().toNanos() / 1e9));
        x.append("  <properties>\n");
        property(x, "capture_sha256", id.captureSha256());
        property(x, "device", device.kind() + (device.label().isEmpty() ? "" : ": " + device.label()));
        property(x, "selection", id.selection());
        x.append("  </properties>\n");
        for (Case c : cases) {
            x.append(String.format("  <testcase classname=\"%s\" name=\"%s\"", escape(suite), escape(c.name())));
            if (c.failure() == null && c.skipped() == null) {
                x.append("/>\n");
                continue;
            }
            x.append(">\n");
            if (c.failure() != null) {
                x.append(String.format("    <failure message=\"%s\"/>%n", escape(c.failure())));
            } else {
                x.append(String.format("    <skipped message=\"%s\"/>%n", escape(c.skipped())));
            }
            x.append("  </testcase>\n");
        }
        x.append("</testsuite>\n");
        return x.toString();
    }

    private static void property(StringBuilder x, String name, String value) {
        x.append(String.format("    <property name=\"%s\" value=\"%s\"/>%n", escape(name), escape(value)));
    }

    /** XML attribute and text escaping as junit.xml needs it (control characters become spaces). */
    public static String escape(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                default -> b.append(c < 0x20 ? ' ' : c);
            }
        }
        return b.toString();
    }
}
