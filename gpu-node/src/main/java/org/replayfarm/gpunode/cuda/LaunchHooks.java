package org.replayfarm.gpunode.cuda;

import org.replayfarm.gpunode.device.ExecutionRecord;

/**
 * What the launching thread does around each kernel launch: PC sampling's enter and exit (the
 * SamplingSession's, on this same thread), and how an execution's {@code serialized} reads at the node
 * ({@code false} when sampling is off: nothing was serialized; {@code unknown} when Tier A may have been
 * on, decided by the coordinator's window store).
 */
public interface LaunchHooks {
    /** The context is current on the launching thread and no module is loaded yet (sampling configures here). */
    default void contextReady() {
    }

    void enter();

    void exit();

    /** After the run's launches: report executions (the session drains kernel activity). */
    default void afterRun() {
    }

    ExecutionRecord.Serialized disclosure();

    /** No sampling: nothing serialized. */
    LaunchHooks NONE = new LaunchHooks() {
        @Override
        public void enter() {
        }

        @Override
        public void exit() {
        }

        @Override
        public ExecutionRecord.Serialized disclosure() {
            return ExecutionRecord.Serialized.FALSE;
        }
    };
}
