package org.replayfarm.model.elf;

import java.util.Map;
import java.util.Optional;

/**
 * A code object placed at a guest base address with its relocations applied: one byte image holding
 * every allocated section, and the guest address of every defined symbol and section.
 */
public record LoadedCodeObject(long baseAddress, byte[] image, Map<String, Long> symbolAddresses,
                               Map<String, Long> sectionAddresses, ElfFile elf) {

    public Optional<Long> symbolAddress(String name) {
        return Optional.ofNullable(symbolAddresses.get(name));
    }

    public Optional<Long> sectionAddress(String name) {
        return Optional.ofNullable(sectionAddresses.get(name));
    }

    /** Bytes of the image at a guest address (a copy). */
    public byte[] bytesAt(long address, int length) {
        long offset = address - baseAddress;
        if (offset < 0 || offset + length > image.length) {
            throw new IndexOutOfBoundsException(String.format("[0x%x, +%d) is outside the loaded code object", address, length));
        }
        byte[] out = new byte[length];
        System.arraycopy(image, (int) offset, out, 0, length);
        return out;
    }
}
