package org.replayfarm.model.testing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kernel metadata as {@code llvm-readelf-19 --notes} prints it (YAML), read independently of the
 * project's MessagePack reader so the two can be compared.
 */
public final class ReadelfNotes {
    /** One argument; {@code pointeeAlign} and {@code typeName} are 0 and "" where readelf prints none. */
    public record Arg(int offset, int size, String valueKind, int pointeeAlign, String typeName) {
    }

    public record Kernel(String name, int kernargSegmentSize, int groupSegmentFixedSize, List<Arg> args) {
        public Arg hidden(String kind) {
            return args.stream().filter(a -> a.valueKind().equals(kind)).findFirst()
                    .orElseThrow(() -> new AssertionError("kernel " + name + " lists no " + kind));
        }
    }

    private static final Pattern KEY = Pattern.compile("^( *)(- )?(\\.[a-z_]+):\\s*(.*)$");

    private ReadelfNotes() {
    }

    public static Map<String, Kernel> read(Path object) {
        String yaml = Toolchain.run(object.getParent(), "llvm-readelf-19", "--notes", object.getFileName().toString());
        Map<String, Kernel> kernels = new LinkedHashMap<>();
        Map<String, String> kernel = null;
        List<Map<String, String>> args = new ArrayList<>();
        Map<String, String> arg = null;
        for (String line : (yaml + "\n  - .end: x\n").split("\n")) {
            Matcher m = KEY.matcher(line);
            if (!m.matches()) {
                continue;
            }
            int indent = m.group(1).length();
            boolean item = m.group(2) != null;
            if (indent == 2 && item) {
                if (kernel != null) {
                    kernels.put(kernel.get(".name"), kernel(kernel, args));
                }
                kernel = new LinkedHashMap<>();
                args = new ArrayList<>();
                arg = null;
            }
            if (indent == 6 && item) {
                arg = new LinkedHashMap<>();
                args.add(arg);
            }
            if (kernel == null) {
                continue;
            }
            String value = m.group(4).replace("'", "").trim();
            if (indent >= 6 && arg != null) {
                arg.put(m.group(3), value);
            } else if (indent <= 4) {
                kernel.put(m.group(3), value);
            }
        }
        return kernels;
    }

    private static Kernel kernel(Map<String, String> k, List<Map<String, String>> args) {
        List<Arg> list = new ArrayList<>();
        for (Map<String, String> a : args) {
            list.add(new Arg(Integer.parseInt(a.get(".offset")), Integer.parseInt(a.get(".size")), a.get(".value_kind"),
                    Integer.parseInt(a.getOrDefault(".pointee_align", "0")), a.getOrDefault(".type_name", "")));
        }
        return new Kernel(k.get(".name"), Integer.parseInt(k.get(".kernarg_segment_size")),
                Integer.parseInt(k.getOrDefault(".group_segment_fixed_size", "0")), List.copyOf(list));
    }
}
