package org.replayfarm.model.vulkan;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What a SPIR-V module says about its compute entry points' interface (SPIR-V 1.6 specification, §2.3
 * physical layout, §3 binary form): the entry points and their LocalSize, every resource variable with
 * its DescriptorSet and Binding decorations and what kind of descriptor it needs, and the push-constant
 * block's size. Only the interface is read; the code is left to the driver.
 */
public final class SpirvModule {
    /** The descriptor a resource variable needs, in Vulkan's terms. */
    public enum DescriptorKind {
        STORAGE_BUFFER("storage-buffer"), UNIFORM_BUFFER("uniform-buffer"), STORAGE_IMAGE("storage-image"),
        SAMPLED_IMAGE("sampled-image"), SAMPLER("sampler"), COMBINED_IMAGE_SAMPLER("combined-image-sampler"),
        UNIFORM_TEXEL_BUFFER("uniform-texel-buffer"), STORAGE_TEXEL_BUFFER("storage-texel-buffer"),
        ACCELERATION_STRUCTURE("acceleration-structure");

        private final String spelling;

        DescriptorKind(String spelling) {
            this.spelling = spelling;
        }

        public String spelling() {
            return spelling;
        }

        public boolean image() {
            return this == STORAGE_IMAGE || this == SAMPLED_IMAGE || this == COMBINED_IMAGE_SAMPLER;
        }
    }

    /** SPIR-V's image Dim: 1D 0, 2D 1, 3D 2, Cube 3, Rect 4, Buffer 5, SubpassData 6. */
    public record ImageShape(int dim, boolean arrayed, boolean multisampled, int sampled, int format) {
        public String describe() {
            String d = switch (dim) {
                case 0 -> "1D";
                case 1 -> "2D";
                case 2 -> "3D";
                case 3 -> "cube";
                case 5 -> "buffer";
                default -> "dim " + dim;
            };
            return d + (arrayed ? " array" : "") + (multisampled ? " MS" : "");
        }
    }

    /** A resource variable: set, binding, name, kind, array count (1 when not an array, 0 runtime-sized), block size in bytes. */
    public record Resource(int set, int binding, String name, DescriptorKind kind, int count, long blockBytes,
                           Optional<ImageShape> image) {
        public String describe() {
            return "set " + set + " binding " + binding + " (" + (name.isEmpty() ? "unnamed" : name) + ": "
                    + kind.spelling() + image.map(i -> " " + i.describe()).orElse("")
                    + (count == 0 ? "[] (runtime-sized)" : count != 1 ? "[" + count + "]" : "") + ")";
        }
    }

    public record EntryPoint(String name, int executionModel, int id, int[] localSize) {
    }

    private final List<EntryPoint> entryPoints;
    private final List<Resource> resources;
    private final long pushConstantBytes;

    private SpirvModule(List<EntryPoint> entryPoints, List<Resource> resources, long pushConstantBytes) {
        this.entryPoints = entryPoints;
        this.resources = resources;
        this.pushConstantBytes = pushConstantBytes;
    }

    public List<EntryPoint> entryPoints() {
        return entryPoints;
    }

    /** Resources sorted by set, then binding. */
    public List<Resource> resources() {
        return resources;
    }

    public long pushConstantBytes() {
        return pushConstantBytes;
    }

    /** The GLCompute entry point named so, or the only one when name is null. */
    public EntryPoint computeEntry(String name) throws VulkanException {
        List<EntryPoint> compute = entryPoints.stream().filter(e -> e.executionModel() == 5).toList();
        if (compute.isEmpty()) {
            throw new VulkanException("the SPIR-V module has no compute (GLCompute) entry point"
                    + (entryPoints.isEmpty() ? "" : "; its entry points: "
                    + String.join(", ", entryPoints.stream().map(e -> e.name() + " (" + model(e.executionModel()) + ")").toList())));
        }
        if (name == null) {
            if (compute.size() > 1) {
                throw new VulkanException("the SPIR-V module has several compute entry points ("
                        + String.join(", ", compute.stream().map(EntryPoint::name).toList()) + "); choose one with --entry");
            }
            return compute.get(0);
        }
        return compute.stream().filter(e -> e.name().equals(name)).findFirst().orElseThrow(() -> new VulkanException(
                "no compute entry point '" + name + "' (compute entry points: "
                        + String.join(", ", compute.stream().map(EntryPoint::name).toList()) + ")"));
    }

    private static String model(int m) {
        return switch (m) {
            case 0 -> "vertex";
            case 4 -> "fragment";
            case 5 -> "compute";
            default -> "execution model " + m;
        };
    }

    // opcodes and enumerants used (SPIR-V specification §3)
    private static final int OP_NAME = 5;
    private static final int OP_ENTRY_POINT = 15;
    private static final int OP_EXECUTION_MODE = 16;
    private static final int OP_TYPE_BOOL = 20;
    private static final int OP_TYPE_INT = 21;
    private static final int OP_TYPE_FLOAT = 22;
    private static final int OP_TYPE_VECTOR = 23;
    private static final int OP_TYPE_MATRIX = 24;
    private static final int OP_TYPE_IMAGE = 25;
    private static final int OP_TYPE_SAMPLER = 26;
    private static final int OP_TYPE_SAMPLED_IMAGE = 27;
    private static final int OP_TYPE_ARRAY = 28;
    private static final int OP_TYPE_RUNTIME_ARRAY = 29;
    private static final int OP_TYPE_STRUCT = 30;
    private static final int OP_TYPE_POINTER = 32;
    private static final int OP_CONSTANT = 43;
    private static final int OP_VARIABLE = 59;
    private static final int OP_DECORATE = 71;
    private static final int OP_MEMBER_DECORATE = 72;
    private static final int OP_TYPE_ACCELERATION_STRUCTURE = 5341;
    private static final int OP_EXECUTION_MODE_ID = 331;
    private static final int DEC_BLOCK = 2;
    private static final int DEC_BUFFER_BLOCK = 3;
    private static final int DEC_ARRAY_STRIDE = 6;
    private static final int DEC_MATRIX_STRIDE = 7;
    private static final int DEC_BINDING = 33;
    private static final int DEC_DESCRIPTOR_SET = 34;
    private static final int DEC_OFFSET = 35;
    private static final int SC_UNIFORM_CONSTANT = 0;
    private static final int SC_UNIFORM = 2;
    private static final int SC_PUSH_CONSTANT = 9;
    private static final int SC_STORAGE_BUFFER = 12;
    private static final int MODE_LOCAL_SIZE = 17;
    private static final int MODE_LOCAL_SIZE_ID = 38;

    /** Parses a SPIR-V binary (either byte order). */
    public static SpirvModule parse(byte[] bytes) throws VulkanException {
        if (bytes.length < 20 || bytes.length % 4 != 0) {
            throw new VulkanException("not a SPIR-V module: " + bytes.length + " bytes (a module is whole words, at least 5)");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if (b.getInt(0) != 0x07230203) {
            b.order(ByteOrder.BIG_ENDIAN);
            if (b.getInt(0) != 0x07230203) {
                throw new VulkanException(String.format("not a SPIR-V module: magic 0x%08x", b.order(ByteOrder.LITTLE_ENDIAN).getInt(0)));
            }
        }
        int[] w = new int[bytes.length / 4];
        for (int i = 0; i < w.length; i++) {
            w[i] = b.getInt(4 * i);
        }
        Map<Integer, String> names = new HashMap<>();
        Map<Integer, Map<Integer, Integer>> decorations = new HashMap<>();
        Map<Integer, Map<Integer, Integer>> memberOffsets = new HashMap<>();
        Map<Integer, Map<Integer, Integer>> matrixStrides = new HashMap<>();
        Map<Integer, int[]> types = new HashMap<>(); // id -> the type instruction's words from the opcode on
        Map<Integer, Long> constants = new HashMap<>();
        List<int[]> variables = new ArrayList<>();
        List<int[]> entries = new ArrayList<>();
        Map<Integer, int[]> localSizes = new HashMap<>();
        Map<Integer, int[]> localSizeIds = new HashMap<>();
        int i = 5;
        while (i < w.length) {
            int count = w[i] >>> 16;
            int op = w[i] & 0xFFFF;
            if (count == 0 || i + count > w.length) {
                throw new VulkanException("malformed SPIR-V: instruction at word " + i + " has word count " + count);
            }
            int[] insn = java.util.Arrays.copyOfRange(w, i, i + count);
            switch (op) {
                case OP_NAME -> names.put(insn[1], string(insn, 2));
                case OP_ENTRY_POINT -> entries.add(insn);
                case OP_EXECUTION_MODE -> {
                    if (insn[2] == MODE_LOCAL_SIZE && count >= 6) {
                        localSizes.put(insn[1], new int[] {insn[3], insn[4], insn[5]});
                    }
                }
                case OP_EXECUTION_MODE_ID -> {
                    if (insn[2] == MODE_LOCAL_SIZE_ID && count >= 6) {
                        localSizeIds.put(insn[1], new int[] {insn[3], insn[4], insn[5]});
                    }
                }
                case OP_DECORATE -> decorations.computeIfAbsent(insn[1], k -> new HashMap<>())
                        .put(insn[2], count > 3 ? insn[3] : 1);
                case OP_MEMBER_DECORATE -> {
                    if (insn[3] == DEC_OFFSET && count > 4) {
                        memberOffsets.computeIfAbsent(insn[1], k -> new TreeMap<>()).put(insn[2], insn[4]);
                    } else if (insn[3] == DEC_MATRIX_STRIDE && count > 4) {
                        matrixStrides.computeIfAbsent(insn[1], k -> new TreeMap<>()).put(insn[2], insn[4]);
                    }
                }
                case OP_TYPE_BOOL, OP_TYPE_INT, OP_TYPE_FLOAT, OP_TYPE_VECTOR, OP_TYPE_MATRIX, OP_TYPE_IMAGE,
                     OP_TYPE_SAMPLER, OP_TYPE_SAMPLED_IMAGE, OP_TYPE_ARRAY, OP_TYPE_RUNTIME_ARRAY, OP_TYPE_STRUCT,
                     OP_TYPE_POINTER, OP_TYPE_ACCELERATION_STRUCTURE -> types.put(insn[1], insn);
                case OP_CONSTANT -> constants.put(insn[2], count > 4
                        ? Integer.toUnsignedLong(insn[3]) | (long) insn[4] << 32 : Integer.toUnsignedLong(insn[3]));
                case OP_VARIABLE -> variables.add(insn);
                default -> {
                }
            }
            i += count;
        }
        List<EntryPoint> eps = new ArrayList<>();
        for (int[] e : entries) {
            int id = e[2];
            int[] size = localSizes.get(id);
            if (size == null && localSizeIds.containsKey(id)) {
                int[] ids = localSizeIds.get(id);
                size = new int[] {constant(constants, ids[0]), constant(constants, ids[1]), constant(constants, ids[2])};
            }
            eps.add(new EntryPoint(string(e, 3), e[1], id, size == null ? new int[0] : size));
        }
        Layout layout = new Layout(types, decorations, memberOffsets, matrixStrides, constants);
        List<Resource> resources = new ArrayList<>();
        long push = 0;
        for (int[] v : variables) {
            int resultType = v[1];
            int id = v[2];
            int storage = v[3];
            int[] pointer = types.get(resultType);
            if (pointer == null || (pointer[0] & 0xFFFF) != OP_TYPE_POINTER) {
                continue;
            }
            int pointee = pointer[3];
            if (storage == SC_PUSH_CONSTANT) {
                push = Math.max(push, layout.size(pointee));
                continue;
            }
            if (storage != SC_UNIFORM_CONSTANT && storage != SC_UNIFORM && storage != SC_STORAGE_BUFFER) {
                continue;
            }
            Map<Integer, Integer> dec = decorations.getOrDefault(id, Map.of());
            if (!dec.containsKey(DEC_BINDING)) {
                continue;
            }
            int set = dec.getOrDefault(DEC_DESCRIPTOR_SET, 0);
            int binding = dec.get(DEC_BINDING);
            int arrayCount = 1;
            int element = pointee;
            int[] t = types.get(element);
            while (t != null && ((t[0] & 0xFFFF) == OP_TYPE_ARRAY || (t[0] & 0xFFFF) == OP_TYPE_RUNTIME_ARRAY)) {
                arrayCount *= (t[0] & 0xFFFF) == OP_TYPE_ARRAY ? constant(constants, t[3]) : 0;
                element = t[2];
                t = types.get(element);
            }
            if (t == null) {
                throw new VulkanException("malformed SPIR-V: variable %" + id + " has an undefined type");
            }
            Map<Integer, Integer> typeDec = decorations.getOrDefault(element, Map.of());
            DescriptorKind kind;
            Optional<ImageShape> shape = Optional.empty();
            long blockBytes = 0;
            int top = t[0] & 0xFFFF;
            if (storage == SC_STORAGE_BUFFER || (storage == SC_UNIFORM && typeDec.containsKey(DEC_BUFFER_BLOCK))) {
                kind = DescriptorKind.STORAGE_BUFFER;
                blockBytes = layout.size(element);
            } else if (storage == SC_UNIFORM) {
                kind = DescriptorKind.UNIFORM_BUFFER;
                blockBytes = layout.size(element);
            } else if (top == OP_TYPE_SAMPLER) {
                kind = DescriptorKind.SAMPLER;
            } else if (top == OP_TYPE_ACCELERATION_STRUCTURE) {
                kind = DescriptorKind.ACCELERATION_STRUCTURE;
            } else if (top == OP_TYPE_IMAGE || top == OP_TYPE_SAMPLED_IMAGE) {
                int[] image = top == OP_TYPE_IMAGE ? t : types.get(t[2]);
                ImageShape s = new ImageShape(image[3], image[5] != 0, image[6] != 0, image[7], image[8]);
                shape = Optional.of(s);
                if (top == OP_TYPE_SAMPLED_IMAGE) {
                    kind = s.dim() == 5 ? DescriptorKind.UNIFORM_TEXEL_BUFFER : DescriptorKind.COMBINED_IMAGE_SAMPLER;
                } else if (s.dim() == 5) {
                    kind = s.sampled() == 2 ? DescriptorKind.STORAGE_TEXEL_BUFFER : DescriptorKind.UNIFORM_TEXEL_BUFFER;
                } else {
                    kind = s.sampled() == 2 ? DescriptorKind.STORAGE_IMAGE : DescriptorKind.SAMPLED_IMAGE;
                }
            } else {
                throw new VulkanException("set " + set + " binding " + binding + ": a resource of SPIR-V type opcode "
                        + top + " is not supported");
            }
            String name = names.getOrDefault(id, "");
            if (name.isEmpty() && (kind == DescriptorKind.STORAGE_BUFFER || kind == DescriptorKind.UNIFORM_BUFFER)) {
                name = names.getOrDefault(element, "");
            }
            resources.add(new Resource(set, binding, name, kind, arrayCount, blockBytes, shape));
        }
        resources.sort(java.util.Comparator.comparingInt(Resource::set).thenComparingInt(Resource::binding));
        for (int r = 1; r < resources.size(); r++) {
            Resource a = resources.get(r - 1);
            Resource c = resources.get(r);
            if (a.set() == c.set() && a.binding() == c.binding() && a.kind() != c.kind()) {
                throw new VulkanException(a.describe() + " and " + c.describe() + " share a binding with different kinds");
            }
        }
        // aliases of one binding (same kind) are one resource
        List<Resource> unique = new ArrayList<>();
        for (Resource r : resources) {
            if (unique.isEmpty() || unique.get(unique.size() - 1).set() != r.set()
                    || unique.get(unique.size() - 1).binding() != r.binding()) {
                unique.add(r);
            }
        }
        return new SpirvModule(List.copyOf(eps), List.copyOf(unique), push);
    }

    private static int constant(Map<Integer, Long> constants, int id) throws VulkanException {
        Long v = constants.get(id);
        if (v == null) {
            throw new VulkanException("SPIR-V: an array length or local size is not a plain constant (%" + id
                    + "; specialization constants are not supported)");
        }
        return (int) (long) v;
    }

    private static String string(int[] insn, int from) {
        ByteBuffer b = ByteBuffer.allocate(4 * (insn.length - from)).order(ByteOrder.LITTLE_ENDIAN);
        for (int k = from; k < insn.length; k++) {
            b.putInt(insn[k]);
        }
        byte[] a = b.array();
        int n = 0;
        while (n < a.length && a[n] != 0) {
            n++;
        }
        return new String(a, 0, n, StandardCharsets.UTF_8);
    }

    /** Sizes of explicitly laid-out types (Offset, ArrayStride, MatrixStride decorations). */
    private record Layout(Map<Integer, int[]> types, Map<Integer, Map<Integer, Integer>> decorations,
                          Map<Integer, Map<Integer, Integer>> memberOffsets,
                          Map<Integer, Map<Integer, Integer>> matrixStrides, Map<Integer, Long> constants) {
        long size(int type) throws VulkanException {
            int[] t = types.get(type);
            if (t == null) {
                return 0;
            }
            return switch (t[0] & 0xFFFF) {
                case OP_TYPE_BOOL -> 4;
                case OP_TYPE_INT, OP_TYPE_FLOAT -> t[2] / 8;
                case OP_TYPE_VECTOR -> size(t[2]) * t[3];
                case OP_TYPE_MATRIX -> {
                    yield size(t[2]) * t[3];
                }
                case OP_TYPE_ARRAY -> {
                    int stride = decorations.getOrDefault(type, Map.of()).getOrDefault(DEC_ARRAY_STRIDE, 0);
                    long n = constant(constants, t[3]);
                    yield stride > 0 ? stride * n : size(t[2]) * n;
                }
                case OP_TYPE_RUNTIME_ARRAY -> 0; // the block's fixed part only
                case OP_TYPE_STRUCT -> {
                    Map<Integer, Integer> offsets = memberOffsets.getOrDefault(type, Map.of());
                    long end = 0;
                    long running = 0;
                    for (int m = 2; m < t.length; m++) {
                        int member = m - 2;
                        long at = offsets.containsKey(member) ? offsets.get(member) : running;
                        long memberSize = size(t[m]);
                        int[] mt = types.get(t[m]);
                        Integer stride = matrixStrides.getOrDefault(type, Map.of()).get(member);
                        if (mt != null && (mt[0] & 0xFFFF) == OP_TYPE_MATRIX && stride != null) {
                            memberSize = (long) stride * mt[3]; // columns, MatrixStride apart
                        }
                        running = at + memberSize;
                        end = Math.max(end, running);
                    }
                    yield end;
                }
                default -> 0;
            };
        }
    }
}
