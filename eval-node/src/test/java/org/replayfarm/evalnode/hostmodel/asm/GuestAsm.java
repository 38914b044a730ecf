package org.replayfarm.evalnode.hostmodel.asm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.IntUnaryOperator;
import java.util.function.UnaryOperator;
import org.replayfarm.evalnode.hostmodel.FaultRecord;
import org.replayfarm.evalnode.hostmodel.GroupResult;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.InitialMemory;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.evalnode.hostmodel.StoreRun;
import org.replayfarm.evalnode.hostmodel.TexelStore;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.evalnode.hostmodel.wave.Workgroup;
import org.replayfarm.model.build.CaptureBuilder;
import org.replayfarm.model.build.DispatchShape;
import org.replayfarm.model.build.GuestLayout;
import org.replayfarm.model.build.KernelArg;
import org.replayfarm.model.build.Llvm;
import org.replayfarm.model.build.RawLayout;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.fp.FpMode;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.DenormMode;
import org.replayfarm.proto.FloatMode;
import org.replayfarm.proto.Provenance;
import org.replayfarm.proto.RoundMode;

/**
 * The one way the instruction tests run gfx1030 assembly: llvm-mc-19 (the reference assembler) assembles the
 * source (objects cached by content hash, in memory and under {@code target/asm-cache}), {@link CaptureBuilder}
 * builds a one-group raw capture with the buffers, LDS, scratch and MODE asked for, and the real
 * {@link HostModel} runs group 0: its dispatcher start state, barriers, instruction budget, fault records and
 * fidelity counts all apply.
 *
 * <p>Start state: buffer n is memory range n, its guest address in s[2n:2n+1]; the workgroup ids follow
 * (s[2n], s[2n+1], s[2n+2]), then the kernarg pointer; v0 holds the work-item id. Or, with kernel arguments
 * given as {@code replay capture build --arg} takes them ({@link #arg}: buffers, images, samplers, scalars), the
 * layout {@code capture build} gives plain assembly: the kernarg pointer in s[0:1], argument k's 8 bytes at kernarg
 * offset 8k (a buffer's address, an image's T# address, a sampler's S# address, a value), the workgroup ids in
 * s[20:22], work-item ids in v0..v2; the program loads what it needs. Presets ({@link #sgpr},
 * {@link #setup}) are applied to each wave after the dispatcher's start state (they override it), as a kernel
 * prolog would; with scratch each wave's FLAT_SCRATCH is the scratch base plus its wave offset.
 *
 * <p>Tiers: unless {@link #tier} pins one, every run executes on the three tiers (fast, reference, and compiled
 * with every run compiled on its first visit), requires them to agree bit for bit (results, faults, counts, every register, LDS) and hands back the default tier's
 * outcome. {@link #run} requires the group to end without a fault; {@link #runToFault} requires a fault.
 * Program text without a final {@code s_endpgm} gets one.
 *
 * <p>On top: fluent checks on the {@link Outcome} (registers by lane, floats by bits, memory words, faults,
 * fidelity counts) and the lane-program helpers of the VALU tests ({@link #lanes}, {@link #cases}, ...).
 */
public final class GuestAsm {
    private static final Map<String, byte[]> OBJECTS = new ConcurrentHashMap<>();
    private static final Path DISK_CACHE = Path.of("target", "asm-cache");
    /** The assembler's identity in the cache key: its name and what {@code --version} prints (read once). */
    private static volatile String assemblerIdentity;
    /** Where the kernarg layout ({@link #arg}) puts the workgroup ids, as {@code capture build} does. */
    public static final int KERNARG_LAYOUT_GROUP_ID_SGPR = 20;

    private final Path dir;
    private int waveSize = 32;
    private int groupSize = 32;
    private int ldsBytes = 0;
    private int scratchBytesPerLane = 0;
    private long budget = 1_000_000;
    private Integer mode;
    private HostModel.Tier tier;
    private final List<byte[]> buffers = new ArrayList<>();
    private final List<String> args = new ArrayList<>();
    private int groupsX = 1;
    private UnaryOperator<Capture> patch = c -> c;
    private final Map<Integer, Integer> sgprs = new LinkedHashMap<>();
    private Consumer<Wave> setup = w -> { };
    private boolean setupGiven;

    public GuestAsm(Path dir) {
        this.dir = dir;
    }

    // ---- configuration -------------------------------------------------------------------------------

    public GuestAsm wave64() {
        waveSize = 64;
        groupSize = Math.max(groupSize, 64);
        return this;
    }

    public GuestAsm wave64(boolean on) {
        return on ? wave64() : this;
    }

    /** 32 or 64. */
    public GuestAsm waveSize(int size) {
        if (size != 32 && size != 64) {
            throw new IllegalArgumentException("wave size " + size + ": 32 or 64");
        }
        return size == 64 ? wave64() : this;
    }

    public int waveSize() {
        return waveSize;
    }

    /** Work-items in the group (one dimension); default the wave size. */
    public GuestAsm groupSize(int lanes) {
        groupSize = lanes;
        return this;
    }

    public GuestAsm lds(int bytes) {
        ldsBytes = bytes;
        return this;
    }

    public GuestAsm scratch(int bytesPerLane) {
        scratchBytesPerLane = bytesPerLane;
        return this;
    }

    /** Instructions each wave may execute before the model stops it (default 1,000,000). */
    public GuestAsm budget(long instructions) {
        budget = instructions;
        return this;
    }

    /** Runs on this tier only (default: both, compared). */
    public GuestAsm tier(HostModel.Tier t) {
        tier = t;
        return this;
    }

    /** Adds a buffer (memory range n, its address in s[2n:2n+1]). */
    public GuestAsm buffer(byte[] contents) {
        if (!args.isEmpty()) {
            throw new IllegalStateException("buffer() and arg() do not mix: give the buffer as arg(\"buffer:FILE\")");
        }
        buffers.add(contents.clone());
        return this;
    }

    /**
     * Adds kernel argument k as {@code replay capture build --arg} takes it ({@code buffer:FILE}, {@code zeros:N},
     * {@code image:raw:FILE,WxH,format=F}, {@code sampler:...}, {@code u32:V}, ...): the program then runs with the
     * kernarg layout (see the class comment), as a capture built from plain assembly does.
     */
    public GuestAsm arg(String text) {
        if (!buffers.isEmpty()) {
            throw new IllegalStateException("arg() and buffer() do not mix: give the buffer as arg(\"buffer:FILE\")");
        }
        args.add(text);
        return this;
    }

    /** Groups in x the capture dispatches (default 1); {@link #run} runs group 0, {@link #kernel} holds them all. */
    public GuestAsm groups(int x) {
        if (x < 1) {
            throw new IllegalArgumentException("groups " + x + ": at least 1");
        }
        groupsX = x;
        return this;
    }

    /** Rewrites the built capture's metadata before it is written (an image's type and layers, a range moved, ...). */
    public GuestAsm patch(UnaryOperator<Capture> change) {
        patch = change;
        return this;
    }

    /** A file in the test directory holding {@code bytes}, for {@code buffer:} and {@code image:raw:} arguments. */
    public Path file(String name, byte[] bytes) throws IOException {
        Path p = dir.resolve(name);
        Files.write(p, bytes);
        return p;
    }

    /** The MODE the wave starts with (its float fields: round, denorm, DX10_CLAMP, IEEE), through the capture. */
    public GuestAsm mode(int value) {
        mode = value;
        return this;
    }

    /** MODE with round modes (f32, f16/f64), denorm modes (f32, f16/f64) and the two flags. */
    public static int mode(int roundF32, int roundF16F64, int denormF32, int denormF16F64, boolean dx10, boolean ieee) {
        return FpMode.encode(roundF32, roundF16F64, denormF32, denormF16F64, dx10, ieee);
    }

    /** Presets SGPR {@code index} of every wave to these bits. */
    public GuestAsm sgpr(int index, int bits) {
        sgprs.put(index, bits);
        return this;
    }

    public GuestAsm sgpr64(int index, long bits) {
        sgprs.put(index, (int) bits);
        sgprs.put(index + 1, (int) (bits >>> 32));
        return this;
    }

    public GuestAsm f32(int index, float v) {
        return sgpr(index, Float.floatToRawIntBits(v));
    }

    public GuestAsm f64(int index, double v) {
        return sgpr64(index, Double.doubleToRawLongBits(v));
    }

    /** Runs on each wave before its first instruction (after the presets): any register may be set here. */
    public GuestAsm setup(Consumer<Wave> step) {
        setup = step;
        setupGiven = true;
        return this;
    }

    // ---- running -------------------------------------------------------------------------------------

    /** Runs group 0; fails if it faults. */
    public Outcome run(String assembly) throws Exception {
        return execute(assembly).ok();
    }

    /** {@link #run} and its wave 0. */
    public Wave runWave(String assembly) throws Exception {
        return run(assembly).wave(0);
    }

    /** Runs group 0; fails unless it faults. */
    public Outcome runToFault(String assembly) throws Exception {
        Outcome out = execute(assembly);
        if (out.result().fault().isEmpty()) {
            throw new AssertionError("expected a fault, the group ended normally");
        }
        return out;
    }

    /** {@link #runToFault} and its fault's message. */
    public String faultMessage(String assembly) throws Exception {
        return runToFault(assembly).fault().message();
    }

    /** Runs group 0, fault or not. */
    public Outcome execute(String assembly) throws Exception {
        Kernel kernel = build(assembly);
        Consumer<Wave> start = startState(kernel);
        if (tier != null) {
            return runOn(kernel, tier, start);
        }
        HostModel.Tier first = HostModel.Tier.byDefault();
        HostModel.Tier other = first == HostModel.Tier.REFERENCE ? HostModel.Tier.FAST : HostModel.Tier.REFERENCE;
        Outcome a = runOn(kernel, first, start);
        Outcome b = runOn(kernel, other, start);
        assertSameRun(a.run(), first, b.run(), other);
        // the fast tier, and the compiled tier with every run compiled on its first visit (these programs run most
        // lines once)
        HostModel.Run f = new HostModel(kernel, budget, HostModel.Tier.FAST).runKeepingState(0, 0, 0, start);
        assertSameRun(a.run(), first, f, HostModel.Tier.FAST);
        HostModel.Run c = new HostModel(kernel, budget, HostModel.Tier.COMPILED, 1).runKeepingState(0, 0, 0, start);
        assertSameRun(a.run(), first, c, HostModel.Tier.COMPILED);
        return a;
    }

    /**
     * The assembly built into a capture ({@link #groups} groups; one by default), as {@link #run} runs it, for tests
     * that drive {@link HostModel} or the evaluation themselves. Presets cannot travel in a capture: this refuses them.
     */
    public Kernel kernel(String assembly) throws Exception {
        if (!sgprs.isEmpty() || setupGiven) {
            throw new IllegalStateException("SGPR presets apply when GuestAsm runs the program: use run()");
        }
        return build(assembly);
    }

    private Outcome runOn(Kernel kernel, HostModel.Tier t, Consumer<Wave> start) {
        HostModel.Run run = new HostModel(kernel, budget, t).runKeepingState(0, 0, 0, start);
        return new Outcome(run, kernel, t);
    }

    private Consumer<Wave> startState(Kernel kernel) {
        Map<Integer, Integer> presets = Map.copyOf(sgprs);
        Consumer<Wave> user = setup;
        int perWave = kernel.scratchBytesPerLane() * kernel.waveSize();
        return w -> {
            presets.forEach(w::setSgpr);
            if (perWave > 0) {
                w.setFlatScratch(GuestLayout.SCRATCH_BASE + (long) w.index() * perWave);
            }
            user.accept(w);
        };
    }

    private Kernel build(String assembly) throws Exception {
        String source = endsWithEndpgm(assembly) ? assembly : assembly + "\ns_endpgm\n";
        byte[] object = assemble(source, waveSize == 64);
        DispatchShape shape = new DispatchShape(groupsX, 1, 1, groupSize, 1, 1, 1);
        CaptureBuilder.Built built;
        if (!args.isEmpty()) {
            List<KernelArg> kernelArgs = new ArrayList<>();
            for (String a : args) {
                kernelArgs.add(KernelArg.parse(a));
            }
            built = CaptureBuilder.fromRawCode(object, new RawLayout(waveSize, 256, 106, ldsBytes, scratchBytesPerLane,
                    Map.of(), OptionalInt.of(0), OptionalInt.of(KERNARG_LAYOUT_GROUP_ID_SGPR)), shape, kernelArgs,
                    Provenance.getDefaultInstance());
        } else {
            Path s = Files.createTempFile(dir, "t", ".s");
            List<KernelArg> kernelArgs = new ArrayList<>();
            for (int i = 0; i < buffers.size(); i++) {
                Path b = dir.resolve("buffer" + i + "-" + s.getFileName() + ".bin");
                Files.write(b, buffers.get(i));
                kernelArgs.add(KernelArg.parse("buffer:" + b));
            }
            // first pass learns where the builder puts the buffers; the second hands their addresses over
            Capture first = CaptureBuilder.fromRawCode(object, raw(Map.of()), shape, kernelArgs,
                    Provenance.getDefaultInstance()).metadata();
            Map<Integer, Integer> addresses = new LinkedHashMap<>();
            for (int i = 0; i < buffers.size(); i++) {
                long address = first.getRanges(i).getGuestAddress();
                addresses.put(2 * i, (int) address);
                addresses.put(2 * i + 1, (int) (address >>> 32));
            }
            built = CaptureBuilder.fromRawCode(object, raw(addresses), shape, kernelArgs, Provenance.getDefaultInstance());
        }
        Capture c = built.metadata();
        if (mode != null) {
            int m = mode;
            FloatMode fm = FloatMode.newBuilder().setIeee((m & (1 << 9)) != 0).setDx10Clamp((m & (1 << 8)) != 0)
                    .setRoundF32(RoundMode.forNumber((m & 3) + 1)).setRoundF16F64(RoundMode.forNumber((m >>> 2 & 3) + 1))
                    .setDenormF32(DenormMode.forNumber((m >>> 4 & 3) + 1))
                    .setDenormF16F64(DenormMode.forNumber((m >>> 6 & 3) + 1)).build();
            c = c.toBuilder().setProgram(c.getProgram().toBuilder().setFloatMode(fm)).build();
        }
        c = patch.apply(c);
        Path capture = Files.createTempFile(dir, "t", ".capture");
        built.writer().write(c, capture);
        return new Kernel(CaptureFile.open(capture));
    }

    private RawLayout raw(Map<Integer, Integer> userSgprs) {
        int wg = 2 * buffers.size();
        // the kernarg pointer goes after the buffer addresses and the group ids
        return new RawLayout(waveSize, 256, 106, ldsBytes, scratchBytesPerLane, userSgprs, OptionalInt.of(wg + 3),
                OptionalInt.of(wg));
    }

    private static boolean endsWithEndpgm(String assembly) {
        String[] lines = assembly.strip().split("\n");
        return lines[lines.length - 1].strip().equals("s_endpgm");
    }

    /**
     * llvm-mc-19's object for the source, from the cache when this source was assembled before by the same
     * assembler (its name and its {@code --version} text are in the key: an upgraded llvm-mc-19 assembles again).
     */
    static byte[] assemble(String source, boolean wave64) throws IOException {
        String key = sha256(assemblerIdentity() + "\0" + wave64 + "\0" + source);
        byte[] cached = OBJECTS.get(key);
        if (cached != null) {
            return cached;
        }
        Path onDisk = Files.isDirectory(DISK_CACHE.getParent()) ? DISK_CACHE.resolve(key + ".o") : null;
        if (onDisk != null && Files.isRegularFile(onDisk)) {
            byte[] object = Files.readAllBytes(onDisk);
            OBJECTS.put(key, object);
            return object;
        }
        Path s = Files.createTempFile("guest-asm", ".s");
        byte[] object;
        try {
            Files.writeString(s, source);
            object = Llvm.assemble(s, wave64);
        } finally {
            Files.deleteIfExists(s);
        }
        OBJECTS.put(key, object);
        if (onDisk != null) {
            Files.createDirectories(DISK_CACHE);
            Path tmp = Files.createTempFile(DISK_CACHE, key, ".part");
            Files.write(tmp, object);
            Files.move(tmp, onDisk, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        return object;
    }

    /** The assembler's name and its {@code --version} output, asked once per JVM. */
    static String assemblerIdentity() {
        String known = assemblerIdentity;
        if (known != null) {
            return known;
        }
        String mc = Llvm.mc();
        try {
            Process p = new ProcessBuilder(mc, "--version").redirectErrorStream(true).start();
            String version = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new AssertionError(mc + " --version failed: " + version);
            }
            known = mc + "\0" + version.strip();
        } catch (IOException e) {
            throw new AssertionError("cannot run " + mc + ": install the reference toolchain (apt-get install -y llvm-19)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        assemblerIdentity = known;
        return known;
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    // ---- tier comparison -----------------------------------------------------------------------------

    /** Fails unless the two runs of one kernel produced and left the same, naming the first difference. */
    public static void assertSameRun(HostModel.Run a, HostModel.Tier ta, HostModel.Run b, HostModel.Tier tb) {
        String da = describe(a);
        String db = describe(b);
        if (!da.equals(db)) {
            throw new AssertionError("the tiers disagree: " + firstDifference(da, db, ta.name(), tb.name()));
        }
    }

    /** Everything a run produced and left, as text (byte arrays spelled out; LDS by hash). */
    public static String describe(HostModel.Run run) {
        GroupResult r = run.result();
        StringBuilder s = new StringBuilder();
        s.append("fault ").append(r.fault().map(FaultRecord::toString).orElse("none")).append('\n');
        s.append("counts ").append(r.waveInstructions()).append(' ').append(r.laneInstructions()).append(' ')
                .append(r.exact()).append(' ').append(r.approximate()).append(' ').append(r.unsupported()).append('\n');
        for (StoreRun st : r.stores()) {
            s.append("store ").append(st.range()).append('+').append(st.offset()).append(' ')
                    .append(Arrays.toString(st.data())).append('\n');
        }
        for (TexelStore t : r.texels()) {
            s.append("texel ").append(t.image()).append(':').append(t.texel()).append(' ')
                    .append(Arrays.toString(t.value())).append('\n');
        }
        r.atomics().forEach(a -> s.append("atomic ").append(a).append('\n'));
        r.texelAtomics().forEach(a -> s.append("texel atomic ").append(a).append('\n'));
        for (Wave w : run.group().waves()) {
            s.append("wave ").append(w.index()).append(" pc ").append(Long.toHexString(w.pc())).append(" scc ")
                    .append(w.scc()).append(" mode ").append(Integer.toHexString(w.mode())).append(" ended ")
                    .append(w.ended()).append('\n');
            for (int i = 0; i < 128; i++) {
                s.append("s").append(i).append('=').append(Integer.toHexString(w.sgpr(i))).append(' ');
            }
            s.append('\n');
            int[] v = w.vgprFile();
            for (int reg = 0; reg < w.vgprCount(); reg++) {
                boolean any = false;
                for (int l = 0; l < w.waveSize() && !any; l++) {
                    any = v[reg * w.waveSize() + l] != 0;
                }
                if (any) {
                    s.append("v").append(reg).append(' ').append(Arrays.toString(
                            Arrays.copyOfRange(v, reg * w.waveSize(), (reg + 1) * w.waveSize()))).append('\n');
                }
            }
        }
        byte[] lds = new byte[run.group().lds().capacity()];
        run.group().lds().duplicate().get(lds);
        s.append("lds ").append(Arrays.hashCode(lds)).append('\n');
        return s.toString();
    }

    /** The first line where two {@link #describe} texts differ. */
    public static String firstDifference(String a, String b, String nameA, String nameB) {
        String[] x = a.split("\n");
        String[] y = b.split("\n");
        for (int i = 0; i < Math.min(x.length, y.length); i++) {
            if (!x[i].equals(y[i])) {
                return nameA + ": " + abbreviate(x[i]) + " / " + nameB + ": " + abbreviate(y[i]);
            }
        }
        return nameA + " has " + x.length + " lines, " + nameB + " " + y.length;
    }

    private static String abbreviate(String s) {
        return s.length() > 400 ? s.substring(0, 400) + "..." : s;
    }

    // ---- what a run left, with checks ----------------------------------------------------------------

    /** What a run left: the group's result and final state, the kernel it ran and the tier it ran on. */
    public record Outcome(HostModel.Run run, Kernel kernel, HostModel.Tier tier) {
        public GroupResult result() {
            return run.result();
        }

        public Workgroup group() {
            return run.group();
        }

        public Capture capture() {
            return kernel.capture();
        }

        public Wave wave(int index) {
            return group().waves().get(index);
        }

        /** Wave 0. */
        public Wave wave() {
            return wave(0);
        }

        /** Fails if the group faulted. */
        public Outcome ok() {
            Optional<FaultRecord> f = result().fault();
            if (f.isPresent()) {
                throw new AssertionError("unexpected fault: " + f.get());
            }
            return this;
        }

        /** The fault that stopped the group; fails when there was none. */
        public FaultRecord fault() {
            return result().fault().orElseThrow(() -> new AssertionError("expected a fault, the group ended normally"));
        }

        /** The fault, checked to mention {@code fragment}. */
        public FaultRecord expectFault(String fragment) {
            FaultRecord f = fault();
            if (!f.message().contains(fragment)) {
                throw new AssertionError("the fault should mention \"" + fragment + "\": " + f);
            }
            return f;
        }

        /** Range n's bytes as the group left them: initial contents with its stores and atomics. */
        public byte[] buffer(int n) {
            InitialMemory.Range r = group().memory().initial().ranges().get(n);
            byte[] out = new byte[(int) r.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = (byte) group().memory().load(r.address() + i, 1, -1);
            }
            return out;
        }

        /** Range n's bytes as the group left them, as a little-endian buffer (floats and words by byte offset). */
        public ByteBuffer bufferView(int n) {
            return ByteBuffer.wrap(buffer(n)).order(ByteOrder.LITTLE_ENDIAN);
        }

        /** Range n's guest address. */
        public long bufferAddress(int n) {
            return group().memory().initial().ranges().get(n).address();
        }

        /** The little-endian dword at byte {@code at} of range n as the group left it. */
        public int bufferDword(int n, int at) {
            byte[] b = buffer(n);
            return (b[at] & 0xFF) | (b[at + 1] & 0xFF) << 8 | (b[at + 2] & 0xFF) << 16 | (b[at + 3] & 0xFF) << 24;
        }

        public Outcome assertWord(int range, int at, int expected) {
            int got = bufferDword(range, at);
            assertEquals(expected, got, () -> String.format("range %d byte %d: expected 0x%08x, got 0x%08x", range, at,
                    expected, got));
            return this;
        }

        public Outcome assertSgpr(int code, long expected) {
            GuestAsm.assertSgpr(wave(0), code, expected);
            return this;
        }

        public Outcome assertSgpr64(int code, long expected) {
            GuestAsm.assertSgpr64(wave(0), code, expected);
            return this;
        }

        public Outcome assertVgpr(int reg, int lane, int expected) {
            GuestAsm.assertVgpr(wave(0), reg, lane, expected);
            return this;
        }

        /** Every lane of wave 0's {@code reg} against {@code expected}. */
        public Outcome assertLanes(int reg, IntUnaryOperator expected, String what) {
            Wave w = wave(0);
            for (int lane = 0; lane < w.waveSize(); lane++) {
                int e = expected.applyAsInt(lane);
                int got = w.vgpr(reg, lane);
                int l = lane;
                assertEquals(e, got, () -> String.format("%s: v%d lane %d: expected 0x%08x, got 0x%08x", what, reg, l, e,
                        got));
            }
            return this;
        }

        /** A float in v{reg} of a lane, compared by bits (NaN payloads and signed zeros count). */
        public Outcome assertF32(int reg, int lane, float expected) {
            GuestAsm.assertF32Bits(wave(0).vgpr(reg, lane), Float.floatToRawIntBits(expected), "v" + reg + " lane " + lane);
            return this;
        }

        public Outcome assertF64(int reg, int lane, double expected) {
            long got = wave(0).vgpr64(reg, lane);
            long e = Double.doubleToRawLongBits(expected);
            assertEquals(e, got, () -> String.format("v[%d:%d] lane %d: expected %s (0x%016x), got %s (0x%016x)", reg,
                    reg + 1, lane, expected, e, Double.longBitsToDouble(got), got));
            return this;
        }

        /** The fidelity counts of the wave instructions executed: exact, approximate, unsupported. */
        public Outcome assertFidelity(long exact, long approximate, long unsupported) {
            assertEquals(List.of(exact, approximate, unsupported),
                    List.of(result().exact(), result().approximate(), result().unsupported()),
                    "exact, approximate, unsupported wave instructions");
            return this;
        }
    }

    // ---- register checks on a wave -------------------------------------------------------------------

    public static void assertSgpr(Wave w, int code, long expected) {
        assertEquals((int) expected, w.sgpr(code), () -> String.format("s%d: expected 0x%08x, got 0x%08x", code,
                (int) expected, w.sgpr(code)));
    }

    public static void assertSgpr64(Wave w, int code, long expected) {
        assertEquals(expected, w.sgpr64(code), () -> String.format("s[%d:%d]: expected 0x%016x, got 0x%016x", code,
                code + 1, expected, w.sgpr64(code)));
    }

    public static void assertVgpr(Wave w, int reg, int lane, int expected) {
        assertEquals(expected, w.vgpr(reg, lane), () -> String.format("v%d lane %d: expected 0x%08x, got 0x%08x", reg,
                lane, expected, w.vgpr(reg, lane)));
    }

    /** Two float bit patterns equal, shown as floats too. */
    public static void assertF32Bits(int got, int expected, String what) {
        assertEquals(expected, got, () -> String.format("%s: expected %s (0x%08x), got %s (0x%08x)", what,
                Float.intBitsToFloat(expected), expected, Float.intBitsToFloat(got), got));
    }

    /** Assembly that records SCC in {@code sN} (1 or 0) through s_cselect_b32. */
    public static String scc(int n) {
        return "s_cselect_b32 s" + n + ", 1, 0\n";
    }

    /** SCC as recorded by {@link #scc}. */
    public static void assertScc(Wave w, int code, boolean expected) {
        assertEquals(expected ? 1 : 0, w.sgpr(code), "SCC recorded in s" + code);
    }

    /** Little-endian dwords as bytes. */
    public static byte[] dwords(int... values) {
        byte[] b = new byte[4 * values.length];
        for (int i = 0; i < values.length; i++) {
            int v = values[i];
            b[4 * i] = (byte) v;
            b[4 * i + 1] = (byte) (v >>> 8);
            b[4 * i + 2] = (byte) (v >>> 16);
            b[4 * i + 3] = (byte) (v >>> 24);
        }
        return b;
    }

    /** Little-endian floats as bytes. */
    public static byte[] floats(float... values) {
        ByteBuffer b = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
        for (float f : values) {
            b.putFloat(f);
        }
        return b.array();
    }

    /** {@code dwords} little-endian dwords, dword i holding 3i + 1: a buffer whose every word is distinct. */
    public static byte[] pattern(int dwords) {
        int[] v = new int[dwords];
        for (int i = 0; i < dwords; i++) {
            v[i] = i * 3 + 1;
        }
        return dwords(v);
    }

    /** The repository root, for tests that need the examples. */
    public static Path root() {
        return org.replayfarm.model.testing.Toolchain.root();
    }

    // ---- lane programs (VALU tests built from VALU instructions only) --------------------------------

    /** 32-bit corner values the lane programs cycle through. */
    public static final int[] CORNERS = {0, 1, 2, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFE, 0x12345678,
            0x9ABCDEF0, 31, 32, 33, 63, 64, 0x00FF00FF, 0x80000001, 0xFFFF, 0x10000, 0x7FFF, 0x8000, 0xDEADBEEF,
            0x01000000, 0x00FFFFFF, 0x00800000, 0xFF800000, 5, 17, 0x40000000, 0xC0000000, 100, 0xFFFFFF00,
            0x0F0F0F0F};

    /** First operand value of a lane. */
    public static int a(int lane) {
        return CORNERS[lane % CORNERS.length];
    }

    /** Second operand value of a lane (a different corner pairing than {@link #a}). */
    public static int b(int lane) {
        return CORNERS[(lane * 7 + 3) % CORNERS.length];
    }

    /** Third operand value of a lane. */
    public static int c(int lane) {
        return CORNERS[(lane * 13 + 11) % CORNERS.length];
    }

    /** v_writelane_b32 of every lane's value into {@code v}. */
    public String lanes(int v, IntUnaryOperator value) {
        StringBuilder s = new StringBuilder();
        for (int lane = 0; lane < waveSize; lane++) {
            s.append("v_writelane_b32 v").append(v).append(", 0x").append(Integer.toHexString(value.applyAsInt(lane)))
                    .append(", ").append(lane).append('\n');
        }
        return s.toString();
    }

    /** Sets a scalar register to a constant (through v_mov_b32 + v_readfirstlane_b32, using {@code scratch}). */
    public static String scalar(String sgpr, int value, int scratch) {
        return "v_mov_b32 v" + scratch + ", 0x" + Integer.toHexString(value) + "\nv_readfirstlane_b32 " + sgpr + ", v"
                + scratch + "\n";
    }

    /** Sets a lane mask (one SGPR in wave32, the pair from {@code sgpr} in wave64). */
    public String mask(int sgpr, long value, int scratch) {
        String s = scalar("s" + sgpr, (int) value, scratch);
        if (waveSize == 64) {
            s += scalar("s" + (sgpr + 1), (int) (value >>> 32), scratch);
        }
        return s;
    }

    /** Restricts EXEC to the lanes of {@code active} (v_cmpx over a per-lane flag in {@code scratch}). */
    public String exec(long active, int scratch) {
        return lanes(scratch, lane -> (int) (active >>> lane & 1)) + "v_cmpx_ne_u32_e32 0, v" + scratch + "\n";
    }

    /** VCC's name in this wave size. */
    public String vcc() {
        return waveSize == 32 ? "vcc_lo" : "vcc";
    }

    /** A lane-mask operand from SGPR {@code n}: s{n} in wave32, s[n:n+1] in wave64. */
    public String maskOperand(int n) {
        return waveSize == 32 ? "s" + n : "s[" + n + ":" + (n + 1) + "]";
    }

    public long allLanes() {
        return waveSize == 64 ? -1L : 0xFFFF_FFFFL;
    }

    /** Checks every lane of {@code v} in wave 0 against {@code expected}. */
    public void expect(Outcome out, int v, IntUnaryOperator expected, String what) {
        expect(out, v, expected, l -> out.wave(0).vgpr(v, l), what);
    }

    /** Checks {@code actual} of every lane against {@code expected}, naming the lane's a, b, c. */
    public void expect(Outcome out, int v, IntUnaryOperator expected, IntUnaryOperator actual, String what) {
        for (int lane = 0; lane < waveSize; lane++) {
            int e = expected.applyAsInt(lane);
            int got = actual.applyAsInt(lane);
            final int l = lane;
            assertEquals(e, got, () -> what + " lane " + l + " (wave" + waveSize + "): expected 0x"
                    + Integer.toHexString(e) + " got 0x" + Integer.toHexString(got) + " for a=0x"
                    + Integer.toHexString(a(l)) + " b=0x" + Integer.toHexString(b(l)) + " c=0x" + Integer.toHexString(c(l)));
        }
    }

    /** One instruction under test: its assembly with {@code vD} for the destination, and the expected lanes. */
    public record Case(String asm, IntUnaryOperator expected, int mask) {
    }

    public static Case op(String asm, IntUnaryOperator expected) {
        return new Case(asm, expected, -1);
    }

    /** A case whose result is 16 bits in the low half: only those bits are checked. */
    public static Case low16(String asm, IntUnaryOperator expected) {
        return new Case(asm, expected, 0xFFFF);
    }

    /**
     * Runs {@code setup} then every case with its own destination (v20, v22, ...; {@code vP} names the pair
     * v[d:d+1] for 64-bit results), and checks each against its expectation. Operands a, b, c sit in v1, v2,
     * v3; the group is one wave.
     */
    public Outcome cases(String setup, Case... cases) throws Exception {
        StringBuilder p = new StringBuilder();
        p.append(lanes(1, GuestAsm::a)).append(lanes(2, GuestAsm::b)).append(lanes(3, GuestAsm::c));
        p.append(setup);
        for (int i = 0; i < cases.length; i++) {
            int d = 20 + 2 * i;
            p.append(cases[i].asm().replace("vP", "v[" + d + ":" + (d + 1) + "]").replace("vD", "v" + d)).append('\n');
        }
        Outcome out = run(p.toString());
        for (int i = 0; i < cases.length; i++) {
            Case k = cases[i];
            int reg = 20 + 2 * i;
            expect(out, reg, l -> k.expected().applyAsInt(l) & k.mask(), l -> out.wave(0).vgpr(reg, l) & k.mask(),
                    k.asm());
        }
        return out;
    }

    /** The lane mask held from SGPR {@code n} in wave 0. */
    public long laneMask(Outcome out, int n) {
        return out.wave(0).laneMask(n);
    }
}
