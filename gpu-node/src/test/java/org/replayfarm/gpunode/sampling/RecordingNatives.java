package org.replayfarm.gpunode.sampling;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The CUPTI shim's natives without a GPU: records every call with its context ("configure 0xa000") and checks
 * CUPTI's order at each one (shared/reference/cupti-pc-sampling.md §1): initActivity once, before any
 * configure; every other call on an enabled context; synchronize right before each start; no start while
 * started; a drain with PCs only after a stop; a failed call leaves the context disabled before anything
 * else. A break of the order is kept in {@link #violations}, never thrown, so a test sees every one.
 */
public final class RecordingNatives implements CuptiShim.Natives {
    public final List<String> calls = new ArrayList<>();
    public final List<String> violations = new ArrayList<>();
    private final List<String> external;
    private LongSupplier clock = () -> 0;
    private boolean activity;
    private long enabled;      // the enabled context, 0 when none
    private boolean started;
    private boolean synced;
    private boolean mustDisable;
    private int failConfigure;
    private int failStart;
    private int failStop;
    private int bufferFull;
    public long dropped;

    public RecordingNatives() {
        this(null);
    }

    /** Also appends each call to {@code external} (a test's log of driver and CUPTI calls together). */
    public RecordingNatives(List<String> external) {
        this.external = external;
    }

    public RecordingNatives clock(LongSupplier c) {
        clock = c;
        return this;
    }

    public RecordingNatives failConfigure(int n) {
        failConfigure = n;
        return this;
    }

    public RecordingNatives failStart(int n) {
        failStart = n;
        return this;
    }

    public RecordingNatives failStop(int n) {
        failStop = n;
        return this;
    }

    /** The next {@code n} drains with PCs find the hardware buffer full. */
    public RecordingNatives bufferFull(int n) {
        bufferFull = n;
        return this;
    }

    /** True when sampling is enabled on no context (everything was disabled). */
    public boolean disabled() {
        return enabled == 0;
    }

    private void call(String name, long context) {
        String c = name + (context == Long.MIN_VALUE ? "" : " 0x" + Long.toHexString(context));
        calls.add(c);
        if (external != null) {
            external.add(c);
        }
        if (mustDisable && !name.equals("disable")) {
            violations.add(c + ": after a failure, before disable");
        }
    }

    private void requireEnabled(String name, long context) {
        if (enabled != context) {
            violations.add(name + " 0x" + Long.toHexString(context) + ": the context is not enabled"
                    + (enabled == 0 ? "" : " (0x" + Long.toHexString(enabled) + " is)"));
        }
    }

    private int failed(String[] messageOut, String what, int code) {
        mustDisable = true;
        messageOut[0] = what + ": CUPTI error " + code + " (simulated)";
        return code;
    }

    @Override
    public int initActivity(String[] messageOut) {
        call("initActivity", Long.MIN_VALUE);
        if (activity) {
            violations.add("initActivity called twice (once per process)");
        }
        if (enabled != 0) {
            violations.add("initActivity after an Enable (CUPTI answers NOT_COMPATIBLE)");
        }
        activity = true;
        return 0;
    }

    @Override
    public int configure(long context, int collectionMode, Object[] namesOut, String[] messageOut) {
        call("configure", context);
        if (!activity) {
            violations.add("configure before initActivity");
        }
        if (enabled != 0) {
            violations.add("configure 0x" + Long.toHexString(context) + " while 0x" + Long.toHexString(enabled)
                    + " is still enabled (no disable)");
        }
        if (failConfigure > 0) {
            failConfigure--;
            messageOut[0] = "cuptiPCSamplingSetConfigurationAttribute: CUPTI error 1 (simulated)";
            return 1; // the shim disables itself on a failed configure: nothing is left enabled
        }
        enabled = context;
        namesOut[0] = new String[] {"smsp__pcsamp_warps_issue_stalled_wait", "smsp__pcsamp_warps_issue_stalled_selected"};
        return 0;
    }

    @Override
    public int synchronize(long context, String[] messageOut) {
        call("synchronize", context);
        synced = true;
        return 0;
    }

    @Override
    public int start(long context, String[] messageOut) {
        call("start", context);
        requireEnabled("start", context);
        if (!synced) {
            violations.add("start 0x" + Long.toHexString(context) + " without cuCtxSynchronize right before it");
        }
        synced = false;
        if (started) {
            violations.add("start while started");
        }
        if (failStart > 0) {
            failStart--;
            return failed(messageOut, "cuptiPCSamplingStart", 1);
        }
        started = true;
        return 0;
    }

    @Override
    public int stop(long context, String[] messageOut) {
        call("stop", context);
        requireEnabled("stop", context);
        synced = false;
        if (!started) {
            violations.add("stop while not started");
        }
        started = false;
        if (failStop > 0) {
            failStop--;
            return failed(messageOut, "cuptiPCSamplingStop", 1);
        }
        return 0;
    }

    @Override
    public int drain(long context, boolean pcs, Object sink, String[] messageOut) {
        call(pcs ? "drain" : "drain-activity", context);
        synced = false;
        if (pcs) {
            requireEnabled("drain", context);
            if (started) {
                violations.add("drain with PCs while started (only after a stop)");
            }
            if (bufferFull > 0) {
                bufferFull--;
                messageOut[0] = "cuptiPCSamplingGetData (hardware buffer full): CUPTI error 8 (simulated)";
                mustDisable = true;
                return CuptiShim.Natives.BUFFER_FULL;
            }
        }
        return 0;
    }

    @Override
    public int disable(long context, String[] messageOut) {
        call("disable", context);
        requireEnabled("disable", context);
        if (started) {
            violations.add("disable while started (no stop)");
        }
        mustDisable = false;
        enabled = 0;
        started = false;
        return 0;
    }

    @Override
    public long timestamp() {
        return clock.getAsLong();
    }

    @Override
    public long kernelsDropped() {
        return dropped;
    }
}
