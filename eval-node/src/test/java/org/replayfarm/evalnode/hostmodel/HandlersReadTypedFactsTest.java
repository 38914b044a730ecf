package org.replayfarm.evalnode.hostmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * No handler of the host model decides what an instruction does by reading its mnemonic: a source scan of
 * {@code hostmodel} finds every statement that calls {@code mnemonic()} and refuses those that are neither a
 * message (a throw, a fault, a format) nor a registration (the semantics table joins handlers to rows by
 * mnemonic). The memory and image units must have none; the few left elsewhere are listed with their reason,
 * so a new one fails the test.
 */
@Tag("unit")
class HandlersReadTypedFactsTest {
    /**
     * Files allowed dispatch uses (how many): none decides by name any more (the fast tier and the VOPC unit
     * read {@code Opcode.valu()}'s compare, byte and shift facts, and lane kernels and loops are joined to rows
     * when they are registered); HostModel alone names the mnemonic as the text of an instruction the
     * disassembler cannot print (a message the scan cannot tell from a dispatch: {@code return insn.mnemonic()}).
     */
    private static final Map<String, Integer> ALLOWED = Map.of("HostModel.java", 1);

    private static Path hostmodel() {
        String root = System.getProperty("replayfarm.root");
        Path base = root != null ? Path.of(root, "eval-node") : Path.of("").toAbsolutePath();
        return base.resolve("src/main/java/org/replayfarm/evalnode/hostmodel");
    }

    /** Statements (split at ; { }) of a source without comments that call mnemonic() for anything but a message or registration. */
    static List<String> dispatchUses(String source) {
        // string and char literals first (a brace or // inside one is not code), then comments
        String code = source.replaceAll("\"(?:\\\\.|[^\"\\\\\\n])*\"", "\"\"").replaceAll("'(?:\\\\.|[^'\\\\])'", "' '")
                .replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("//[^\\n]*", " ");
        List<String> out = new ArrayList<>();
        for (String statement : code.split("[;{}]")) {
            if (!statement.contains("mnemonic()")) {
                continue;
            }
            String s = statement.replaceAll("\\s+", " ").trim();
            boolean message = s.startsWith("throw ") || s.contains("GuestFault(") || s.contains("Exception(")
                    || s.contains("String.format(");
            boolean registration = s.matches("^(b\\.(exact|approximate|add)|Valu\\.register)\\(.*")
                    && !s.matches(".*mnemonic\\(\\)\\s*\\..*");
            if (!message && !registration) {
                out.add(s);
            }
        }
        return out;
    }

    @Test
    void the_scan_flags_mnemonic_parsing_and_passes_messages_and_registrations() {
        assertEquals(1, dispatchUses("MemoryOps.Width width = MemoryOps.width(suffix(insn.mnemonic(), \"ds_read_\"));").size());
        assertEquals(1, dispatchUses("int bytes = insn.mnemonic().endsWith(\"_x2\") ? 8 : 4;").size());
        assertEquals(1, dispatchUses("b.exact(e, m, m.contains(\"_load_\") ? A::load : A::store); String m = op.mnemonic();").size());
        assertEquals(1, dispatchUses("b.exact(e, op.mnemonic().replace(\"x\", \"y\"), s);").size());
        assertEquals(0, dispatchUses("throw new GuestFault(insn.mnemonic()\n  + \" with the LDS bit\");").size());
        assertEquals(0, dispatchUses("b.exact(Encoding.DS, op.mnemonic(), s); // insn.mnemonic().length()").size());
        assertEquals(0, dispatchUses("Valu.register(b, op.mnemonic(), Fidelity.EXACT, (w, insn) -> f(w));").size());
        assertEquals(1, dispatchUses("Valu.register(b, op.mnemonic().substring(2), Fidelity.EXACT, s);").size());
    }

    @Test
    void no_handler_in_the_host_model_reads_the_mnemonic_to_decide_what_it_does() throws IOException {
        Path dir = hostmodel();
        Map<String, List<String>> found = new TreeMap<>();
        int files = 0;
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) all.filter(f -> f.toString().endsWith(".java"))::iterator) {
                files++;
                List<String> uses = dispatchUses(Files.readString(p));
                if (!uses.isEmpty()) {
                    found.put(dir.relativize(p).toString().replace('\\', '/'), uses);
                }
            }
        }
        assertTrue(files > 40, "scanned " + files + " files under " + dir);
        List<String> refused = new ArrayList<>();
        for (Map.Entry<String, List<String>> e : found.entrySet()) {
            String file = e.getKey();
            int allowed = ALLOWED.getOrDefault(file, 0);
            if (file.startsWith("memory/") || file.startsWith("image/") || e.getValue().size() > allowed) {
                e.getValue().forEach(s -> refused.add(file + ": " + s));
            }
        }
        assertEquals(List.of(), refused, "handlers must read the opcode's typed facts (Opcode.memory(), flags), not its name");
        for (Map.Entry<String, Integer> e : ALLOWED.entrySet()) {
            assertTrue(found.containsKey(e.getKey()), "the allowance for " + e.getKey() + " is no longer needed: remove it");
        }
    }
}
