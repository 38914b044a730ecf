package org.replayfarm.evalnode.hostmodel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.replayfarm.evalnode.hostmodel.CompiledTier.CvtOp;
import org.replayfarm.evalnode.hostmodel.CompiledTier.FloatOp;
import org.replayfarm.evalnode.hostmodel.CompiledTier.FrexpExpOp;
import org.replayfarm.evalnode.hostmodel.CompiledTier.IntOp;
import org.replayfarm.evalnode.hostmodel.CompiledTier.LaneOp;
import org.replayfarm.evalnode.hostmodel.CompiledTier.LdexpOp;
import org.replayfarm.evalnode.hostmodel.CompiledTier.Operand;
import org.replayfarm.evalnode.hostmodel.CompiledTier.SelectOp;
import org.replayfarm.evalnode.hostmodel.valu.ValuFloat;
import org.replayfarm.evalnode.hostmodel.valu.ValuFloatConvert;
import org.replayfarm.evalnode.hostmodel.valu.ValuIntegerUnit;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.fp.FpMode;
import org.replayfarm.model.isa.Instruction;

/**
 * Emits one run ({@link CompiledTier}) as a hidden class implementing {@link CompiledTier.Body}; each segment (the
 * part between two memory instructions, which are called as their fast-tier steps with the wave's PC set to theirs)
 * reads:
 *
 * <pre>{@code
 * void run(Wave w, long exec, FpMode m, boolean rne) {
 *     int[] v = w.vgprFile();
 *     K0 k0 = (K0) constants[0]; ...                  // lane kernels, fast-tier steps, instructions with literals
 *     step3.run(w); ...                                // its scalar instructions, in program order
 *     int u0 = w.source32(code, insn); ...             // uniform sources, read once
 *     long m0 = w.laneMask(code); ...                  // masks (v_cndmask), read once
 *     for (long lanes = exec; lanes != 0; lanes &= lanes - 1) {
 *         int l = Long.numberOfTrailingZeros(lanes);
 *         int r5 = v[5 * waveSize + l]; ...            // VGPRs the run reads before writing
 *         r7 = CompiledLanes.ADD(r5, u0);              // each instruction, in order
 *         r8 = (int) k1.apply(m, r7 & 0x7fffffff, ...);
 *         v[7 * waveSize + l] = r7; ...                // VGPRs the run writes
 *     }
 * }
 * }</pre>
 */
final class CompiledEmitter {
    private CompiledEmitter() {
    }

    /** A generated body and its class file's size (what the code cache counts). */
    record Generated(CompiledTier.Body body, int bytes) {
    }

    private static final AtomicLong SERIAL = new AtomicLong();
    private static final String LANES = Type.getInternalName(CompiledLanes.class);
    private static final String WAVE = Type.getInternalName(Wave.class);
    private static final String MODE = Type.getDescriptor(FpMode.class);

    static Generated emit(List<Object> ops, int waveSize) {
        String name = CompiledEmitter.class.getPackageName().replace('.', '/') + "/CompiledRun" + SERIAL.incrementAndGet();
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS) {
            @Override
            protected String getCommonSuperClass(String a, String b) {
                return "java/lang/Object";
            }
        };
        cw.visit(Opcodes.V17, Opcodes.ACC_PUBLIC | Opcodes.ACC_FINAL | Opcodes.ACC_SUPER, name, null,
                "java/lang/Object", new String[] {Type.getInternalName(CompiledTier.Body.class)});
        cw.visitField(Opcodes.ACC_PRIVATE | Opcodes.ACC_FINAL, "k", "[Ljava/lang/Object;", null, null).visitEnd();
        MethodVisitor init = cw.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "([Ljava/lang/Object;)V", null, null);
        init.visitCode();
        init.visitVarInsn(Opcodes.ALOAD, 0);
        init.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        init.visitVarInsn(Opcodes.ALOAD, 0);
        init.visitVarInsn(Opcodes.ALOAD, 1);
        init.visitFieldInsn(Opcodes.PUTFIELD, name, "k", "[Ljava/lang/Object;");
        init.visitInsn(Opcodes.RETURN);
        init.visitMaxs(0, 0);
        init.visitEnd();

        MethodVisitor mv = cw.visitMethod(Opcodes.ACC_PUBLIC, "run", "(L" + WAVE + ";J" + MODE + "Z)V", null, null);
        Emitter e = new Emitter(mv, name, waveSize);
        e.body(ops);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        cw.visitEnd();
        byte[] bytes = cw.toByteArray();
        try {
            MethodHandles.Lookup hidden = MethodHandles.lookup().defineHiddenClass(bytes, true);
            Object body = hidden.findConstructor(hidden.lookupClass(), MethodType.methodType(void.class, Object[].class))
                    .invoke(e.constants.toArray());
            return new Generated((CompiledTier.Body) body, bytes.length);
        } catch (Throwable t) {
            throw new IllegalStateException("compiled tier: generated run " + name + " does not load: " + t, t);
        }
    }

    /** The method body's emitter: locals for constants, uniforms, masks and the run's VGPRs. */
    private static final class Emitter {
        // arguments: 0 this, 1 wave, 2-3 exec, 4 mode, 5 rne
        private static final int W = 1;
        private static final int EXEC = 2;
        private static final int M = 4;
        private static final int RNE = 5;
        private static final int V = 6;
        private final MethodVisitor mv;
        private final String owner;
        private final int waveSize;
        final List<Object> constants = new ArrayList<>();
        private final Map<Object, Integer> constantLocal = new LinkedHashMap<>();
        private final Map<Operand, Integer> uniformLocal = new java.util.IdentityHashMap<>();
        /** Each v_cndmask's mask, read at its place in the prologue. */
        private final Map<SelectOp, Integer> maskLocal = new java.util.IdentityHashMap<>();
        private final Map<Integer, Integer> vgprLocal = new LinkedHashMap<>();
        private int next = 7;

        Emitter(MethodVisitor mv, String owner, int waveSize) {
            this.mv = mv;
            this.owner = owner;
            this.waveSize = waveSize;
        }

        void body(List<Object> items) {
            mv.visitCode();
            mv.visitVarInsn(Opcodes.ALOAD, W);
            mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, WAVE, "vgprFile", "()[I", false);
            mv.visitVarInsn(Opcodes.ASTORE, V);
            lanes = next;
            next += 2;
            lane = next++;
            // segments of lane operations and scalar instructions, split at memory instructions
            List<Object> segment = new ArrayList<>();
            for (Object item : items) {
                if (item instanceof CompiledTier.ScalarOp so && so.wave()) {
                    segment(segment);
                    segment.clear();
                    // the memory instruction as the fast tier runs it, the wave's PC its own (a fault names it)
                    int exec = constant(so.exec(), Type.getInternalName(FastTier.Exec.class));
                    mv.visitVarInsn(Opcodes.ALOAD, W);
                    mv.visitLdcInsn(so.pc());
                    mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, WAVE, "setPc", "(J)V", false);
                    mv.visitVarInsn(Opcodes.ALOAD, exec);
                    mv.visitVarInsn(Opcodes.ALOAD, W);
                    mv.visitMethodInsn(Opcodes.INVOKEINTERFACE, Type.getInternalName(FastTier.Exec.class), "run",
                            "(L" + WAVE + ";)V", true);
                } else {
                    segment.add(item);
                }
            }
            segment(segment);
            mv.visitInsn(Opcodes.RETURN);
        }

        private int lanes;
        private int lane;

        /**
         * One segment: its scalar instructions and uniform reads in program order, then one loop over the active
         * lanes running its lane operations with their VGPRs in locals.
         */
        private void segment(List<Object> items) {
            Set<Integer> written = new java.util.LinkedHashSet<>();
            List<Integer> loaded = new ArrayList<>();
            List<LaneOp> ops = new ArrayList<>();
            for (Object item : items) {
                if (item instanceof CompiledTier.ScalarOp so) {
                    // a scalar instruction, once, at its place among the uniform reads (it may write a mask register:
                    // each v_cndmask reads its mask at its own place, below)
                    int exec = constant(so.exec(), Type.getInternalName(FastTier.Exec.class));
                    mv.visitVarInsn(Opcodes.ALOAD, exec);
                    mv.visitVarInsn(Opcodes.ALOAD, W);
                    mv.visitMethodInsn(Opcodes.INVOKEINTERFACE, Type.getInternalName(FastTier.Exec.class), "run",
                            "(L" + WAVE + ";)V", true);
                    continue;
                }
                LaneOp op = (LaneOp) item;
                ops.add(op);
                Object k = kernelOf(op);
                if (k != null && !constantLocal.containsKey(k)) {
                    constantLocal.put(k, constant(k, Type.getInternalName(kernelInterface(k))));
                }
                for (Operand o : op.sources()) {
                    if (o.reg() >= 0) {
                        if (!written.contains(o.reg()) && !loaded.contains(o.reg())) {
                            loaded.add(o.reg());
                        }
                    } else {
                        int insn = constant(o.insn(), Type.getInternalName(Instruction.class));
                        mv.visitVarInsn(Opcodes.ALOAD, W);
                        push(o.code());
                        mv.visitVarInsn(Opcodes.ALOAD, insn);
                        mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, WAVE, "source32",
                                "(I" + Type.getDescriptor(Instruction.class) + ")I", false);
                        int local = next++;
                        mv.visitVarInsn(Opcodes.ISTORE, local);
                        uniformLocal.put(o, local);
                    }
                }
                if (op instanceof SelectOp s) {
                    mv.visitVarInsn(Opcodes.ALOAD, W);
                    push(s.maskCode());
                    mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, WAVE, "laneMask", "(I)J", false);
                    int local = next;
                    next += 2;
                    mv.visitVarInsn(Opcodes.LSTORE, local);
                    maskLocal.put(s, local);
                }
                written.add(op.dst());
            }
            if (ops.isEmpty()) {
                return;
            }
            for (int reg : loaded) {
                vgprLocal.computeIfAbsent(reg, r -> next++);
            }
            for (int reg : written) {
                vgprLocal.computeIfAbsent(reg, r -> next++);
            }
            mv.visitVarInsn(Opcodes.LLOAD, EXEC);
            mv.visitVarInsn(Opcodes.LSTORE, lanes);
            Label top = new Label();
            Label end = new Label();
            mv.visitLabel(top);
            mv.visitVarInsn(Opcodes.LLOAD, lanes);
            mv.visitInsn(Opcodes.LCONST_0);
            mv.visitInsn(Opcodes.LCMP);
            mv.visitJumpInsn(Opcodes.IFEQ, end);
            mv.visitVarInsn(Opcodes.LLOAD, lanes);
            mv.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/Long", "numberOfTrailingZeros", "(J)I", false);
            mv.visitVarInsn(Opcodes.ISTORE, lane);
            for (int reg : loaded) {
                mv.visitVarInsn(Opcodes.ALOAD, V);
                push(reg * waveSize);
                mv.visitVarInsn(Opcodes.ILOAD, lane);
                mv.visitInsn(Opcodes.IADD);
                mv.visitInsn(Opcodes.IALOAD);
                mv.visitVarInsn(Opcodes.ISTORE, vgprLocal.get(reg));
            }
            for (LaneOp op : ops) {
                instruction(op, lane);
                mv.visitVarInsn(Opcodes.ISTORE, vgprLocal.get(op.dst()));
            }
            for (int reg : written) {
                mv.visitVarInsn(Opcodes.ALOAD, V);
                push(reg * waveSize);
                mv.visitVarInsn(Opcodes.ILOAD, lane);
                mv.visitInsn(Opcodes.IADD);
                mv.visitVarInsn(Opcodes.ILOAD, vgprLocal.get(reg));
                mv.visitInsn(Opcodes.IASTORE);
            }
            mv.visitVarInsn(Opcodes.LLOAD, lanes);
            mv.visitVarInsn(Opcodes.LLOAD, lanes);
            mv.visitInsn(Opcodes.LCONST_1);
            mv.visitInsn(Opcodes.LSUB);
            mv.visitInsn(Opcodes.LAND);
            mv.visitVarInsn(Opcodes.LSTORE, lanes);
            mv.visitJumpInsn(Opcodes.GOTO, top);
            mv.visitLabel(end);
        }

        /** Loads constant {@code c} (cast to {@code type}) into a new local at the prologue; returns the local. */
        private int constant(Object c, String type) {
            constants.add(c);
            mv.visitVarInsn(Opcodes.ALOAD, 0);
            mv.visitFieldInsn(Opcodes.GETFIELD, owner, "k", "[Ljava/lang/Object;");
            push(constants.size() - 1);
            mv.visitInsn(Opcodes.AALOAD);
            mv.visitTypeInsn(Opcodes.CHECKCAST, type);
            int local = next++;
            mv.visitVarInsn(Opcodes.ASTORE, local);
            return local;
        }

        private static Object kernelOf(LaneOp op) {
            if (op instanceof IntOp i) {
                return i.inline() == null ? i.op() : null;
            }
            if (op instanceof FloatOp f) {
                if (f.kernel() instanceof LaneKernel.Float1 k) {
                    return k.op();
                }
                if (f.kernel() instanceof LaneKernel.Float2 k) {
                    return k.op();
                }
                if (f.kernel() instanceof LaneKernel.Float3 k) {
                    return k.op();
                }
                throw new IllegalArgumentException("float kernel " + f.kernel());
            }
            if (op instanceof CvtOp c) {
                return c.byteShift() >= 0 ? null : c.op();
            }
            return null;
        }

        private static Class<?> kernelInterface(Object k) {
            for (Class<?> c : CompiledTier.KERNEL_INTERFACES) {
                if (c.isInstance(k)) {
                    return c;
                }
            }
            throw new IllegalArgumentException("no lane-kernel interface for " + k);
        }

        private void push(int value) {
            if (value >= -1 && value <= 5) {
                mv.visitInsn(Opcodes.ICONST_0 + value);
            } else if (value >= Byte.MIN_VALUE && value <= Byte.MAX_VALUE) {
                mv.visitIntInsn(Opcodes.BIPUSH, value);
            } else if (value >= Short.MIN_VALUE && value <= Short.MAX_VALUE) {
                mv.visitIntInsn(Opcodes.SIPUSH, value);
            } else {
                mv.visitLdcInsn(value);
            }
        }

        /** Pushes a source's 32 bits for this lane, its ABS/NEG applied. */
        private void load(Operand o) {
            mv.visitVarInsn(Opcodes.ILOAD, o.reg() >= 0 ? vgprLocal.get(o.reg()) : uniformLocal.get(o));
            if (o.and() != -1) {
                push(o.and());
                mv.visitInsn(Opcodes.IAND);
            }
            if (o.xor() != 0) {
                push(o.xor());
                mv.visitInsn(Opcodes.IXOR);
            }
        }

        private void loadUnsigned(Operand o) {
            load(o);
            mv.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/Integer", "toUnsignedLong", "(I)J", false);
        }

        private void lanes(String method, String descriptor) {
            mv.visitMethodInsn(Opcodes.INVOKESTATIC, LANES, method, descriptor, false);
        }

        /** Leaves a long result's OMOD/CLAMP applied and narrowed to the 32-bit lane value. */
        private void modifiersAndNarrow(int omod, boolean clamp) {
            if (omod != 0 || clamp) {
                mv.visitVarInsn(Opcodes.ALOAD, M);
                push(omod);
                push(clamp ? 1 : 0);
                lanes("modifiers", "(J" + MODE + "IZ)J");
            }
            mv.visitInsn(Opcodes.L2I);
        }

        /** Pushes the instruction's 32-bit result for this lane. */
        private void instruction(LaneOp op, int lane) {
            List<Operand> s = op.sources();
            if (op instanceof IntOp i) {
                if (i.inline() == LaneLoop.MOV) {
                    load(s.get(0));
                } else if (i.inline() != null) {
                    s.forEach(this::load);
                    lanes(i.inline().name(), "(" + "I".repeat(i.arity()) + ")I");
                } else {
                    mv.visitVarInsn(Opcodes.ALOAD, constantLocal.get(i.op()));
                    s.forEach(this::load);
                    switch (i.arity()) {
                        case 1 -> mv.visitMethodInsn(Opcodes.INVOKEINTERFACE, "java/util/function/IntUnaryOperator",
                                "applyAsInt", "(I)I", true);
                        case 2 -> mv.visitMethodInsn(Opcodes.INVOKEINTERFACE,
                                Type.getInternalName(ValuIntegerUnit.Op2.class), "apply", "(II)I", true);
                        default -> mv.visitMethodInsn(Opcodes.INVOKEINTERFACE,
                                Type.getInternalName(ValuIntegerUnit.Op3.class), "apply", "(III)I", true);
                    }
                }
            } else if (op instanceof FloatOp f) {
                floatOp(f, s);
            } else if (op instanceof SelectOp c) {
                mv.visitVarInsn(Opcodes.LLOAD, maskLocal.get(c));
                mv.visitVarInsn(Opcodes.ILOAD, lane);
                load(s.get(0));
                load(s.get(1));
                lanes("select", "(JIII)I");
            } else if (op instanceof CvtOp c) {
                if (c.byteShift() >= 0) {
                    load(s.get(0));
                    push(c.byteShift());
                    mv.visitInsn(Opcodes.IUSHR);
                    push(0xFF);
                    mv.visitInsn(Opcodes.IAND);
                    mv.visitInsn(Opcodes.I2D);
                } else {
                    mv.visitVarInsn(Opcodes.ALOAD, constantLocal.get(c.op()));
                    load(s.get(0));
                    mv.visitInsn(Opcodes.I2L);
                    mv.visitMethodInsn(Opcodes.INVOKEINTERFACE, Type.getInternalName(ValuFloatConvert.IntSource.class),
                            "apply", "(J)J", true);
                    mv.visitInsn(Opcodes.L2D);
                }
                mv.visitVarInsn(Opcodes.ALOAD, M);
                lanes("toF32", "(D" + MODE + ")J");
                modifiersAndNarrow(c.omod(), c.clamp());
            } else if (op instanceof LdexpOp x) {
                load(s.get(0));
                load(s.get(1));
                mv.visitVarInsn(Opcodes.ALOAD, M);
                lanes("ldexp", "(II" + MODE + ")J");
                modifiersAndNarrow(x.omod(), x.clamp());
            } else if (op instanceof FrexpExpOp x) {
                load(s.get(0));
                mv.visitVarInsn(Opcodes.ALOAD, M);
                lanes("frexpExp", "(I" + MODE + ")I");
            } else {
                throw new IllegalArgumentException("no emitter for " + op);
            }
        }

        private void floatOp(FloatOp f, List<Operand> s) {
            String op1 = Type.getDescriptor(ValuFloat.Op1.class);
            String op2 = Type.getDescriptor(ValuFloat.Op2.class);
            String op3 = Type.getDescriptor(ValuFloat.Op3.class);
            int k = constantLocal.get(kernelOf(f));
            LaneLoop inline = f.inline();
            if (inline != null && inline.sources < 0) {
                // one source, normal values inline in any MODE, then OMOD and CLAMP
                load(s.get(0));
                mv.visitVarInsn(Opcodes.ALOAD, M);
                mv.visitVarInsn(Opcodes.ALOAD, k);
                lanes(inline.name(), "(I" + MODE + op1 + ")J");
                modifiersAndNarrow(f.omod(), f.clamp());
                return;
            }
            if (inline != null && f.omod() == 0 && !f.clamp()) {
                s.forEach(this::load);
                mv.visitVarInsn(Opcodes.ILOAD, RNE);
                mv.visitVarInsn(Opcodes.ALOAD, M);
                mv.visitVarInsn(Opcodes.ALOAD, k);
                lanes(inline.name(), "(" + "I".repeat(s.size()) + "Z" + MODE + (s.size() == 3 ? op3 : op2) + ")I");
                return;
            }
            mv.visitVarInsn(Opcodes.ALOAD, k);
            mv.visitVarInsn(Opcodes.ALOAD, M);
            s.forEach(this::loadUnsigned);
            Class<?> type = s.size() == 1 ? ValuFloat.Op1.class : s.size() == 2 ? ValuFloat.Op2.class : ValuFloat.Op3.class;
            mv.visitMethodInsn(Opcodes.INVOKEINTERFACE, Type.getInternalName(type), "apply",
                    "(" + MODE + "J".repeat(s.size()) + ")J", true);
            modifiersAndNarrow(f.omod(), f.clamp());
        }
    }
}
