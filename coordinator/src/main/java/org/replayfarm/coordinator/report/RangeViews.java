package org.replayfarm.coordinator.report;

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
 *
 * <p>A view may also give its range tolerances of its own, after the type and shape or instead of them:
 * {@code --view 4=f32,abs=1e-6}, {@code --view C=f32[37x50],rel=1e-5,ulp=4}, {@code --view C=abs=1e-6} (the
 * type stays the metadata's). Each of {@code abs=X}, {@code rel=X}, {@code ulp=N} replaces the command's
 * {@code --abs}, {@code --rel} or {@code --ulp} for that range ({@link Tolerance.Override}); a range typed as
 * integers, or untyped, takes none (it is compared exactly). An image takes tolerances the same way,
 * addressed as {@code image:K} (its index) or {@code image:NAME}: {@code --view image:1=abs=1e-3} (its float
 * channels; its format types it).
 */
public final class RangeViews {
    private static final Pattern TYPE_SHAPE = Pattern.compile("([A-Za-z0-9 ]*)(?:\\[(\\d+)(?:x(\\d+))?\\])?");
    /** How a view addresses an image rather than a range. */
    public static final String IMAGE = "image:";
    private static final String EXPECTED = "expected RANGE=TYPE[ROWSxCOLS], RANGE=TYPE[N], RANGE=TYPE or "
            + "RANGE=[ROWSxCOLS] (RANGE: its index, parameter or name; TYPE: f32, i32x2, ...), each optionally followed "
            + "by ,abs=X ,rel=X ,ulp=N (or those alone: RANGE=abs=X), or image:K=abs=X (an image's tolerances)";

    /**
     * One {@code --view} as spelled: what it addresses ({@code key}; {@code image} when it is {@code image:K}), its
     * type and shape ({@code typeShape}, "" when not given) and its tolerances.
     */
    public record Spec(String spelling, String key, boolean image, String typeShape, Tolerance.Override tolerance) {
    }

    /**
     * Reads a view's spelling without a capture: {@code RANGE=TYPE[ROWSxCOLS][,abs=X][,rel=X][,ulp=N]}; what is
     * malformed (no {@code =}, an unknown or repeated tolerance, a bad number, a type for an image) is an
     * {@link IllegalArgumentException} that quotes the view.
     */
    public static Spec parse(String spec) {
        String s = spec.trim();
        int eq = s.indexOf('=');
        if (eq <= 0 || s.substring(0, eq).isBlank()) {
            throw new IllegalArgumentException("--view '" + spec + "': " + EXPECTED);
        }
        String key = s.substring(0, eq).trim();
        boolean image = key.startsWith(IMAGE);
        if (image) {
            key = key.substring(IMAGE.length()).trim();
            if (key.isEmpty()) {
                throw new IllegalArgumentException("--view '" + spec + "': image: takes an image's index or name "
                        + "(image:1=abs=1e-3)");
            }
        }
        String typeShape = null;
        Integer ulp = null;
        Double abs = null;
        Double rel = null;
        for (String part : s.substring(eq + 1).split(",", -1)) {
            String p = part.trim();
            int at = p.indexOf('=');
            if (at < 0) {
                if (typeShape != null || p.isEmpty()) {
                    throw new IllegalArgumentException("--view '" + spec + "': " + EXPECTED);
                }
                typeShape = p;
                continue;
            }
            String name = p.substring(0, at).trim().toLowerCase(java.util.Locale.ROOT);
            String value = p.substring(at + 1);
            String option = "--view '" + spec + "': " + name + "=";
            switch (name) {
                case "abs" -> {
                    if (abs != null) {
                        throw new IllegalArgumentException("--view '" + spec + "': abs= given twice");
                    }
                    abs = Tolerance.parseAmount(option.substring(0, option.length() - 1), value);
                }
                case "rel" -> {
                    if (rel != null) {
                        throw new IllegalArgumentException("--view '" + spec + "': rel= given twice");
                    }
                    rel = Tolerance.parseAmount(option.substring(0, option.length() - 1), value);
                }
                case "ulp" -> {
                    if (ulp != null) {
                        throw new IllegalArgumentException("--view '" + spec + "': ulp= given twice");
                    }
                    ulp = Tolerance.parseUlp(option.substring(0, option.length() - 1), value);
                }
                default -> throw new IllegalArgumentException("--view '" + spec + "': unknown tolerance '" + p
                        + "' (abs=X, rel=X or ulp=N)");
            }
        }
        Tolerance.Override tolerance = new Tolerance.Override(ulp, abs, rel);
        if (typeShape == null && tolerance.none()) {
            throw new IllegalArgumentException("--view '" + spec + "': " + EXPECTED);
        }
        if (image && typeShape != null) {
            throw new IllegalArgumentException("--view '" + spec + "': an image is typed by its format; give it only "
                    + "tolerances (image:" + key + "=abs=X,rel=X,ulp=N)");
        }
        if (typeShape != null) {
            Matcher m = TYPE_SHAPE.matcher(typeShape);
            if (!m.matches() || (m.group(1).isBlank() && m.group(2) == null)) {
                throw new IllegalArgumentException("--view '" + spec + "': " + EXPECTED);
            }
        }
        return new Spec(spec, key, image, typeShape == null ? "" : typeShape, tolerance);
    }

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

    /**
     * The tolerances the {@code image:K} views give each image, by image index ({@link Tolerance.Override#NONE}
     * for an image no view names); an image the capture does not have, or one with no float channel, is an
     * {@link IllegalArgumentException} naming the view.
     */
    public static List<Tolerance.Override> images(org.replayfarm.evalnode.hostmodel.InitialImages images,
                                                  List<String> views) {
        List<Tolerance.Override> out = new ArrayList<>();
        for (int i = 0; i < images.size(); i++) {
            out.add(Tolerance.Override.NONE);
        }
        for (String v : views) {
            Spec spec = parse(v);
            if (!spec.image()) {
                continue;
            }
            org.replayfarm.evalnode.hostmodel.InitialImages.Entry e = image(spec, images);
            var img = e.image();
            if (img.getNumericFormat() != org.replayfarm.proto.NumericFormat.NUM_FLOAT) {
                throw new IllegalArgumentException("--view '" + v + "': image " + e.index() + " (" + img.getName()
                        + ") is " + img.getNumericFormat().name().replaceFirst("^NUM_", "") + ", not a float format: "
                        + "its channels are compared exactly (or one step off under --approximate)");
            }
            out.set(e.index(), out.get(e.index()).then(spec.tolerance()));
        }
        return List.copyOf(out);
    }

    private static org.replayfarm.evalnode.hostmodel.InitialImages.Entry image(Spec spec,
            org.replayfarm.evalnode.hostmodel.InitialImages images) {
        String key = spec.key();
        if (key.matches("\\d+")) {
            int n = Integer.parseInt(key);
            if (n < images.size()) {
                return images.get(n);
            }
        } else {
            for (var e : images.images()) {
                if (e.image().getName().equals(key)) {
                    return e;
                }
            }
        }
        throw new IllegalArgumentException("--view '" + spec.spelling() + "': no image '" + key + "'; images: "
                + (images.size() == 0 ? "none" : images.images().stream().map(e -> e.index() + " (" + e.image().getName()
                + ")").toList()));
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
        // a HIP kernel's metadata names no argument types: its mangled symbol does, one per explicit argument
        List<String> signature = parameters(org.replayfarm.model.elf.OpenClNames.demangle(meta.name()));
        for (int i = 0; i < explicit.size(); i++) {
            KernelMetadata.Arg a = explicit.get(i);
            if (!a.valueKind().equals("global_buffer") || a.size() != 8 || a.offset() + 8 > kernarg.size()) {
                continue;
            }
            boolean fromSymbol = a.typeName().isBlank() && signature.size() == explicit.size();
            String typeName = fromSymbol ? signature.get(i) : a.typeName();
            long pointer = k.getLong(base + a.offset());
            for (InitialMemory.Range r : memory.ranges()) {
                if (r.address() == pointer && r != kernarg) {
                    ElementType t = ElementType.fromPointerTypeName(typeName);
                    out.set(r.index(), new RangeView(r.index(), r.name(), i, a.name(), typeName, t, 0, 0,
                            t == null ? "none" : fromSymbol ? "kernel signature" : "kernel metadata"));
                }
            }
        }
    }

    /** The parameter types of a demangled declaration, {@code f(float *, uint)}: [float *, uint]; [] when not one. */
    static List<String> parameters(String declaration) {
        int open = declaration.indexOf('(');
        if (open < 0 || !declaration.endsWith(")")) {
            return List.of();
        }
        String inside = declaration.substring(open + 1, declaration.length() - 1).trim();
        List<String> out = new ArrayList<>();
        int depth = 0;
        int from = 0;
        for (int i = 0; i < inside.length(); i++) {
            char c = inside.charAt(i);
            if (c == '(' || c == '<') {
                depth++;
            } else if (c == ')' || c == '>') {
                depth--;
            } else if (c == ',' && depth == 0) {
                out.add(inside.substring(from, i).trim());
                from = i + 1;
            }
        }
        if (!inside.isEmpty()) {
            out.add(inside.substring(from).trim());
        }
        return out;
    }

    /**
     * Applies one {@code --view RANGE=TYPE[ROWSxCOLS][,abs=X,rel=X,ulp=N]} (TYPE or the shape may be left out, not
     * both, unless tolerances are given); an {@code image:K} view is not a range's and is left to {@link #images}.
     */
    static void apply(String spelling, InitialMemory memory, List<RangeView> views) {
        Spec spec = parse(spelling);
        if (spec.image()) {
            return;
        }
        String key = spec.key();
        RangeView view = find(key, views).orElseThrow(() -> new IllegalArgumentException("--view '" + spelling
                + "': no range '" + key + "'; ranges: " + views.stream().map(v -> v.range() + " ("
                + v.displayName() + ")").toList()));
        if (!spec.typeShape().isEmpty()) {
            view = typed(spelling, spec.typeShape(), memory, view);
        }
        if (!spec.tolerance().none()) {
            if (!view.typed() || !view.type().floating()) {
                throw new IllegalArgumentException("--view '" + spelling + "': range " + view.range() + " ("
                        + view.displayName() + ") is " + (view.typed() ? view.type().spelling() : "untyped (bytes)")
                        + ", compared exactly whatever is asked: tolerances apply to float elements"
                        + (view.typed() ? "" : " (type it: " + key + "=f32," + spec.tolerance().spelling() + ")"));
            }
            view = view.withTolerance(view.tolerance().then(spec.tolerance()));
        }
        views.set(view.range(), view);
    }

    /** The view with the type and shape {@code typeShape} ({@code f32[37x50]}, {@code [16x32]}, {@code i32}). */
    private static RangeView typed(String spec, String typeShape, InitialMemory memory, RangeView view) {
        Matcher m = TYPE_SHAPE.matcher(typeShape);
        if (!m.matches()) {
            throw new IllegalArgumentException("--view '" + spec + "': " + EXPECTED);
        }
        ElementType type;
        try {
            type = m.group(1).isBlank() ? view.type() : ElementType.parseView(m.group(1));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--view '" + spec + "': " + e.getMessage());
        }
        if (type == null) {
            throw new IllegalArgumentException("--view '" + spec + "': range " + view.range() + " (" + view.displayName()
                    + ") has no type to shape; give one (RANGE=f32[ROWSxCOLS])");
        }
        int rows = 0;
        int cols = 0;
        if (m.group(2) != null) {
            rows = m.group(3) == null ? 1 : Integer.parseInt(m.group(2));
            cols = m.group(3) == null ? Integer.parseInt(m.group(2)) : Integer.parseInt(m.group(3));
            long size = memory.ranges().get(view.range()).size();
            long need = (long) rows * cols * type.bytes();
            if (rows == 0 || cols == 0 || need > size) {
                throw new IllegalArgumentException(String.format("--view '%s': %dx%d %s elements take %d bytes, range %d "
                        + "(%s) holds %d", spec, rows, cols, type.spelling(), need, view.range(), view.displayName(), size));
            }
            if (m.group(3) == null) {
                rows = 0; // a count alone is no shape
                cols = 0;
            }
        }
        RangeView typed = view.withType(type, rows, cols, "--view");
        // retyped as integers: an earlier view's tolerances no longer apply (integers are compared exactly)
        return type.floating() ? typed : typed.withTolerance(Tolerance.Override.NONE);
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
