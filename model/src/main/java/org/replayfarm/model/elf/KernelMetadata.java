package org.replayfarm.model.elf;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.msgpack.core.MessagePackException;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.Value;

/**
 * A kernel's entry in the code object's NT_AMDGPU_METADATA note (a MessagePack map, key
 * {@code amdhsa.kernels}): its arguments with their offsets, sizes and kinds, and the kernarg segment.
 */
public record KernelMetadata(String name, String symbol, List<Arg> args, int kernargSegmentSize,
                             int kernargSegmentAlign, int wavefrontSize, int sgprCount, int vgprCount) {

    public static final int NT_AMDGPU_METADATA = 32;

    /**
     * One kernel argument, explicit or hidden ({@code valueKind} starting with {@code hidden_});
     * {@code pointeeAlign} is {@code .pointee_align} (present for {@code dynamic_shared_pointer}), else 0.
     */
    public record Arg(String name, String typeName, int offset, int size, String valueKind, String addressSpace,
                      int pointeeAlign) {
        public boolean hidden() {
            return valueKind.startsWith("hidden_");
        }
    }

    public List<Arg> explicitArgs() {
        return args.stream().filter(a -> !a.hidden()).toList();
    }

    public List<Arg> hiddenArgs() {
        return args.stream().filter(Arg::hidden).toList();
    }

    /** Reads every kernel from the code object's metadata notes; empty when there is no metadata note. */
    public static List<KernelMetadata> read(ElfFile elf) throws CodeObjectException {
        List<KernelMetadata> kernels = new ArrayList<>();
        for (byte[] note : elf.notes("AMDGPU", NT_AMDGPU_METADATA)) {
            kernels.addAll(fromNote(note));
        }
        return kernels;
    }

    /**
     * Reads every kernel from one NT_AMDGPU_METADATA note's descriptor (the MessagePack bytes), e.g. a note
     * found in a loaded code object image rather than in an ELF file.
     */
    public static List<KernelMetadata> fromNote(byte[] note) throws CodeObjectException {
        List<KernelMetadata> kernels = new ArrayList<>();
        Value root;
        try (MessageUnpacker unpacker = MessagePack.newDefaultUnpacker(note)) {
            root = unpacker.unpackValue();
        } catch (IOException | RuntimeException e) {
            throw new CodeObjectException("AMDGPU metadata note: not valid MessagePack: " + e.getMessage(), e);
        }
        if (!root.isMapValue()) {
            throw new CodeObjectException("AMDGPU metadata note: the root is not a map");
        }
        try {
            Value list = get(root, "amdhsa.kernels");
            if (list == null || !list.isArrayValue()) {
                throw new CodeObjectException("AMDGPU metadata note: no amdhsa.kernels list");
            }
            for (Value k : list.asArrayValue()) {
                kernels.add(kernel(k));
            }
        } catch (MessagePackException e) {
            // strings are decoded lazily: malformed UTF-8 surfaces here
            throw new CodeObjectException("AMDGPU metadata note: " + e.getMessage(), e);
        }
        return kernels;
    }

    public static Optional<KernelMetadata> find(List<KernelMetadata> all, String name) {
        return all.stream().filter(k -> k.name().equals(name)).findFirst();
    }

    private static KernelMetadata kernel(Value k) throws CodeObjectException {
        String name = string(k, ".name", "kernel");
        List<Arg> args = new ArrayList<>();
        Value argList = get(k, ".args");
        if (argList != null && argList.isArrayValue()) {
            int i = 0;
            for (Value a : argList.asArrayValue()) {
                String where = "kernel " + name + " argument " + i++;
                args.add(new Arg(optionalString(a, ".name"), optionalString(a, ".type_name"), integer(a, ".offset", where),
                        integer(a, ".size", where), string(a, ".value_kind", where), optionalString(a, ".address_space"),
                        optionalInteger(a, ".pointee_align", 0)));
            }
        }
        String where = "kernel " + name;
        return new KernelMetadata(name, string(k, ".symbol", where), List.copyOf(args),
                integer(k, ".kernarg_segment_size", where), optionalInteger(k, ".kernarg_segment_align", 4),
                optionalInteger(k, ".wavefront_size", 0), optionalInteger(k, ".sgpr_count", 0),
                optionalInteger(k, ".vgpr_count", 0));
    }

    private static Value get(Value map, String key) {
        if (!map.isMapValue()) {
            return null;
        }
        for (Map.Entry<Value, Value> e : map.asMapValue().entrySet()) {
            if (e.getKey().isStringValue() && e.getKey().asStringValue().asString().equals(key)) {
                return e.getValue();
            }
        }
        return null;
    }

    private static String string(Value map, String key, String where) throws CodeObjectException {
        Value v = get(map, key);
        if (v == null || !v.isStringValue()) {
            throw new CodeObjectException("AMDGPU metadata, " + where + ": " + key + " missing or not a string");
        }
        return v.asStringValue().asString();
    }

    private static String optionalString(Value map, String key) {
        Value v = get(map, key);
        return v != null && v.isStringValue() ? v.asStringValue().asString() : "";
    }

    private static int integer(Value map, String key, String where) throws CodeObjectException {
        Value v = get(map, key);
        if (v == null || !v.isIntegerValue() || !v.asIntegerValue().isInIntRange() || v.asIntegerValue().asInt() < 0) {
            throw new CodeObjectException("AMDGPU metadata, " + where + ": " + key + " missing or not a small non-negative integer");
        }
        return v.asIntegerValue().asInt();
    }

    private static int optionalInteger(Value map, String key, int fallback) throws CodeObjectException {
        return get(map, key) == null ? fallback : integer(map, key, key);
    }
}
