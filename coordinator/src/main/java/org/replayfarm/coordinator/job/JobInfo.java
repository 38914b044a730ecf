package org.replayfarm.coordinator.job;

/**
 * What a job was asked to do, as the job list shows it: the capture (SHA-256 and the name it was given),
 * the groups selected ({@code every group}, or how many), the device compared with, and when the
 * coordinator accepted it (milliseconds since the epoch; 0 for a job journaled before that was kept).
 */
public record JobInfo(String jobId, String captureSha256, String captureName, String selection, String device,
                      long acceptedAtMillis) {
    /** How the list names a selection: {@code every group}, {@code 1 group}, {@code N groups}. */
    public static String selection(org.replayfarm.evalnode.eval.GroupSelection s) {
        return s.every() ? "every group" : s.groups().size() == 1 ? "1 group" : s.groups().size() + " groups";
    }
}
