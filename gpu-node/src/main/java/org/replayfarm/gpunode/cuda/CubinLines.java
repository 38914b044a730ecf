package org.replayfarm.gpunode.cuda;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The line table of a cubin (an ELF64 that nvcc built with {@code -lineinfo}): its {@code .debug_line}
 * program (DWARF 2 to 4) decoded into rows, each sequence placed in the code section its
 * {@code DW_LNE_set_address} is relocated against ({@code .rela.debug_line}), so that a PC sample
 * {@code (function, pcOffset)} maps to the file and line the {@code #line} directives named. Every length,
 * offset and index read from the file is checked; a bad one is an {@link IllegalArgumentException} naming it.
 */
public final class CubinLines {
    /** One row: {@code address} is an offset in section {@code section}; {@code end}: an end_sequence row. */
    public record Row(int section, long address, String file, int line, boolean end) {
    }

    /** Where a PC lies: its own row's file and line, and the guest.s line it is attributed to (0: none). */
    public record Place(String file, int line, int guestLine) {
    }

    private record Symbol(String name, int section, long value, long size, int type) {
    }

    private final List<Row> rows;
    private final Map<String, Symbol> functions = new HashMap<>();
    private final Map<Integer, String> sectionNames = new HashMap<>();

    private CubinLines(List<Row> rows) {
        this.rows = rows;
    }

    public List<Row> rows() {
        return rows;
    }

    /** Reads a cubin's line table. */
    public static CubinLines read(byte[] elf) {
        try {
            return parse(elf);
        } catch (IndexOutOfBoundsException | java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("cubin: truncated or malformed (" + e.getMessage() + ")", e);
        }
    }

    private static CubinLines parse(byte[] elf) {
        ByteBuffer b = ByteBuffer.wrap(elf).order(ByteOrder.LITTLE_ENDIAN);
        need(elf.length >= 64 && elf[0] == 0x7f && elf[1] == 'E' && elf[2] == 'L' && elf[3] == 'F', "ELF magic");
        need(elf[4] == 2 && elf[5] == 1, "ELF class/data (ELF64 little-endian expected)");
        long shoff = b.getLong(0x28);
        int shentsize = Short.toUnsignedInt(b.getShort(0x3a));
        int shnum = Short.toUnsignedInt(b.getShort(0x3c));
        int shstrndx = Short.toUnsignedInt(b.getShort(0x3e));
        need(shentsize == 64, "e_shentsize " + shentsize);
        need(shoff > 0 && shoff + (long) shnum * 64 <= elf.length, "section headers at " + shoff + " x " + shnum);
        need(shstrndx < shnum, "e_shstrndx " + shstrndx);
        long[] off = new long[shnum];
        long[] size = new long[shnum];
        int[] type = new int[shnum];
        int[] nameAt = new int[shnum];
        int[] link = new int[shnum];
        int[] info = new int[shnum];
        for (int i = 0; i < shnum; i++) {
            int h = (int) (shoff + 64L * i);
            nameAt[i] = b.getInt(h);
            type[i] = b.getInt(h + 4);
            off[i] = b.getLong(h + 0x18);
            size[i] = b.getLong(h + 0x20);
            link[i] = b.getInt(h + 0x28);
            info[i] = b.getInt(h + 0x2c);
            need(type[i] == 8 || (off[i] >= 0 && off[i] + size[i] <= elf.length && size[i] >= 0),
                    "section " + i + " [" + off[i] + ", +" + size[i] + ") outside the file");
        }
        String[] names = new String[shnum];
        for (int i = 0; i < shnum; i++) {
            names[i] = cstring(elf, off[shstrndx], size[shstrndx], nameAt[i], "section " + i + " name");
        }
        int lineSec = -1;
        int symtab = -1;
        int rela = -1;
        for (int i = 0; i < shnum; i++) {
            if (names[i].equals(".debug_line")) {
                lineSec = i;
            } else if (type[i] == 2) {
                symtab = i;
            }
        }
        for (int i = 0; i < shnum; i++) {
            if (type[i] == 4 && info[i] == lineSec && lineSec >= 0) {
                rela = i;
            }
        }
        need(lineSec >= 0, ".debug_line (build with -lineinfo)");
        need(symtab >= 0, "a symbol table");
        List<Symbol> symbols = new ArrayList<>();
        int strtab = link[symtab];
        need(strtab < shnum, ".symtab's string table index " + strtab);
        for (long at = off[symtab]; at + 24 <= off[symtab] + size[symtab]; at += 24) {
            int n = b.getInt((int) at);
            int st = elf[(int) at + 4] & 0xf;
            int shndx = Short.toUnsignedInt(b.getShort((int) at + 6));
            long value = b.getLong((int) at + 8);
            long sz = b.getLong((int) at + 16);
            symbols.add(new Symbol(cstring(elf, off[strtab], size[strtab], n, "symbol name"), shndx, value, sz, st));
        }
        // relocations of .debug_line: offset -> (section, value + addend) of the symbol
        Map<Long, long[]> relocated = new HashMap<>();
        if (rela >= 0) {
            for (long at = off[rela]; at + 24 <= off[rela] + size[rela]; at += 24) {
                long r = b.getLong((int) at);
                long inf = b.getLong((int) at + 8);
                long addend = b.getLong((int) at + 16);
                int sym = (int) (inf >>> 32);
                need(sym < symbols.size(), ".rela.debug_line symbol " + sym);
                Symbol s = symbols.get(sym);
                relocated.put(r, new long[] {s.section(), s.value() + addend});
            }
        }
        CubinLines out = new CubinLines(decode(b, (int) off[lineSec], (int) size[lineSec], relocated));
        for (Symbol s : symbols) {
            if (s.type() == 2 && !s.name().isEmpty()) {
                out.functions.put(s.name(), s);
            }
        }
        for (int i = 0; i < shnum; i++) {
            out.sectionNames.put(i, names[i]);
        }
        return out;
    }

    private static List<Row> decode(ByteBuffer whole, int start, int length, Map<Long, long[]> relocated) {
        List<Row> rows = new ArrayList<>();
        int at = start;
        int end = start + length;
        while (at < end) {
            int unitStart = at;
            long unitLength = Integer.toUnsignedLong(whole.getInt(at));
            need(unitLength < 0xfffffff0L, ".debug_line unit at " + (at - start) + ": 64-bit DWARF is not read");
            int unitEnd = at + 4 + (int) unitLength;
            need(unitEnd <= end, ".debug_line unit at " + (at - start) + ": length " + unitLength + " past the section");
            int version = Short.toUnsignedInt(whole.getShort(at + 4));
            need(version >= 2 && version <= 4, ".debug_line unit at " + (at - start) + ": version " + version);
            long headerLength = Integer.toUnsignedLong(whole.getInt(at + 6));
            int p = at + 10;
            int program = p + (int) headerLength;
            need(program <= unitEnd, ".debug_line unit at " + (at - start) + ": header_length " + headerLength);
            int minInst = whole.get(p++) & 0xff;
            if (version >= 4) {
                p++; // maximum_operations_per_instruction
            }
            boolean defaultStmt = whole.get(p++) != 0;
            int lineBase = whole.get(p++);
            int lineRange = whole.get(p++) & 0xff;
            int opcodeBase = whole.get(p++) & 0xff;
            need(lineRange > 0, ".debug_line line_range 0");
            int[] stdLengths = new int[Math.max(opcodeBase, 1)];
            for (int i = 1; i < opcodeBase; i++) {
                stdLengths[i] = whole.get(p++) & 0xff;
            }
            List<String> dirs = new ArrayList<>();
            dirs.add("");
            while (whole.get(p) != 0) {
                int s = p;
                while (whole.get(p) != 0) {
                    p++;
                }
                dirs.add(ascii(whole, s, p));
                p++;
            }
            p++;
            List<String> files = new ArrayList<>();
            files.add("");
            while (whole.get(p) != 0) {
                int s = p;
                while (whole.get(p) != 0) {
                    p++;
                }
                files.add(ascii(whole, s, p));
                p++;
                int[] q = {p};
                uleb(whole, q);
                uleb(whole, q);
                uleb(whole, q);
                p = q[0];
            }
            int[] q = {program};
            int section = -1;
            long address = 0;
            int file = 1;
            int line = 1;
            while (q[0] < unitEnd) {
                int op = whole.get(q[0]++) & 0xff;
                if (op >= opcodeBase) {
                    int adj = op - opcodeBase;
                    address += (long) (adj / lineRange) * minInst;
                    line += lineBase + adj % lineRange;
                    rows.add(new Row(section, address, name(files, file), line, false));
                } else if (op == 0) {
                    long len = uleb(whole, q);
                    int next = q[0] + (int) len;
                    need(len > 0 && next <= unitEnd, ".debug_line extended opcode length " + len);
                    int sub = whole.get(q[0]) & 0xff;
                    if (sub == 1) {
                        rows.add(new Row(section, address, name(files, file), line, true));
                        section = -1;
                        address = 0;
                        file = 1;
                        line = 1;
                    } else if (sub == 2) {
                        long raw = len - 1 == 8 ? whole.getLong(q[0] + 1) : Integer.toUnsignedLong(whole.getInt(q[0] + 1));
                        long[] r = relocated.get((long) (q[0] + 1 - start)); // relocations are section offsets
                        if (r != null) {
                            section = (int) r[0];
                            address = r[1] + raw;
                        } else {
                            address = raw;
                        }
                    }
                    q[0] = next;
                } else {
                    switch (op) {
                        case 1 -> rows.add(new Row(section, address, name(files, file), line, false));
                        case 2 -> address += uleb(whole, q) * minInst;
                        case 3 -> line += (int) sleb(whole, q);
                        case 4 -> file = (int) uleb(whole, q);
                        case 8 -> address += (long) ((255 - opcodeBase) / lineRange) * minInst;
                        case 9 -> {
                            address += Short.toUnsignedInt(whole.getShort(q[0]));
                            q[0] += 2;
                        }
                        default -> {
                            for (int i = 0; i < stdLengths[op]; i++) {
                                uleb(whole, q);
                            }
                        }
                    }
                }
            }
            at = unitEnd;
            need(at > unitStart, ".debug_line makes no progress");
        }
        return rows;
    }

    /**
     * Where {@code pcOffset} of function {@code function} lies (the function as CUPTI names it; a device
     * function nvcc placed inside its kernel's section is found by its symbol). The guest line is the row's
     * own line when the row is in guest.s, else (runtime header code inlined into a guest instruction) the
     * nearest guest.s row before it in the same sequence.
     */
    public Optional<Place> place(String function, long pcOffset) {
        Symbol s = functions.get(function);
        if (s == null) {
            return Optional.empty();
        }
        long target = s.value() + pcOffset;
        Row best = null;
        int bestIndex = -1;
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            if (r.section() == s.section() && !r.end() && r.address() <= target
                    && (best == null || r.address() >= best.address())) {
                // the row must belong to a sequence that has not ended before the target
                int j = i + 1;
                while (j < rows.size() && !rows.get(j).end()) {
                    j++;
                }
                if (j < rows.size() && rows.get(j).address() > target) {
                    best = r;
                    bestIndex = i;
                }
            }
        }
        if (best == null) {
            return Optional.empty();
        }
        int guest = 0;
        for (int i = bestIndex; i >= 0 && !(i < bestIndex && rows.get(i).end()); i--) {
            if (rows.get(i).file().endsWith("guest.s")) {
                guest = rows.get(i).line();
                break;
            }
        }
        return Optional.of(new Place(best.file(), best.line(), guest));
    }

    /** The section a function's code lies in, e.g. {@code .text.replay_kernel}; empty when unknown. */
    public Optional<String> sectionOf(String function) {
        Symbol s = functions.get(function);
        return s == null ? Optional.empty() : Optional.ofNullable(sectionNames.get(s.section()));
    }

    private static String name(List<String> files, int i) {
        return i > 0 && i < files.size() ? files.get(i) : "?";
    }

    private static long uleb(ByteBuffer b, int[] p) {
        long v = 0;
        int shift = 0;
        int x;
        do {
            x = b.get(p[0]++) & 0xff;
            if (shift < 64) {
                v |= (long) (x & 0x7f) << shift;
            }
            shift += 7;
        } while ((x & 0x80) != 0);
        return v;
    }

    private static long sleb(ByteBuffer b, int[] p) {
        long v = 0;
        int shift = 0;
        int x;
        do {
            x = b.get(p[0]++) & 0xff;
            if (shift < 64) {
                v |= (long) (x & 0x7f) << shift;
            }
            shift += 7;
        } while ((x & 0x80) != 0);
        if (shift < 64 && (x & 0x40) != 0) {
            v |= -1L << shift;
        }
        return v;
    }

    private static String ascii(ByteBuffer b, int from, int to) {
        byte[] a = new byte[to - from];
        for (int i = 0; i < a.length; i++) {
            a[i] = b.get(from + i);
        }
        return new String(a, StandardCharsets.UTF_8);
    }

    private static String cstring(byte[] elf, long tableOff, long tableSize, int at, String what) {
        need(at >= 0 && at < tableSize, what + " at " + at + " outside its string table");
        int s = (int) (tableOff + at);
        int e = s;
        while (e < tableOff + tableSize && elf[e] != 0) {
            e++;
        }
        return new String(elf, s, e - s, StandardCharsets.UTF_8);
    }

    private static void need(boolean ok, String what) {
        if (!ok) {
            throw new IllegalArgumentException("cubin: bad or missing " + what);
        }
    }
}
