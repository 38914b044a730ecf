package org.replayfarm.evalnode.trace;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * A lockstep trace of one group as a translation's CPU runner records it (built with {@code -DRT_TRACE}: the format
 * is described in rt_cpu_main.cpp): per wave its initial registers, then each executed instruction's PC, the PC
 * executed next, and the registers it changed.
 *
 * @param waveSize the translation's wave size
 * @param vgprs    the VGPRs each lane holds there
 * @param group    the group traced
 * @param initial  per wave, its initial record (null for a wave the trace does not start)
 * @param steps    per wave, its executed instructions in order
 * @param truncated whether the trace stopped at its step limit
 */
public record DeviceTrace(int waveSize, int vgprs, int[] group, List<Step> initial, List<List<Step>> steps,
                          boolean truncated) {
    /** {@link Step#next} when the wave ended after the instruction. */
    public static final long ENDED = -1L;
    /** {@link Step#next} when the wave stopped at a fault in the instruction. */
    public static final long STOPPED = -2L;
    /** Register numbers in a change: 0-127 SGPRs, {@code VGPR + r}, SCC and MODE. */
    public static final int VGPR = 256;
    public static final int SCC = 1024;
    public static final int MODE = 1025;

    /** One record: {@code changes} holds (register, lane, new value) triples. */
    public record Step(int wave, long pc, long next, int[] changes) {
        public int count() {
            return changes.length / 3;
        }
    }

    /** Reads a one-group trace file's bytes; a malformed one is an IllegalArgumentException saying where. */
    public static DeviceTrace read(byte[] bytes) {
        List<DeviceTrace> all = readAll(bytes);
        if (all.isEmpty()) {
            throw new IllegalArgumentException("the trace holds no group");
        }
        return all.get(0);
    }

    /**
     * Reads a trace file's bytes: one trace per group it holds (a runner told RT_TRACE_GROUP=all traces every group,
     * each starting with a group record); a malformed one is an IllegalArgumentException saying where.
     */
    public static List<DeviceTrace> readAll(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if (bytes.length < 32 || !new String(bytes, 0, 8, java.nio.charset.StandardCharsets.US_ASCII).equals("RFTR0001")) {
            throw new IllegalArgumentException("not a lockstep trace (no RFTR0001 header)");
        }
        b.position(8);
        int waveSize = b.getInt();
        int vgprs = b.getInt();
        int[] header = {b.getInt(), b.getInt(), b.getInt()};
        b.getInt();
        List<DeviceTrace> out = new ArrayList<>();
        int[] group = header[0] == -1 ? null : header;
        List<Step> initial = new ArrayList<>();
        List<List<Step>> steps = new ArrayList<>();
        while (b.remaining() > 0) {
            if (b.remaining() < 32) {
                throw new IllegalArgumentException("the trace ends inside a record at byte " + b.position());
            }
            int at = b.position();
            int kind = b.getInt();
            int wave = b.getInt();
            long pc = b.getLong();
            long next = b.getLong();
            int n = b.getInt();
            b.getInt();
            if (kind < 1 || kind > 4 || wave < 0 || wave > 1024 || n < 0 || (long) n * 12 > b.remaining()) {
                throw new IllegalArgumentException("a malformed trace record at byte " + at + " (kind " + kind + ", wave "
                        + wave + ", " + n + " changes)");
            }
            int[] changes = new int[3 * n];
            for (int i = 0; i < changes.length; i++) {
                changes[i] = b.getInt();
            }
            if (kind == 4) {
                if (group != null && !initial.isEmpty()) {
                    out.add(new DeviceTrace(waveSize, vgprs, group, initial, steps, false));
                }
                group = new int[] {(int) pc, (int) next, (int) (next >>> 32)};
                initial = new ArrayList<>();
                steps = new ArrayList<>();
                continue;
            }
            if (kind == 3) {
                if (group != null) {
                    out.add(new DeviceTrace(waveSize, vgprs, group, initial, steps, true));
                }
                return out;
            }
            if (group == null) {
                throw new IllegalArgumentException("a trace record before any group at byte " + at);
            }
            while (steps.size() <= wave) {
                steps.add(new ArrayList<>());
                initial.add(null);
            }
            if (kind == 1) {
                initial.set(wave, new Step(wave, pc, next, changes));
            } else {
                steps.get(wave).add(new Step(wave, pc, next, changes));
            }
        }
        if (group != null && !initial.isEmpty()) {
            out.add(new DeviceTrace(waveSize, vgprs, group, initial, steps, false));
        }
        return out;
    }
}
