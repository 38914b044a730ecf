package org.replayfarm.model.elf;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A little-endian ELF64 file as the AMDGPU backend writes it: header, sections, symbols, relocations
 * and program headers. Every offset and size read from the file is checked against the file's length.
 */
public final class ElfFile {
    public static final int EM_AMDGPU = 224;
    public static final int ET_REL = 1;
    public static final int ET_DYN = 3;
    public static final int SHT_SYMTAB = 2;
    public static final int SHT_RELA = 4;
    public static final int SHT_NOBITS = 8;
    public static final int SHT_NOTE = 7;
    public static final long SHF_ALLOC = 0x2;
    public static final long SHF_EXECINSTR = 0x4;
    public static final int PT_LOAD = 1;
    public static final int SHN_UNDEF = 0;
    public static final int SHN_ABS = 0xfff1;

    public record Section(int index, String name, int type, long flags, long address, long offset, long size,
                          int link, int info, long alignment, long entrySize) {
        public boolean isAlloc() {
            return (flags & SHF_ALLOC) != 0;
        }
    }

    public record Symbol(String name, long value, long size, int type, int binding, int sectionIndex) {
    }

    public record Relocation(long offset, int type, int symbolIndex, long addend) {
    }

    public record Segment(int type, long offset, long virtualAddress, long fileSize, long memorySize) {
    }

    private final ByteBuffer bytes;
    private final int type;
    private final int machine;
    private final int flags;
    private final int osAbi;
    private final int abiVersion;
    private final List<Section> sections;
    private final List<Segment> segments;

    private ElfFile(ByteBuffer bytes) throws CodeObjectException {
        this.bytes = bytes.order(ByteOrder.LITTLE_ENDIAN);
        if (bytes.capacity() < 64) {
            throw new CodeObjectException("ELF header: file is " + bytes.capacity() + " bytes, shorter than an ELF64 header");
        }
        if (bytes.getInt(0) != 0x464c457f) {
            throw new CodeObjectException("ELF header: bad magic, not an ELF file");
        }
        if (bytes.get(4) != 2) {
            throw new CodeObjectException("ELF header: EI_CLASS is " + bytes.get(4) + ", expected 2 (ELF64)");
        }
        if (bytes.get(5) != 1) {
            throw new CodeObjectException("ELF header: EI_DATA is " + bytes.get(5) + ", expected 1 (little-endian)");
        }
        osAbi = bytes.get(7) & 0xff;
        abiVersion = bytes.get(8) & 0xff;
        type = bytes.getShort(16) & 0xffff;
        machine = bytes.getShort(18) & 0xffff;
        flags = bytes.getInt(48);
        if (machine != EM_AMDGPU) {
            throw new CodeObjectException("ELF header: e_machine is " + machine + ", expected " + EM_AMDGPU + " (EM_AMDGPU)");
        }
        sections = readSections();
        segments = readSegments();
    }

    public static ElfFile parse(byte[] data) throws CodeObjectException {
        return new ElfFile(ByteBuffer.wrap(data));
    }

    private List<Section> readSections() throws CodeObjectException {
        long shoff = bytes.getLong(40);
        int shentsize = bytes.getShort(58) & 0xffff;
        int shnum = bytes.getShort(60) & 0xffff;
        int shstrndx = bytes.getShort(62) & 0xffff;
        if (shnum == 0) {
            return List.of();
        }
        if (shentsize < 64) {
            throw new CodeObjectException("ELF header: e_shentsize " + shentsize + " is smaller than 64");
        }
        checkRange("section header table", shoff, (long) shentsize * shnum);
        if (shstrndx >= shnum) {
            throw new CodeObjectException("ELF header: e_shstrndx " + shstrndx + " is not a section (" + shnum + " sections)");
        }
        int[] nameOffsets = new int[shnum];
        List<Section> unnamed = new ArrayList<>();
        for (int i = 0; i < shnum; i++) {
            int at = (int) (shoff + (long) i * shentsize);
            nameOffsets[i] = bytes.getInt(at);
            Section s = new Section(i, "", bytes.getInt(at + 4), bytes.getLong(at + 8), bytes.getLong(at + 16),
                    bytes.getLong(at + 24), bytes.getLong(at + 32), bytes.getInt(at + 40), bytes.getInt(at + 44),
                    bytes.getLong(at + 48), bytes.getLong(at + 56));
            if (s.type() != SHT_NOBITS && s.type() != 0) {
                checkRange("section " + i, s.offset(), s.size());
            }
            unnamed.add(s);
        }
        Section strtab = unnamed.get(shstrndx);
        List<Section> named = new ArrayList<>();
        for (Section s : unnamed) {
            String name = string(strtab, nameOffsets[s.index()], "name of section " + s.index());
            named.add(new Section(s.index(), name, s.type(), s.flags(), s.address(), s.offset(), s.size(), s.link(),
                    s.info(), s.alignment(), s.entrySize()));
        }
        return List.copyOf(named);
    }

    private List<Segment> readSegments() throws CodeObjectException {
        long phoff = bytes.getLong(32);
        int phentsize = bytes.getShort(54) & 0xffff;
        int phnum = bytes.getShort(56) & 0xffff;
        if (phnum == 0) {
            return List.of();
        }
        if (phentsize < 56) {
            throw new CodeObjectException("ELF header: e_phentsize " + phentsize + " is smaller than 56");
        }
        checkRange("program header table", phoff, (long) phentsize * phnum);
        List<Segment> list = new ArrayList<>();
        for (int i = 0; i < phnum; i++) {
            int at = (int) (phoff + (long) i * phentsize);
            Segment seg = new Segment(bytes.getInt(at), bytes.getLong(at + 8), bytes.getLong(at + 16),
                    bytes.getLong(at + 32), bytes.getLong(at + 40));
            if (seg.type() == PT_LOAD) {
                checkRange("program header " + i, seg.offset(), seg.fileSize());
                if (Long.compareUnsigned(seg.fileSize(), seg.memorySize()) > 0) {
                    throw new CodeObjectException("program header " + i + ": p_filesz exceeds p_memsz");
                }
            }
            list.add(seg);
        }
        return List.copyOf(list);
    }

    private void checkRange(String what, long offset, long size) throws CodeObjectException {
        if (offset < 0 || size < 0 || offset > bytes.capacity() || size > bytes.capacity() - offset) {
            throw new CodeObjectException(what + ": bytes [" + Long.toUnsignedString(offset) + ", +"
                    + Long.toUnsignedString(size) + ") lie outside the " + bytes.capacity() + "-byte file");
        }
    }

    private String string(Section table, int offset, String what) throws CodeObjectException {
        if (offset < 0 || offset >= table.size()) {
            throw new CodeObjectException(what + ": string offset " + offset + " outside " + table.name()
                    + " (" + table.size() + " bytes)");
        }
        int start = (int) (table.offset() + offset);
        int end = start;
        int limit = (int) (table.offset() + table.size());
        while (end < limit && bytes.get(end) != 0) {
            end++;
        }
        if (end == limit) {
            throw new CodeObjectException(what + ": string at offset " + offset + " is not terminated");
        }
        byte[] chars = new byte[end - start];
        bytes.get(start, chars);
        return new String(chars, StandardCharsets.UTF_8);
    }

    public int type() {
        return type;
    }

    public int flags() {
        return flags;
    }

    public int osAbi() {
        return osAbi;
    }

    public int abiVersion() {
        return abiVersion;
    }

    public List<Section> sections() {
        return sections;
    }

    public List<Segment> segments() {
        return segments;
    }

    public Optional<Section> section(String name) {
        return sections.stream().filter(s -> s.name().equals(name)).findFirst();
    }

    /** The section's bytes (a copy); NOBITS sections read as zeros. */
    public byte[] contents(Section s) {
        byte[] out = new byte[(int) s.size()];
        if (s.type() != SHT_NOBITS) {
            bytes.get((int) s.offset(), out);
        }
        return out;
    }

    /** Bytes at a file offset (a copy), bounds-checked. */
    public byte[] fileBytes(long offset, long size, String what) throws CodeObjectException {
        checkRange(what, offset, size);
        byte[] out = new byte[(int) size];
        bytes.get((int) offset, out);
        return out;
    }

    /** Symbols of the static symbol table (.symtab), index 0 included. */
    public List<Symbol> symbols() throws CodeObjectException {
        Section symtab = sections.stream().filter(s -> s.type() == SHT_SYMTAB).findFirst().orElse(null);
        if (symtab == null) {
            return List.of();
        }
        if (symtab.link() < 0 || symtab.link() >= sections.size()) {
            throw new CodeObjectException(".symtab: sh_link " + symtab.link() + " is not a section");
        }
        Section strtab = sections.get(symtab.link());
        int count = (int) (symtab.size() / 24);
        List<Symbol> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int at = (int) (symtab.offset() + i * 24L);
            int nameOffset = bytes.getInt(at);
            int info = bytes.get(at + 4) & 0xff;
            int shndx = bytes.getShort(at + 6) & 0xffff;
            list.add(new Symbol(string(strtab, nameOffset, "name of symbol " + i), bytes.getLong(at + 8),
                    bytes.getLong(at + 16), info & 0xf, info >> 4, shndx));
        }
        return list;
    }

    public Optional<Symbol> symbol(String name) throws CodeObjectException {
        return symbols().stream().filter(s -> s.name().equals(name)).findFirst();
    }

    /** The entries of one SHT_RELA section. */
    public List<Relocation> relocations(Section rela) throws CodeObjectException {
        if (rela.type() != SHT_RELA) {
            throw new IllegalArgumentException(rela.name() + " is not a RELA section");
        }
        int count = (int) (rela.size() / 24);
        List<Relocation> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int at = (int) (rela.offset() + i * 24L);
            long info = bytes.getLong(at + 8);
            list.add(new Relocation(bytes.getLong(at), (int) (info & 0xffffffffL), (int) (info >>> 32),
                    bytes.getLong(at + 16)));
        }
        return list;
    }

    /** Descriptors of the notes in every SHT_NOTE section with the given owner name and type. */
    public List<byte[]> notes(String owner, int noteType) throws CodeObjectException {
        List<byte[]> found = new ArrayList<>();
        for (Section s : sections) {
            if (s.type() != SHT_NOTE) {
                continue;
            }
            long at = s.offset();
            long end = s.offset() + s.size();
            while (at + 12 <= end) {
                int namesz = bytes.getInt((int) at);
                int descsz = bytes.getInt((int) at + 4);
                int ntype = bytes.getInt((int) at + 8);
                long nameAt = at + 12;
                long descAt = nameAt + align4(Integer.toUnsignedLong(namesz));
                long next = descAt + align4(Integer.toUnsignedLong(descsz));
                if (next > end || namesz < 0 || descsz < 0) {
                    throw new CodeObjectException(s.name() + ": note at offset " + (at - s.offset())
                            + " runs past the end of the section");
                }
                String name = new String(fileBytes(nameAt, Math.max(0, namesz - 1), "note name"),
                        StandardCharsets.UTF_8);
                if (name.equals(owner) && ntype == noteType) {
                    found.add(fileBytes(descAt, descsz, "note descriptor"));
                }
                at = next;
            }
        }
        return found;
    }

    private static long align4(long v) {
        return (v + 3) & ~3L;
    }
}
