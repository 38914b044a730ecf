package org.replayfarm.model.vulkan;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What RADV reported for one compute pipeline (the helper's {@code compile} output): the device and
 * Mesa version, the wave size, the executable's statistics and IRs, the code (every "Assembly" line
 * carries its encoded words), and, from the pipeline cache's copy of the driver's shader binary, its
 * config registers and the user-data locations RADV programs at dispatch.
 *
 * <p>The binary's layout is Mesa's and changes between versions; this reads Mesa 22.3's and checks what
 * it reads against itself and the statistics (see {@link #readBinary}). Another Mesa version is refused.
 */
public final class RadvBinary {
    /** RADV's user-data slot: the first user SGPR and how many (sgpr -1: not used). */
    public record Slot(int sgpr, int count) {
        public boolean used() {
            return sgpr >= 0;
        }
    }

    /** One instruction of the "Assembly" text: its text as RADV printed it and its words. */
    public record AsmLine(String text, int[] words) {
    }

    /** RADV 22.3's shader_data slots used here (enum radv_ud_index). */
    public static final int UD_RING_OFFSETS = 0;
    public static final int UD_PUSH_CONSTANTS = 1;
    public static final int UD_INLINE_PUSH_CONSTANTS = 2;
    public static final int UD_INDIRECT_DESCRIPTOR_SETS = 3;
    public static final int UD_CS_GRID_SIZE = 11;
    static final int MAX_SETS = 32;
    static final int UD_SLOTS = 18;

    private final String device;
    private final String driver;
    private final String mesaVersion;
    private final int subgroupSize;
    private final Map<String, String> stats;
    private final Map<String, String> irs;
    private final List<AsmLine> assembly;
    private final int[] code;
    // from the driver's binary
    private int rsrc1;
    private int rsrc2;
    private int rsrc3;
    private int floatMode;
    private int scratchBytesPerWave;
    private long inlinePushMask;
    private final Slot[] sets = new Slot[MAX_SETS];
    private final Slot[] shaderData = new Slot[UD_SLOTS];
    private int setsEnabled;

    private RadvBinary(String device, String driver, String mesaVersion, int subgroupSize, Map<String, String> stats,
                       Map<String, String> irs, List<AsmLine> assembly, int[] code) {
        this.device = device;
        this.driver = driver;
        this.mesaVersion = mesaVersion;
        this.subgroupSize = subgroupSize;
        this.stats = stats;
        this.irs = irs;
        this.assembly = assembly;
        this.code = code;
    }

    private static final Pattern LABEL = Pattern.compile("^\\s*(?:\\.L)?(BB[0-9_]+):\\s*$");
    private static final Pattern BRANCH = Pattern.compile("^(s_branch|s_cbranch_\\w+)\\s+(?:\\.L)?(BB[0-9_]+)$");
    private static final Pattern ASM_WORDS = Pattern.compile(";\\s*((?:[0-9a-fA-F]{8}\\s*)+)$");

    /** Parses the helper's compile output. */
    public static RadvBinary parse(String out) throws VulkanException {
        String device = "";
        String driver = "";
        String version = "";
        int subgroup = 0;
        Map<String, String> stats = new LinkedHashMap<>();
        Map<String, String> irs = new LinkedHashMap<>();
        String cache = null;
        String[] lines = out.split("\n", -1);
        int executables = 0;
        for (int i = 0; i < lines.length; i++) {
            String l = lines[i];
            if (l.startsWith("@@device ")) {
                device = l.substring(9).strip();
            } else if (l.startsWith("@@driver-info ")) {
                driver = l.substring(14).strip();
                Matcher m = Pattern.compile("Mesa (\\d+\\.\\d+\\.\\d+)").matcher(driver);
                version = m.find() ? m.group(1) : "";
            } else if (l.startsWith("@@executable ")) {
                executables++;
            } else if (l.startsWith("@@subgroup-size ")) {
                subgroup = Integer.parseInt(l.substring(16).strip());
            } else if (l.startsWith("@@stat ")) {
                int eq = l.indexOf('=');
                stats.put(l.substring(7, eq), l.substring(eq + 1).strip());
            } else if (l.startsWith("@@ir ")) {
                String name = l.substring(5).strip();
                StringBuilder text = new StringBuilder();
                for (i++; i < lines.length && !lines[i].equals("@@end-ir"); i++) {
                    text.append(lines[i]).append('\n');
                }
                irs.put(name, text.toString());
            } else if (l.startsWith("@@cache ")) {
                cache = l.substring(8).strip();
            }
        }
        if (executables != 1) {
            throw new VulkanException("RADV reported " + executables + " executables for the compute pipeline (expected one)");
        }
        String asm = irs.get("Assembly");
        if (asm == null) {
            throw new VulkanException("RADV printed no \"Assembly\" for the pipeline (IRs: " + irs.keySet() + ")");
        }
        List<AsmLine> lines2 = new ArrayList<>();
        List<Integer> words = new ArrayList<>();
        Map<String, Integer> labels = new java.util.HashMap<>();
        List<Object[]> branches = new ArrayList<>(); // label, index of the branch's word, its byte offset, its text
        boolean llvm = irs.containsKey("LLVM IR");
        for (String l : asm.split("\n")) {
            Matcher label = LABEL.matcher(l);
            if (label.matches()) {
                labels.put(label.group(1), 4 * words.size());
                continue;
            }
            Matcher m = ASM_WORDS.matcher(l);
            if (!m.find()) {
                continue;
            }
            String text = l.substring(0, m.start()).strip();
            String[] hex = m.group(1).strip().split("\\s+");
            int[] w = new int[hex.length];
            Matcher branch = BRANCH.matcher(text);
            if (branch.matches()) {
                branches.add(new Object[] {branch.group(2), words.size(), 4 * words.size(), text});
            }
            if (text.contains("@") && !text.contains("compute_lds@abs32@lo")) {
                throw new VulkanException("RADV's code holds a relocation the farm does not resolve: \"" + text + "\"");
            }
            for (int k = 0; k < hex.length; k++) {
                w[k] = (int) Long.parseLong(hex[k], 16);
                words.add(w[k]);
            }
            lines2.add(new AsmLine(text, w));
        }
        // branches: the label each names gives its SIMM16. LLVM prints its words with the branch fixups
        // unresolved (0): they are filled in here; ACO's words are final and must agree.
        for (Object[] br : branches) {
            Integer target = labels.get((String) br[0]);
            if (target == null) {
                throw new VulkanException("RADV's Assembly branches to " + br[0] + ", a label it does not print (" + br[3] + ")");
            }
            int at = (Integer) br[1];
            int simm = (target - ((Integer) br[2] + 4)) / 4;
            int word = words.get(at);
            if ((short) word != simm) {
                if (!llvm || (word & 0xFFFF) != 0) {
                    throw new VulkanException(String.format("RADV's Assembly: the branch at +0x%x (%s) encodes %d but its label "
                            + "is %d dwords away", (Integer) br[2], br[3], (short) word, simm));
                }
                words.set(at, word & 0xFFFF0000 | simm & 0xFFFF);
            }
        }
        int[] code = words.stream().mapToInt(Integer::intValue).toArray();
        RadvBinary b = new RadvBinary(device, driver, version, subgroup, stats, irs, List.copyOf(lines2), code);
        if (cache == null) {
            throw new VulkanException("the helper printed no pipeline cache data");
        }
        b.readBinary(HexFormat.of().parseHex(cache));
        return b;
    }

    /**
     * Finds RADV's shader binary in the pipeline cache data and reads it as Mesa 22.3 lays it out:
     * {@code struct ac_shader_config} (num_sgprs, num_vgprs, num_shared_vgprs, spilled_sgprs, spilled_vgprs,
     * lds_size, spi_ps_input_ena, spi_ps_input_addr, float_mode, scratch_bytes_per_wave, rsrc1, rsrc2, rsrc3),
     * then {@code struct radv_shader_info}, which begins with inline_push_constant_mask (64 bits) and holds
     * user_sgprs_locs 24 bytes in: 32 descriptor-set slots and 18 shader-data slots of (int8 sgpr_idx,
     * uint8 num_sgprs), then descriptor_sets_enabled. The config is found by the statistics it must
     * agree with (SGPRs, VGPRs, spills) and the float mode that rsrc1 repeats; everything read is then
     * checked against rsrc2's user SGPR count.
     */
    private void readBinary(byte[] blob) throws VulkanException {
        if (!mesaVersion.startsWith("22.3.")) {
            throw new VulkanException("RADV from Mesa " + (mesaVersion.isEmpty() ? "(unknown version)" : mesaVersion)
                    + " (" + driver + "): the farm reads RADV's shader binary as Mesa 22.3 lays it out, and no other "
                    + "version's layout is known to it; a capture built on a guess at it would launch the code wrong");
        }
        ByteBuffer b = ByteBuffer.wrap(blob).order(ByteOrder.LITTLE_ENDIAN);
        long sgprs = stat("SGPRs");
        long vgprs = stat("VGPRs");
        long spilledS = stat("Spilled SGPRs");
        long spilledV = stat("Spilled VGPRs");
        int found = -1;
        for (int off = 0; off + 52 + 24 + 2 * (MAX_SETS + UD_SLOTS) + 4 <= blob.length; off += 4) {
            if (b.getInt(off) == sgprs && b.getInt(off + 4) == vgprs && b.getInt(off + 12) == spilledS
                    && b.getInt(off + 16) == spilledV && (b.getInt(off + 40) >>> 12 & 0xFF) == b.getInt(off + 32)) {
                if (found >= 0) {
                    throw new VulkanException("RADV's pipeline cache data holds two shader configs that match the statistics");
                }
                found = off;
            }
        }
        if (found < 0) {
            throw new VulkanException("no shader config matching the statistics (" + sgprs + " SGPRs, " + vgprs
                    + " VGPRs) in RADV's pipeline cache data: its layout is not Mesa 22.3's as the farm knows it");
        }
        floatMode = b.getInt(found + 32);
        scratchBytesPerWave = b.getInt(found + 36);
        rsrc1 = b.getInt(found + 40);
        rsrc2 = b.getInt(found + 44);
        rsrc3 = b.getInt(found + 48);
        int info = found + 52;
        inlinePushMask = b.getLong(info);
        int locs = info + 24;
        for (int s = 0; s < MAX_SETS; s++) {
            sets[s] = new Slot(blob[locs + 2 * s], blob[locs + 2 * s + 1] & 0xFF);
        }
        for (int d = 0; d < UD_SLOTS; d++) {
            shaderData[d] = new Slot(blob[locs + 2 * MAX_SETS + 2 * d], blob[locs + 2 * MAX_SETS + 2 * d + 1] & 0xFF);
        }
        setsEnabled = b.getInt(locs + 2 * (MAX_SETS + UD_SLOTS));
        // what was read must add up: every used slot inside the user SGPRs, none overlapping, all of them counted
        boolean[] taken = new boolean[16];
        int total = 0;
        List<Slot> all = new ArrayList<>(List.of(sets));
        all.addAll(List.of(shaderData));
        for (Slot slot : all) {
            if (!slot.used()) {
                if (slot.sgpr() != -1 || slot.count() != 0) {
                    throw new VulkanException("RADV's user-data locations do not read as Mesa 22.3's (a slot "
                            + slot + " is neither used nor empty)");
                }
                continue;
            }
            for (int k = slot.sgpr(); k < slot.sgpr() + slot.count(); k++) {
                if (k >= 16 || taken[k]) {
                    throw new VulkanException("RADV's user-data locations do not read as Mesa 22.3's (s" + k
                            + " is out of range or used twice)");
                }
                taken[k] = true;
            }
            total += slot.count();
        }
        if (total != userSgprCount()) {
            throw new VulkanException("RADV's user-data locations cover " + total + " SGPRs but COMPUTE_PGM_RSRC2 says "
                    + userSgprCount() + " user SGPRs: the binary does not read as Mesa 22.3's");
        }
        for (int s = 0; s < MAX_SETS; s++) {
            if (sets[s].used() != ((setsEnabled >>> s & 1) != 0) && !shaderData[UD_INDIRECT_DESCRIPTOR_SETS].used()) {
                throw new VulkanException("RADV's descriptor_sets_enabled does not match its set locations (set " + s + ")");
            }
        }
    }

    private long stat(String name) throws VulkanException {
        String v = stats.get(name);
        if (v == null) {
            throw new VulkanException("RADV reported no \"" + name + "\" statistic (statistics: " + stats.keySet() + ")");
        }
        return Long.parseLong(v);
    }

    public String device() {
        return device;
    }

    /** e.g. "radv Mesa 22.3.6". */
    public String driver() {
        return driver;
    }

    public String mesaVersion() {
        return mesaVersion;
    }

    public int waveSize() {
        return subgroupSize;
    }

    public Map<String, String> stats() {
        return stats;
    }

    public Map<String, String> irs() {
        return irs;
    }

    public List<AsmLine> assembly() {
        return assembly;
    }

    public int[] code() {
        return code.clone();
    }

    public int rsrc1() {
        return rsrc1;
    }

    public int rsrc2() {
        return rsrc2;
    }

    public int rsrc3() {
        return rsrc3;
    }

    public int floatMode() {
        return floatMode;
    }

    public int scratchBytesPerWave() {
        return scratchBytesPerWave;
    }

    public long inlinePushMask() {
        return inlinePushMask;
    }

    public Slot set(int s) {
        return sets[s];
    }

    public Slot shaderData(int index) {
        return shaderData[index];
    }

    public int userSgprCount() {
        return rsrc2 >>> 1 & 0x1F;
    }

    public boolean scratchEnabled() {
        return (rsrc2 & 1) != 0;
    }

    public boolean workgroupId(int dim) {
        return (rsrc2 >>> (7 + dim) & 1) != 0;
    }

    public boolean tgSize() {
        return (rsrc2 >>> 10 & 1) != 0;
    }

    /** COMPUTE_PGM_RSRC2.TIDIG_COMP_CNT: 0 x, 1 x and y, 2 x, y and z. */
    public int workItemIdComponents() {
        return rsrc2 >>> 11 & 3;
    }

    /** LDS bytes per workgroup (COMPUTE_PGM_RSRC2.LDS_SIZE, in 512-byte granules on gfx10). */
    public int ldsBytes() {
        return (rsrc2 >>> 15 & 0x1FF) * 512;
    }

    /**
     * VGPRs per lane the pipeline allocates: COMPUTE_PGM_RSRC1.VGPRS granules (8 in wave32, 4 in wave64), plus
     * in wave64 the shared VGPRs COMPUTE_PGM_RSRC3.SHARED_VGPR_CNT gives in granules of 8 (gfx10), which follow
     * the regular ones.
     */
    public int vgprCount() {
        int regular = ((rsrc1 & 0x3F) + 1) * (subgroupSize == 32 ? 8 : 4);
        return regular + (subgroupSize == 64 ? (rsrc3 & 0xF) * 8 : 0);
    }

    public boolean ieeeMode() {
        return (rsrc1 >>> 23 & 1) != 0;
    }

    public boolean dx10Clamp() {
        return (rsrc1 >>> 21 & 1) != 0;
    }
}
