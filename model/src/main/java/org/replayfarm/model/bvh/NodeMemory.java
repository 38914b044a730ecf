package org.replayfarm.model.bvh;

/** Where the node test reads a node's dwords: guest memory on the host model, a buffer in a test. */
@FunctionalInterface
public interface NodeMemory {
    /** The little-endian dword at a byte address. */
    int dword(long address);
}
