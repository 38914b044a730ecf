package org.replayfarm.model.isa;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * The instruction tables, one per encoding, read from the resource {@code <ENCODING>.tsv} beside this class (columns: opcode,
 * mnemonic, operands separated by spaces or "-", flags separated by commas or "-"). Loading checks the
 * tables: two rows claiming the same opcode of an encoding, or the same mnemonic, fail loudly; so do a flag
 * {@link OpcodeFlag} does not know (named with file, line and flag) and a memory row whose {@link MemoryAccess}
 * the naming rules cannot read or that disagrees with the row's operand widths or load/store/atomic flag.
 */
public final class OpcodeTable {
    /** Loaded on first use, so that building other tables does not depend on the resources. */
    private static final class Gfx1030 {
        static final OpcodeTable TABLE = load();
    }

    private final Map<Encoding, Opcode[]> byCode;
    private final Map<Encoding, List<Opcode>> rows;
    private final Map<String, Opcode> byMnemonic;

    private OpcodeTable(Map<Encoding, Opcode[]> byCode, Map<Encoding, List<Opcode>> rows, Map<String, Opcode> byMnemonic) {
        this.byCode = byCode;
        this.rows = rows;
        this.byMnemonic = byMnemonic;
    }

    public static OpcodeTable gfx1030() {
        return Gfx1030.TABLE;
    }

    /** The row for an opcode number, or null when the encoding defines no such instruction. */
    public Opcode lookup(Encoding encoding, int code) {
        Opcode[] table = byCode.get(encoding);
        return code >= 0 && code < table.length ? table[code] : null;
    }

    public List<Opcode> rows(Encoding encoding) {
        return rows.get(encoding);
    }

    /** Looks a row up by mnemonic within an encoding (e.g. "v_add_f32" in VOP2), or null. */
    public Opcode byMnemonic(Encoding encoding, String mnemonic) {
        return byMnemonic.get(encoding + " " + mnemonic);
    }

    private static OpcodeTable load() {
        Map<Encoding, List<Opcode>> rows = new EnumMap<>(Encoding.class);
        for (Encoding e : Encoding.values()) {
            String resource = e.name() + ".tsv";
            try (InputStream in = OpcodeTable.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("no instruction table " + resource + " beside " + OpcodeTable.class.getName());
                }
                rows.put(e, parse(e, resource, in));
            } catch (IOException ex) {
                throw new UncheckedIOException("reading " + resource, ex);
            }
        }
        return build(rows);
    }

    /** Builds a table from rows, refusing two rows that claim the same opcode or mnemonic of an encoding. */
    static OpcodeTable build(Map<Encoding, List<Opcode>> rows) {
        Map<Encoding, Opcode[]> byCode = new EnumMap<>(Encoding.class);
        Map<String, Opcode> byMnemonic = new HashMap<>();
        Map<Encoding, List<Opcode>> frozen = new EnumMap<>(Encoding.class);
        for (Encoding e : Encoding.values()) {
            Opcode[] table = new Opcode[e.maxOpcode() + 1];
            for (Opcode op : rows.getOrDefault(e, List.of())) {
                if (op.code() < 0 || op.code() > e.maxOpcode()) {
                    throw new IllegalStateException(e + " table: opcode " + op.code() + " of " + op.mnemonic()
                            + " does not fit the opcode field (0.." + e.maxOpcode() + ")");
                }
                if (table[op.code()] != null) {
                    throw new IllegalStateException(e + " table: opcode " + op.code() + " is claimed by both "
                            + table[op.code()].mnemonic() + " and " + op.mnemonic());
                }
                table[op.code()] = op;
                Opcode twin = byMnemonic.put(e + " " + op.mnemonic(), op);
                if (twin != null) {
                    throw new IllegalStateException(e + " table: " + op.mnemonic() + " appears at opcodes "
                            + twin.code() + " and " + op.code());
                }
            }
            byCode.put(e, table);
            frozen.put(e, Collections.unmodifiableList(new ArrayList<>(rows.getOrDefault(e, List.of()))));
        }
        return new OpcodeTable(byCode, frozen, byMnemonic);
    }

    static List<Opcode> parse(Encoding encoding, String name, InputStream in) throws IOException {
        List<Opcode> list = new ArrayList<>();
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        String line;
        int number = 0;
        while ((line = reader.readLine()) != null) {
            number++;
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] cols = line.split("\t");
            if (cols.length < 2) {
                throw new IllegalStateException(name + ":" + number + ": expected opcode and mnemonic");
            }
            int code;
            try {
                code = Integer.decode(cols[0].trim());
            } catch (NumberFormatException e) {
                throw new IllegalStateException(name + ":" + number + ": bad opcode '" + cols[0] + "'");
            }
            List<String> operands = cols.length > 2 && !cols[2].isBlank() && !cols[2].equals("-")
                    ? Arrays.asList(cols[2].trim().split(" +")) : List.of();
            LinkedHashSet<String> flags = new LinkedHashSet<>();
            if (cols.length > 3 && !cols[3].isBlank() && !cols[3].equals("-")) {
                for (String flag : cols[3].trim().split(",")) {
                    if (!flags.add(flag)) {
                        throw new IllegalStateException(name + ":" + number + ": flag '" + flag + "' given twice");
                    }
                }
            }
            String mnemonic = cols[1].trim();
            Opcode op;
            try {
                op = new Opcode(encoding, code, mnemonic, operands, flags);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(name + ":" + number + ": " + mnemonic + ": " + e.getMessage(), e);
            }
            String complaint = op.memory() == null ? null : MemoryFacts.disagreement(op);
            if (complaint != null) {
                throw new IllegalStateException(name + ":" + number + ": " + mnemonic + ": " + complaint);
            }
            list.add(op);
        }
        return list;
    }
}
