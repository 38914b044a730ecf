package org.replayfarm.coordinator.diff;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.replayfarm.evalnode.hostmodel.InitialMemory;
import org.replayfarm.model.elf.CodeObjectException;
import org.replayfarm.model.elf.KernelMetadata;

/**
 * Types the memory ranges of a capture: each global pointer argument's range from the kernel metadata
 * (the NT_AMDGPU_METADATA note of the loaded code object the capture holds, {@code .type_name} and
 * {@code .name} of the argument, its pointer read from the kernarg segment at its {@code .offset}),
 * then the user's {@code --view RANGE=TYPE[ROWSxCOLS]} over that. A range no argument points at, or
 * whose type is no scalar or vector ({@code struct S*}), stays untyped (bytes).
 */
public final class RangeViews {
    private static final Pattern VIEW = Pattern.compile("([^=]+)=([A-Za-z0-9 ]*)(?:\\[(\\d+)(?:x(\\d+))?\\])?");

    private RangeViews() {
    }

    /** The views of every range, by range index; {@code views} are {@code --view} spellings, applied in order. */
    public static List<RangeView> of(InitialMemory memory, String kernelName, List<String> views) {
        List<RangeView> out = new ArrayList<>();
        for (InitialMemory.Range r : memory.ranges()) {
            out.add(RangeView.bytes(r.index(), r.name()));
        }
        metadata(memory, kernelName).ifPresent(meta -> fromMetadata(memory, meta, out));
        for (String v : views) {
            apply(v, memory, out);
        }
        return List.copyOf(out);
    }

    /** The kernel's metadata read from the capture's {@code code-object} range, if it holds a metadata note. */
    public static Optional<KernelMetadata> metadata(InitialMemory memory, String kernelName) {
        for (InitialMemory.Range r : memory.ranges()) {
            if (!r.name().equals("code-object")) {
                continue;
            }
            byte[] image = new byte[(int) r.size()];
            r.initial().duplicate().get(image);
            for (byte[] note : notes(image)) {
                try {
                    List<KernelMetadata> all = KernelMetadata.fromNote(note);
                    Optional<KernelMetadata> k = KernelMetadata.find(all, kernelName);
                    if (k.isPresent()) {
                        return k;
                    }
                    if (all.size() == 1 && (kernelName == null || kernelName.isEmpty())) {
                        return Optional.of(all.get(0));
                    }
                } catch (CodeObjectException e) {
                    // bytes that only looked like a note header: keep scanning
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The descriptors of every {@code AMDGPU} note of type NT_AMDGPU_METADATA in a loaded image (notes are
     * 4-byte aligned: namesz 7, descsz, type 32, "AMDGPU\0" padded to 8, then the descriptor).
     */
    static List<byte[]> notes(byte[] image) {
        List<byte[]> out = new ArrayList<>();
        ByteBuffer b = ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN);
        byte[] owner = {'A', 'M', 'D', 'G', 'P', 'U', 0};
        for (int p = 0; p + 20 <= image.length; p += 4) {
            if (b.getInt(p) != 7 || b.getInt(p + 8) != KernelMetadata.NT_AMDGPU_METADATA) {
                continue;
            }
            if (!java.util.Arrays.equals(image, p + 12, p + 19, owner, 0, 7)) {
                continue;
            }
            long size = Integer.toUnsignedLong(b.getInt(p + 4));
            if (p + 20 + size <= image.length) {
                out.add(java.util.Arrays.copyOfRange(image, p + 20, (int) (p + 20 + size)));
            }
        }
        return out;
    }

    private static void fromMetadata(InitialMemory memory, KernelMetadata meta, List<RangeView> out) {
        InitialMemory.Range kernarg = memory.ranges().stream().filter(r -> r.name().equals("kernarg")).findFirst()
                .orElse(null);
        if (kernarg == null) {
            return;
        }
        ByteBuffer k = kernarg.initial().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int base = k.position();
        List<KernelMetadata.Arg> explicit = meta.explicitArgs();
        for (int i = 0; i < explicit.size(); i++) {
            KernelMetadata.Arg a = explicit.get(i);
            if (!a.valueKind().equals("global_buffer") || a.size() != 8 || a.offset() + 8 > kernarg.size()) {
                continue;
            }
            long pointer = k.getLong(base + a.offset());
            for (InitialMemory.Range r : memory.ranges()) {
                if (r.address() == pointer && r != kernarg) {
                    ElementType t = ElementType.fromPointerTypeName(a.typeName());
                    out.set(r.index(), new RangeView(r.index(), r.name(), i, a.name(), a.typeName(), t, 0, 0,
                            t == null ? "none" : "kernel metadata"));
                }
            }
        }
    }

    /** Applies one {@code --view RANGE=TYPE[ROWSxCOLS]} (TYPE or the shape may be left out, not both). */
    static void apply(String spec, InitialMemory memory, List<RangeView> views) {
        Matcher m = VIEW.matcher(spec.trim());
        if (!m.matches() || (m.group(2).isBlank() && m.group(3) == null)) {
            throw new IllegalArgumentException("--view '" + spec + "': expected RANGE=TYPE[ROWSxCOLS], RANGE=TYPE[N], "
                    + "RANGE=TYPE or RANGE=[ROWSxCOLS] (RANGE: its index, parameter or name; TYPE: f32, i32x2, ...)");
        }
        String key = m.group(1).trim();
        RangeView view = find(key, views).orElseThrow(() -> new IllegalArgumentException("--view '" + spec
                + "': no range '" + key + "'; ranges: " + views.stream().map(v -> v.range() + " ("
                + v.displayName() + ")").toList()));
        ElementType type;
        try {
            type = m.group(2).isBlank() ? view.type() : ElementType.parseView(m.group(2));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--view '" + spec + "': " + e.getMessage());
        }
        if (type == null) {
            throw new IllegalArgumentException("--view '" + spec + "': range " + view.range() + " (" + view.displayName()
                    + ") has no type to shape; give one (RANGE=f32[ROWSxCOLS])");
        }
        int rows = 0;
        int cols = 0;
        if (m.group(3) != null) {
            rows = m.group(4) == null ? 1 : Integer.parseInt(m.group(3));
            cols = m.group(4) == null ? Integer.parseInt(m.group(3)) : Integer.parseInt(m.group(4));
            long size = memory.ranges().get(view.range()).size();
            long need = (long) rows * cols * type.bytes();
            if (rows == 0 || cols == 0 || need > size) {
                throw new IllegalArgumentException(String.format("--view '%s': %dx%d %s elements take %d bytes, range %d "
                        + "(%s) holds %d", spec, rows, cols, type.spelling(), need, view.range(), view.displayName(), size));
            }
            if (m.group(4) == null) {
                rows = 0; // a count alone is no shape
                cols = 0;
            }
        }
        views.set(view.range(), view.withType(type, rows, cols, "--view"));
    }

    private static Optional<RangeView> find(String key, List<RangeView> views) {
        if (key.matches("\\d+")) {
            int n = Integer.parseInt(key);
            return n < views.size() ? Optional.of(views.get(n)) : Optional.empty();
        }
        for (RangeView v : views) {
            if (v.parameter().equals(key)) {
                return Optional.of(v);
            }
        }
        for (RangeView v : views) {
            if (v.rangeName().equals(key) || v.displayName().equals(key)) {
                return Optional.of(v);
            }
        }
        return Optional.empty();
    }
}
