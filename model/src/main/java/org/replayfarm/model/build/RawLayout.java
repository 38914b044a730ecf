package org.replayfarm.model.build;

import java.util.Map;
import java.util.OptionalInt;

/**
 * What a program without a kernel descriptor (plain assembly) cannot say about itself: its wave size,
 * register and memory needs, and which SGPRs hold what at entry. {@code kernargSgpr} receives the 64-bit
 * kernarg segment address; the workgroup ids x, y, z go to three consecutive SGPRs from
 * {@code workgroupIdSgpr}. Work-item ids are in v0, v1, v2.
 */
public record RawLayout(int waveSize, int vgprCount, int sgprCount, int ldsBytes, int scratchBytesPerLane,
                        Map<Integer, Integer> userSgprs, OptionalInt kernargSgpr, OptionalInt workgroupIdSgpr) {
    public RawLayout {
        userSgprs = Map.copyOf(userSgprs);
    }
}
