package org.replayfarm.model.vulkan;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Cross-checks the launch layout read from RADV's binary against what the compiler itself printed: ACO's
 * {@code p_startpgm} (every argument and its registers) or, for LLVM, the shader function's parameters
 * ({@code inreg} ones are SGPRs in order from the first user SGPR after the ring offsets). A layout the
 * two disagree on is refused: the farm would launch the code with the wrong values in its registers.
 */
public final class RadvLaunch {
    private RadvLaunch() {
    }

    /** An SGPR argument: first register and count. */
    record Arg(int first, int count) {
    }

    public static void check(RadvBinary radv, boolean llvm) throws VulkanException {
        List<Arg> expected = expected(radv);
        if (llvm) {
            checkLlvm(radv, expected);
        } else {
            checkAco(radv, expected);
        }
    }

    /** User-data slots and system SGPRs, in register order. */
    static List<Arg> expected(RadvBinary radv) {
        List<Arg> args = new ArrayList<>();
        for (int s = 0; s < 32; s++) {
            if (radv.set(s).used()) {
                args.add(new Arg(radv.set(s).sgpr(), radv.set(s).count()));
            }
        }
        for (int d = 0; d < 18; d++) {
            RadvBinary.Slot slot = radv.shaderData(d);
            if (!slot.used()) {
                continue;
            }
            if (d == RadvBinary.UD_INLINE_PUSH_CONSTANTS || d == RadvBinary.UD_CS_GRID_SIZE) {
                for (int k = 0; k < slot.count(); k++) {
                    args.add(new Arg(slot.sgpr() + k, 1)); // one argument per dword
                }
            } else {
                args.add(new Arg(slot.sgpr(), slot.count()));
            }
        }
        int sys = radv.userSgprCount();
        for (int dim = 0; dim < 3; dim++) {
            if (radv.workgroupId(dim)) {
                args.add(new Arg(sys++, 1));
            }
        }
        if (radv.tgSize()) {
            args.add(new Arg(sys, 1));
        }
        args.sort(java.util.Comparator.comparingInt(Arg::first));
        return args;
    }

    private static final Pattern ACO_ARG = Pattern.compile("([sv])(\\d+): (?:\\(\\w+\\))*%\\d+:([sv])\\[(\\d+)(?:-(\\d+))?\\]");

    private static void checkAco(RadvBinary radv, List<Arg> expected) throws VulkanException {
        String ir = radv.irs().get("ACO IR");
        if (ir == null) {
            throw new VulkanException("RADV printed no \"ACO IR\" for an ACO pipeline");
        }
        String start = ir.lines().filter(l -> l.contains("= p_startpgm")).findFirst()
                .orElseThrow(() -> new VulkanException("ACO's IR has no p_startpgm"));
        List<Arg> sgprs = new ArrayList<>();
        Matcher m = ACO_ARG.matcher(start.substring(0, start.indexOf("= p_startpgm")));
        while (m.find()) {
            if (m.group(3).equals("s")) {
                int first = Integer.parseInt(m.group(4));
                int last = m.group(5) != null ? Integer.parseInt(m.group(5)) : first;
                sgprs.add(new Arg(first, last - first + 1));
            }
        }
        // ACO always declares the scratch wave offset after the system SGPRs, enabled or not
        int end = expected.isEmpty() ? 0 : expected.get(expected.size() - 1).first() + expected.get(expected.size() - 1).count();
        List<Arg> printed = new ArrayList<>(sgprs);
        printed.removeIf(a -> a.first() == Math.max(end, radv.userSgprCount() + (radv.workgroupId(0) ? 1 : 0)
                + (radv.workgroupId(1) ? 1 : 0) + (radv.workgroupId(2) ? 1 : 0) + (radv.tgSize() ? 1 : 0)) && a.count() == 1);
        if (!printed.equals(expected)) {
            throw new VulkanException("the launch layout read from RADV's binary " + show(expected)
                    + " is not what ACO's p_startpgm declares " + show(sgprs) + ": refusing to build a capture on it");
        }
    }

    private static final Pattern LLVM_DEFINE = Pattern.compile("define amdgpu_cs void @\\w+\\((.*)\\)");

    private static void checkLlvm(RadvBinary radv, List<Arg> expected) throws VulkanException {
        String ir = radv.irs().get("LLVM IR");
        if (ir == null) {
            throw new VulkanException("RADV printed no \"LLVM IR\" for an LLVM pipeline");
        }
        Matcher m = LLVM_DEFINE.matcher(ir);
        if (!m.find()) {
            throw new VulkanException("RADV's LLVM IR has no amdgpu_cs function");
        }
        List<Integer> sizes = new ArrayList<>();
        for (String p : m.group(1).split(",(?![^<]*>)")) {
            if (!p.contains(" inreg ")) {
                continue;
            }
            Matcher v = Pattern.compile("<(\\d+) x i32>").matcher(p);
            sizes.add(v.find() ? Integer.parseInt(v.group(1)) : p.contains("i64") ? 2 : 1);
        }
        // LLVM's parameters leave out the ring offsets (s[0:1]) and may merge dwords into vectors (the grid size
        // as one <3 x i32>): the SGPRs they cover must be the rest, in total
        int want = 0;
        for (Arg a : expected) {
            if (!(a.first() == 0 && a.count() == 2 && radv.shaderData(RadvBinary.UD_RING_OFFSETS).used())) {
                want += a.count();
            }
        }
        int have = sizes.stream().mapToInt(Integer::intValue).sum();
        if (have != want) {
            throw new VulkanException("the launch layout read from RADV's binary " + show(expected)
                    + " does not match the SGPR parameters of the LLVM shader (" + sizes + "): refusing to build a capture on it");
        }
    }

    private static String show(List<Arg> args) {
        StringBuilder b = new StringBuilder("[");
        for (Arg a : args) {
            if (b.length() > 1) {
                b.append(", ");
            }
            b.append(a.count() == 1 ? "s" + a.first() : "s[" + a.first() + ":" + (a.first() + a.count() - 1) + "]");
        }
        return b.append(']').toString();
    }
}
