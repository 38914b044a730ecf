package org.replayfarm.evalnode.hostmodel;

/** Bytes a group stored: consecutive bytes of range {@code range} from {@code offset}, with their final values. */
public record StoreRun(int range, long offset, byte[] data) {
}
