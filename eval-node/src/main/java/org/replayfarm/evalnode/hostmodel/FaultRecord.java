package org.replayfarm.evalnode.hostmodel;

/** Where and why a group stopped: group id, wave, lane (-1 if none), PC, the instruction's text, the reason. */
public record FaultRecord(int groupX, int groupY, int groupZ, int wave, int lane, long pc, String instruction,
                          String message) {
    @Override
    public String toString() {
        return String.format("group (%d, %d, %d) wave %d%s pc 0x%x `%s`: %s", groupX, groupY, groupZ, wave,
                lane >= 0 ? " lane " + lane : "", pc, instruction, message);
    }
}
