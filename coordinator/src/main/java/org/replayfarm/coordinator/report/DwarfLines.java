package org.replayfarm.coordinator.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.capture.Sha256;
import org.replayfarm.model.elf.ElfFile;
import org.replayfarm.proto.MemoryRange;
import org.replayfarm.proto.SourceFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Source lines of a capture's code from the DWARF line table of the code object it was built from (compiled
 * with {@code -g}). The capture holds only the loaded sections, so the object is found through the capture's
 * provenance: a source file of the build (the {@code --elf} object) lying next to the capture with the same
 * SHA-256, or given by hand ({@link #of}). The table is read by {@code llvm-dwarfdump-19 --debug-line}; a
 * PC maps to the row with the highest address at or below it in its sequence, printed {@code file:line} and
 * the line's text when the source file can be read.
 */
public final class DwarfLines implements StoreTrace.SourceLines {
    private static final Logger LOG = LoggerFactory.getLogger(DwarfLines.class);
    private static final Pattern ROW = Pattern.compile("^0x([0-9a-f]+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+.*$");
    private static final Pattern FILE = Pattern.compile("^file_names\\[\\s*(\\d+)\\]:");
    private static final Pattern NAME = Pattern.compile("^\\s*name: \"(.*)\"");
    private static final Pattern DIR_INDEX = Pattern.compile("^\\s*dir_index: (\\d+)");
    private static final Pattern DIR = Pattern.compile("^include_directories\\[\\s*(\\d+)\\] = \"(.*)\"");

    private record Row(int file, int line, boolean end) {
    }

    /** Per address (relative to the code object's .text, or its load base when linked), the row starting there. */
    private final TreeMap<Long, Row> rows;
    private final Map<Integer, Path> files;
    private final long base;
    private final Map<Path, List<String>> sources = new HashMap<>();

    private DwarfLines(TreeMap<Long, Row> rows, Map<Integer, Path> files, long base) {
        this.rows = rows;
        this.files = files;
        this.base = base;
    }

    /** The line info of the capture's code object found through its provenance, or none. */
    public static StoreTrace.SourceLines forCapture(CaptureFile capture, Path where) {
        Path dir = where == null ? null : where.toAbsolutePath().getParent();
        if (dir == null) {
            return NONE;
        }
        for (SourceFile s : capture.metadata().getProvenance().getSourcesList()) {
            for (Path candidate : new java.util.LinkedHashSet<>(List.of(dir.resolve(s.getName()),
                    dir.resolve(Path.of(s.getName()).getFileName())))) {
                try {
                    if (Files.isRegularFile(candidate) && elf(candidate)
                            && Sha256.hex(Sha256.of(Files.readAllBytes(candidate))).equalsIgnoreCase(s.getSha256Hex())) {
                        StoreTrace.SourceLines lines = of(candidate, capture);
                        if (lines != NONE) {
                            return lines;
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    LOG.debug("no line info from {}: {}", candidate, e.toString());
                }
            }
        }
        return NONE;
    }

    private static boolean elf(Path file) throws IOException {
        try (var in = Files.newInputStream(file)) {
            byte[] magic = in.readNBytes(4);
            return magic.length == 4 && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
        }
    }

    /**
     * The line info of {@code object} (the ELF the capture was built from), or none when it has no
     * {@code .debug_line} or llvm-dwarfdump-19 cannot read it.
     */
    public static StoreTrace.SourceLines of(Path object, CaptureFile capture) {
        try {
            ElfFile elf = ElfFile.parse(Files.readAllBytes(object));
            if (elf.section(".debug_line").isEmpty()) {
                return NONE;
            }
            long base;
            if (elf.type() == ElfFile.ET_DYN) {
                base = capture.metadata().getRangesList().stream().filter(r -> r.getName().equals("code-object"))
                        .mapToLong(MemoryRange::getGuestAddress).findFirst().orElse(0);
            } else {
                base = capture.metadata().getProgram().getCodeAddress(); // .text at 0 in a relocatable object
            }
            Process p = new ProcessBuilder("llvm-dwarfdump-19", "--debug-line", object.toString())
                    .redirectErrorStream(true).start();
            List<String> out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return NONE;
            }
            return parse(out, base, object.toAbsolutePath().getParent());
        } catch (IOException | org.replayfarm.model.elf.CodeObjectException e) {
            LOG.warn("no line info from {}: {}", object, e.getMessage());
            return NONE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return NONE;
        }
    }

    static DwarfLines parse(List<String> dump, long base, Path objectDir) {
        TreeMap<Long, Row> rows = new TreeMap<>();
        Map<Integer, String> dirs = new HashMap<>();
        Map<Integer, Path> files = new HashMap<>();
        int file = -1;
        String name = null;
        for (String line : dump) {
            Matcher m;
            if ((m = DIR.matcher(line)).find()) {
                dirs.put(Integer.parseInt(m.group(1)), m.group(2));
            } else if ((m = FILE.matcher(line)).find()) {
                file = Integer.parseInt(m.group(1));
                name = null;
            } else if (file >= 0 && (m = NAME.matcher(line)).find()) {
                name = m.group(1);
            } else if (file >= 0 && name != null && (m = DIR_INDEX.matcher(line)).find()) {
                Path p = Path.of(name);
                if (!p.isAbsolute()) {
                    String d = dirs.get(Integer.parseInt(m.group(1)));
                    p = d == null ? objectDir.resolve(p) : Path.of(d).resolve(p);
                }
                files.putIfAbsent(file, p);
                file = -1;
            } else if ((m = ROW.matcher(line)).matches()) {
                rows.put(Long.parseUnsignedLong(m.group(1), 16), new Row(Integer.parseInt(m.group(4)),
                        Integer.parseInt(m.group(2)), line.contains("end_sequence")));
            }
        }
        return new DwarfLines(rows, files, base);
    }

    @Override
    public String at(long pc) {
        var e = rows.floorEntry(pc - base);
        if (e == null || e.getValue().end() || e.getValue().line() == 0) {
            return "";
        }
        Row r = e.getValue();
        Path f = files.get(r.file());
        String where = (f == null ? "file " + r.file() : f.getFileName().toString()) + ":" + r.line();
        List<String> text = f == null ? List.of() : sources.computeIfAbsent(f, DwarfLines::read);
        return r.line() <= text.size() ? where + ": " + text.get(r.line() - 1).trim() : where;
    }

    private static List<String> read(Path f) {
        try {
            return Files.readAllLines(f, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return new ArrayList<>();
        }
    }
}
