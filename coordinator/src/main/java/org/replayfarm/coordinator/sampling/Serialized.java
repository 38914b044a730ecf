package org.replayfarm.coordinator.sampling;

/**
 * Whether a device execution's duration was perturbed by Tier A's kernel serialization (seed 000).
 * UNKNOWN is the zero value (declared first) so nothing reads "not perturbed" by accident; JSON always
 * carries it ({@link #json()}), never omits it.
 */
public enum Serialized {
    /** Tier A was asked for and the windows that would decide it are missing. */
    UNKNOWN("unknown"),
    /** It intersected a sampling window: its duration is perturbed. */
    TRUE("true"),
    /** Nothing serialized it: Tier A ran and no window overlapped it over a gap-free history, or Tier A was never asked for. */
    FALSE("false");

    private final String json;

    Serialized(String json) {
        this.json = json;
    }

    public String json() {
        return json;
    }
}
