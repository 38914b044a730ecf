package org.replayfarm.evalnode.hostmodel.semantics;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import org.replayfarm.evalnode.hostmodel.LaneKernel;
import org.replayfarm.evalnode.hostmodel.LaneLoop;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Opcode;
import org.replayfarm.model.isa.OpcodeTable;

/**
 * The handler and fidelity of every instruction, looked up by table row. Units register their handlers
 * by mnemonic (the join key with the opcode tables); a mnemonic the tables do not hold is a mistake and
 * fails loudly, as does registering one twice. A row with no handler is {@link Fidelity#UNSUPPORTED}.
 */
public final class SemanticsTable {
    /** The vector ALU encodings a lane kernel's rows lie in (before GFX1030: the build reads it). */
    private static final Encoding[] VALU = {Encoding.VOP1, Encoding.VOP2, Encoding.VOPC, Encoding.VOP3, Encoding.VOP3P};

    private static final SemanticsTable GFX1030 = build();

    private final Map<Encoding, Semantics[]> handlers;
    private final Map<Encoding, Fidelity[]> fidelity;
    private final Map<Encoding, LaneKernel[]> kernels;
    private final Map<Encoding, LaneLoop[]> loops;

    private SemanticsTable(Map<Encoding, Semantics[]> handlers, Map<Encoding, Fidelity[]> fidelity,
                           Map<Encoding, LaneKernel[]> kernels, Map<Encoding, LaneLoop[]> loops) {
        this.handlers = handlers;
        this.fidelity = fidelity;
        this.kernels = kernels;
        this.loops = loops;
    }

    /**
     * The pure per-lane function of a vector ALU row, when its unit registered one beside its handler (the
     * fast tier runs it with pre-resolved operands); null otherwise.
     */
    public LaneKernel laneKernel(Opcode op) {
        LaneKernel[] row = kernels.get(op.encoding());
        return row == null ? null : row[op.code()];
    }

    /** The fast tier's own lane loop for a row ({@link LaneLoop}), or null when it has none. */
    public LaneLoop laneLoop(Opcode op) {
        LaneLoop[] row = loops.get(op.encoding());
        return row == null ? null : row[op.code()];
    }

    public static SemanticsTable gfx1030() {
        return GFX1030;
    }

    /** The handler for a row, or null when the host model does not execute it. */
    public Semantics handler(Opcode op) {
        return handlers.get(op.encoding())[op.code()];
    }

    public Fidelity fidelity(Opcode op) {
        return fidelity.get(op.encoding())[op.code()];
    }

    /** Collects registrations from the units. */
    public static final class Builder {
        private final OpcodeTable table;
        private final Map<Encoding, Semantics[]> handlers = new EnumMap<>(Encoding.class);
        private final Map<Encoding, Fidelity[]> fidelity = new EnumMap<>(Encoding.class);
        private final Map<String, String> seen = new HashMap<>();
        private final Map<String, LaneKernel> kernels = new HashMap<>();
        private final Map<Encoding, LaneKernel[]> rowKernels = new EnumMap<>(Encoding.class);

        Builder(OpcodeTable table) {
            this.table = table;
            for (Encoding e : Encoding.values()) {
                handlers.put(e, new Semantics[e.maxOpcode() + 1]);
                Fidelity[] f = new Fidelity[e.maxOpcode() + 1];
                java.util.Arrays.fill(f, Fidelity.UNSUPPORTED);
                fidelity.put(e, f);
            }
        }

        /** Registers an exact handler. */
        public Builder exact(Encoding encoding, String mnemonic, Semantics semantics) {
            return add(encoding, mnemonic, Fidelity.EXACT, semantics);
        }

        /** Registers a handler whose results are within a documented bound of the hardware's. */
        public Builder approximate(Encoding encoding, String mnemonic, Semantics semantics) {
            return add(encoding, mnemonic, Fidelity.APPROXIMATE, semantics);
        }

        public Builder add(Encoding encoding, String mnemonic, Fidelity f, Semantics semantics) {
            Opcode op = table.byMnemonic(encoding, mnemonic);
            if (op == null) {
                throw new IllegalStateException("no " + encoding + " instruction " + mnemonic + " in the tables");
            }
            if (seen.put(encoding + " " + mnemonic, mnemonic) != null) {
                throw new IllegalStateException(encoding + " " + mnemonic + " registered twice");
            }
            handlers.get(encoding)[op.code()] = semantics;
            fidelity.get(encoding)[op.code()] = f;
            return this;
        }

        /**
         * Records the per-lane function behind a vector ALU mnemonic's handler (registered separately, with
         * the same function): the fast tier's pre-resolved lane loops call it. Registering one twice fails.
         */
        public Builder laneKernel(String mnemonic, LaneKernel kernel) {
            if (kernels.put(mnemonic, kernel) != null) {
                throw new IllegalStateException("lane kernel of " + mnemonic + " registered twice");
            }
            int rows = 0;
            for (Encoding e : VALU) {
                Opcode op = table.byMnemonic(e, mnemonic);
                if (op != null) {
                    rowKernels.computeIfAbsent(e, x -> new LaneKernel[x.maxOpcode() + 1])[op.code()] = kernel;
                    rows++;
                }
            }
            if (rows == 0) {
                throw new IllegalStateException("lane kernel of " + mnemonic + ": no vector ALU row of that name");
            }
            return this;
        }

        public OpcodeTable table() {
            return table;
        }

        SemanticsTable build() {
            Map<Encoding, LaneLoop[]> loops = new EnumMap<>(Encoding.class);
            for (LaneLoop loop : LaneLoop.values()) {
                LaneKernel k = kernels.get(loop.rowName());
                if (k == null || !loop.fits(k)) {
                    throw new IllegalStateException("lane loop " + loop + ": " + loop.rowName()
                            + (k == null ? " has no lane kernel" : " has a lane kernel of another shape (" + k + ")"));
                }
                for (Encoding e : VALU) {
                    Opcode op = table.byMnemonic(e, loop.rowName());
                    if (op != null) {
                        loops.computeIfAbsent(e, x -> new LaneLoop[x.maxOpcode() + 1])[op.code()] = loop;
                    }
                }
            }
            return new SemanticsTable(handlers, fidelity, rowKernels, loops);
        }
    }

    private static SemanticsTable build() {
        Builder b = new Builder(OpcodeTable.gfx1030());
        Units.registerAll(b);
        return b.build();
    }
}
