package org.replayfarm.evalnode.probe;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.replayfarm.model.build.Llvm;

/**
 * Probe code as a list of lines, encoded by llvm-mc-19 (one run for all lines, {@code -show-encoding}) except for the
 * PC-relative branches, which the assembler knows no addresses for: those are SOPP words made here from their labels
 * once every line's length is known (RDNA 2 ISA 4.4: SIMM16 is the word offset from the instruction after the branch).
 * Raw words (an instruction the probe jump displaced, executed here instead) are kept as they are.
 */
final class ProbeAssembler {
    /** SOPP opcodes of the branches the probe code uses. */
    static final int S_NOP = 0xBF800000;
    static final int S_BRANCH = 0xBF820000;
    static final int S_CBRANCH_SCC0 = 0xBF840000;
    static final int S_CBRANCH_SCC1 = 0xBF850000;

    private sealed interface Item permits Asm, Raw, Branch, Label {
    }

    private record Asm(String text) implements Item {
    }

    private record Raw(byte[] bytes) implements Item {
    }

    /** A branch to a label, or to an absolute address when {@code label} is null. */
    private record Branch(int opcode, String label, long target) implements Item {
    }

    private record Label(String name) implements Item {
    }

    private static final Pattern ENCODING = Pattern.compile("encoding: \\[([^\\]]*)\\]");

    private final List<Item> items = new ArrayList<>();
    private final Map<String, Long> labels = new HashMap<>();
    private final boolean wave64;

    ProbeAssembler(boolean wave64) {
        this.wave64 = wave64;
    }

    ProbeAssembler asm(String line) {
        items.add(new Asm(line));
        return this;
    }

    ProbeAssembler raw(byte[] bytes) {
        items.add(new Raw(bytes.clone()));
        return this;
    }

    ProbeAssembler label(String name) {
        items.add(new Label(name));
        return this;
    }

    ProbeAssembler branch(int opcode, String label) {
        items.add(new Branch(opcode, label, -1));
        return this;
    }

    ProbeAssembler branchTo(int opcode, long target) {
        items.add(new Branch(opcode, null, target));
        return this;
    }

    /** The code's bytes when its first byte lies at guest address {@code base}. */
    byte[] encode(long base) {
        List<String> lines = new ArrayList<>();
        for (Item i : items) {
            if (i instanceof Asm a) {
                lines.add(a.text());
            }
        }
        List<byte[]> encoded = encodeLines(lines, wave64);
        labels.clear();
        long at = base;
        int k = 0;
        for (Item i : items) {
            if (i instanceof Asm) {
                at += encoded.get(k++).length;
            } else if (i instanceof Raw r) {
                at += r.bytes().length;
            } else if (i instanceof Branch) {
                at += 4;
            } else if (i instanceof Label l) {
                labels.put(l.name(), at);
            }
        }
        ByteBuffer out = ByteBuffer.allocate((int) (at - base)).order(ByteOrder.LITTLE_ENDIAN);
        k = 0;
        for (Item i : items) {
            if (i instanceof Asm) {
                out.put(encoded.get(k++));
            } else if (i instanceof Raw r) {
                out.put(r.bytes());
            } else if (i instanceof Branch b) {
                long target = b.label() == null ? b.target() : labels.get(b.label());
                out.putInt(branchWord(b.opcode(), base + out.position(), target));
            }
        }
        return out.array();
    }

    /** Where label {@code name} lay in the last {@link #encode}. */
    long labelAddress(String name, long base) {
        Long at = labels.get(name);
        if (at == null) {
            throw new IllegalStateException("no label " + name + " in the encoded probe code");
        }
        return at;
    }

    /** A SOPP branch at {@code pc} to {@code target}. */
    static int branchWord(int opcode, long pc, long target) {
        long words = (target - (pc + 4)) / 4;
        if ((target - pc) % 4 != 0 || words < Short.MIN_VALUE || words > Short.MAX_VALUE) {
            throw new IllegalArgumentException(String.format("a branch at 0x%x cannot reach 0x%x", pc, target));
        }
        return opcode | (int) (words & 0xffff);
    }

    /** Encodes each line with llvm-mc-19 (gfx1030), in order. */
    static List<byte[]> encodeLines(List<String> lines, boolean wave64) {
        if (lines.isEmpty()) {
            return List.of();
        }
        try {
            Path source = Files.createTempFile("replay-probe", ".s");
            try {
                Files.writeString(source, String.join("\n", lines) + "\n");
                List<String> cmd = new ArrayList<>(List.of(Llvm.mc(), "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx1030",
                        "-show-encoding"));
                if (wave64) {
                    cmd.add("-mattr=+wavefrontsize64");
                }
                cmd.add(source.toString());
                String text = Llvm.run(cmd);
                List<byte[]> out = new ArrayList<>();
                Matcher m = ENCODING.matcher(text);
                while (m.find()) {
                    String[] bytes = m.group(1).split(",");
                    byte[] b = new byte[bytes.length];
                    for (int i = 0; i < bytes.length; i++) {
                        b[i] = (byte) Integer.parseInt(bytes[i].strip().substring(2), 16);
                    }
                    out.add(b);
                }
                if (out.size() != lines.size()) {
                    throw new IllegalStateException("llvm-mc encoded " + out.size() + " of " + lines.size()
                            + " probe lines:\n" + text);
                }
                return out;
            } finally {
                Files.deleteIfExists(source);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode the probe code: " + e.getMessage(), e);
        }
    }
}
