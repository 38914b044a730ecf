package org.replayfarm.evalnode.hostmodel.image;

import java.nio.ByteBuffer;
import org.replayfarm.evalnode.hostmodel.memory.GroupMemory;
import org.replayfarm.evalnode.hostmodel.semantics.Semantics;
import org.replayfarm.evalnode.hostmodel.wave.GuestFault;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.capture.TexelLayout;
import org.replayfarm.model.image.ImageFormat;
import org.replayfarm.model.image.TexelCodec;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.model.isa.MemoryAccess;
import org.replayfarm.model.isa.Opcode;
import org.replayfarm.model.isa.OpcodeFlag;
import org.replayfarm.proto.Image;
import org.replayfarm.proto.NumericFormat;

/**
 * The fast tier's image_load and image_store: 1D and 2D, no mip level in the address, no D16, TFE, LWE or A16,
 * every VGPR inside the allocation (otherwise null: the reference handler runs). The T#'s words are resolved to
 * a view once and remembered per instruction (the same words resolve the same way for one kernel: a miss runs
 * {@link ImageView#of}, which faults where the reference does); per lane the texel index is computed from the
 * level's base and row pitch ({@link TexelLayout#texelIndex}'s formula), a captured texel is read from the
 * image's buffer without a copy and decoded by per-channel tables for 8-bit channels (built from {@link
 * TexelCodec#decode}, so bit for bit its values) or as raw bits for 32-bit FLOAT/UINT/SINT channels, a store
 * encoded channel by channel through {@link TexelCodec#encodeChannel}. A texel the group itself stored reads
 * through {@link TexelCodec#decode}, and any other format the same. A view whose level 0 or first layer is not
 * one the fast path can take (outside the view, or missing from the capture: a fault) runs the reference
 * handler for the whole instruction, before any lane, so faults and partial writes stay the reference's.
 */
public final class ImageFast {
    private ImageFast() {
    }

    /** The fast form of an image_load / image_store, or null when the reference handler should run it. */
    public static Semantics of(Instruction insn, int vgprs) {
        Opcode op = insn.opcode();
        MemoryAccess a = op.memory();
        if (a == null || a.isAtomic() || !op.has(OpcodeFlag.COORDS) || op.has(OpcodeFlag.LOD)
                || op.has(OpcodeFlag.SAMPLER) || op.has(OpcodeFlag.GATHER4) || op.has(OpcodeFlag.BVH)
                || a.isLoad() == a.isStore() || !(insn.fields() instanceof Fields.Mimg m)) {
            return null;
        }
        if (m.d16() || m.tfe() || m.lwe() || m.a16() || m.dim() > 1) {
            return null;
        }
        int coords = m.dim() == 0 ? 1 : 2;
        int[] address = new int[coords];
        try {
            for (int k = 0; k < coords; k++) {
                address[k] = ImageUnit.addressVgpr(m, k);
                if (address[k] < 0 || address[k] >= vgprs) {
                    return null;
                }
            }
        } catch (GuestFault e) {
            return null;
        }
        int dmask = m.dmask() == 0 ? 1 : m.dmask();
        int regs = Integer.bitCount(dmask);
        if (m.vdata() < 0 || m.vdata() + regs > vgprs) {
            return null;
        }
        Site site = new Site(insn, m, address, dmask);
        return a.isLoad() ? (w, i) -> site.load(w) : (w, i) -> site.store(w);
    }

    /** One image instruction: its resolved operands and the view its last T# resolved to. */
    private static final class Site {
        private final Instruction insn;
        private final Fields.Mimg m;
        private final int[] address;
        private final int dmask;
        /** The last resolution (immutable; replaced whole, so a racing reader sees one or the other). */
        private Target last;

        Site(Instruction insn, Fields.Mimg m, int[] address, int dmask) {
            this.insn = insn;
            this.m = m;
            this.address = address;
            this.dmask = dmask;
        }

        /** The T# in the instruction's SGPRs resolved to a view, as {@link ImageView#of} (which faults the same). */
        private Target target(Wave w) {
            int count = m.r128() ? 4 : 8;
            int s = m.srsrc();
            Target t = last;
            if (t != null) {
                boolean same = t.images == w.group().images(); // a group of the in-order pass reads other texels
                for (int i = 0; i < count && same; i++) {
                    same = w.sgpr(s + i) == t.words[i];
                }
                if (same) {
                    return t;
                }
            }
            int[] words = new int[count];
            for (int i = 0; i < count; i++) {
                words[i] = w.sgpr(s + i);
            }
            t = new Target(words, ImageView.of(w, s, m.r128()), m, dmask, w.group().images());
            last = t;
            return t;
        }

        void load(Wave w) {
            if (ImageView.isNull(w, m.srsrc())) {
                ImageUnit.load(w, insn, false);
                return;
            }
            Target t = target(w);
            long exec = w.exec();
            if (exec == 0) {
                return;
            }
            if (!t.usual) {
                ImageUnit.load(w, insn, false);
                return;
            }
            int n = w.waveSize();
            int[] v = w.vgprFile();
            int ax = address[0] * n;
            int ay = address.length > 1 ? address[1] * n : -1;
            int data = m.vdata() * n;
            int regs = t.source.length;
            GroupMemory memory = w.group().memory();
            boolean own = memory.hasOwnTexels();
            ByteBuffer texels = t.texels;
            int bpt = t.bytesPerTexel;
            for (long lanes = exec; lanes != 0; lanes &= lanes - 1) {
                int l = Long.numberOfTrailingZeros(lanes);
                long texel = t.texel(v[ax + l], ay < 0 ? 0 : v[ay + l]);
                if (texel < 0) {
                    for (int r = 0; r < regs; r++) {
                        v[data + r * n + l] = 0;
                    }
                    continue;
                }
                byte[] mine = own ? memory.ownTexel(t.index, texel) : null;
                if (mine != null || t.kind == Target.GENERIC) {
                    int[] channels = TexelCodec.decode(t.format, mine != null ? mine : t.bytes(texel), 0);
                    for (int r = 0; r < regs; r++) {
                        int c = t.source[r];
                        v[data + r * n + l] = c >= 0 ? channels[c] : t.constant[r];
                    }
                    continue;
                }
                int at = Math.toIntExact(texel * bpt);
                for (int r = 0; r < regs; r++) {
                    int c = t.source[r];
                    int value;
                    if (c < 0) {
                        value = t.constant[r];
                    } else if (t.kind == Target.BYTES) {
                        value = t.table[c][texels.get(at + c) & 0xFF];
                    } else {
                        int p = at + 4 * c;
                        value = texels.get(p) & 0xFF | (texels.get(p + 1) & 0xFF) << 8 | (texels.get(p + 2) & 0xFF) << 16
                                | (texels.get(p + 3) & 0xFF) << 24;
                    }
                    v[data + r * n + l] = value;
                }
            }
        }

        void store(Wave w) {
            if (ImageView.isNull(w, m.srsrc())) {
                return;
            }
            Target t = target(w);
            long exec = w.exec();
            if (exec == 0) {
                return;
            }
            if (!t.usual) {
                ImageUnit.store(w, insn, false);
                return;
            }
            int n = w.waveSize();
            int[] v = w.vgprFile();
            int ax = address[0] * n;
            int ay = address.length > 1 ? address[1] * n : -1;
            int data = m.vdata() * n;
            GroupMemory memory = w.group().memory();
            ImageFormat f = t.format;
            int[] bits = t.bits;
            int[] channels = new int[4];
            for (long lanes = exec; lanes != 0; lanes &= lanes - 1) {
                int l = Long.numberOfTrailingZeros(lanes);
                long texel = t.texel(v[ax + l], ay < 0 ? 0 : v[ay + l]);
                if (texel < 0) {
                    continue;
                }
                // DMASK-enabled channels from VDATA up, the others 0, in storage order
                int k = 0;
                for (int c = 0; c < 4; c++) {
                    channels[c] = (dmask >>> c & 1) != 0 ? v[data + (k++) * n + l] : 0;
                }
                byte[] value;
                if (t.kind == Target.GENERIC) {
                    value = TexelCodec.encode(f, channels);
                } else {
                    value = new byte[t.bytesPerTexel];
                    int width = bits[0] / 8;
                    for (int c = 0; c < bits.length; c++) {
                        long raw = TexelCodec.encodeChannel(f, bits[c], c, channels[c]);
                        for (int b = 0; b < width; b++) {
                            value[c * width + b] = (byte) (raw >>> (8 * b));
                        }
                    }
                }
                memory.storeTexel(t.index, texel, value, l);
            }
        }
    }

    /** A T# resolved for the fast path: the view's level 0, first layer and texel decoding. */
    private static final class Target {
        static final int GENERIC = 0;
        /** Every channel 8 bits: per-channel tables of the 256 register values. */
        static final int BYTES = 1;
        /** Every channel 32 bits of FLOAT, UINT or SINT: the register is the raw bits. */
        static final int WORDS = 2;

        final int[] words;
        final int index;
        final ImageFormat format;
        final int[] bits;
        final int bytesPerTexel;
        final ByteBuffer texels;
        /** The images the view was resolved in (the texels above are theirs). */
        final org.replayfarm.evalnode.hostmodel.InitialImages images;
        final int kind;
        final int[][] table;
        /** Per VDATA register of a load: the storage channel it reads, or -1 for {@link #constant}. */
        final int[] source;
        final int[] constant;
        /** Whether the fast path takes the view (level 0 and the first layer inside the view and the capture). */
        final boolean usual;
        private final long base;
        private final long pitch;
        private final int width;
        private final int height;

        Target(int[] words, ImageView view, Fields.Mimg m, int dmask, org.replayfarm.evalnode.hostmodel.InitialImages images) {
            this.words = words;
            this.images = images;
            this.index = view.index;
            this.format = view.format;
            this.bits = format.channelBits();
            this.bytesPerTexel = format.bytesPerTexel();
            this.texels = view.entry().texels();
            Image image = view.image;
            int level = view.imageLevel(0);
            int physical = view.firstLayer();
            usual = level >= 0 && level < image.getMipLevels() && view.layers() >= 1
                    && physical < Math.max(1, image.getLayers());
            if (usual) {
                width = view.width(level);
                height = view.height(level);
                base = TexelLayout.texelIndex(image, new TexelLayout.Texel(level, physical, 0, 0, 0));
                pitch = TexelLayout.mipExtent(Integer.toUnsignedLong(image.getWidth()), level);
            } else {
                width = height = 0;
                base = pitch = 0;
            }
            boolean allBytes = true;
            boolean allWords = true;
            for (int b : bits) {
                allBytes &= b == 8;
                allWords &= b == 32;
            }
            NumericFormat numeric = format.numeric();
            allWords &= numeric == NumericFormat.NUM_FLOAT || numeric == NumericFormat.NUM_UINT
                    || numeric == NumericFormat.NUM_SINT;
            kind = allBytes ? BYTES : allWords ? WORDS : GENERIC;
            // the four storage-order channel values, as TexelCodec decodes them, for each byte value
            int[][] t = null;
            int[] zero = TexelCodec.decode(format, new byte[bytesPerTexel], 0);
            if (kind == BYTES) {
                t = new int[bits.length][256];
                for (int b = 0; b < 256; b++) {
                    byte[] texel = new byte[bytesPerTexel];
                    java.util.Arrays.fill(texel, (byte) b);
                    int[] c = TexelCodec.decode(format, texel, 0);
                    for (int k = 0; k < bits.length; k++) {
                        t[k][b] = c[k];
                    }
                }
            }
            table = t;
            // DST_SEL then DMASK, as ImageView.select and ImageUnit.writeData: each VDATA register's channel
            int one = format.integer() ? 1 : Float.floatToRawIntBits(1.0f);
            int regs = Integer.bitCount(dmask);
            source = new int[regs];
            constant = new int[regs];
            int r = 0;
            for (int c = 0; c < 4; c++) {
                if ((dmask >>> c & 1) == 0) {
                    continue;
                }
                int sel = view.descriptor.dstSel()[c];
                int channel = sel >= 4 ? sel - 4 : -1;
                if (channel >= bits.length) {
                    // a channel the format lacks: TexelCodec's default, the same for every texel
                    constant[r] = zero[channel];
                    channel = -1;
                } else if (channel < 0) {
                    constant[r] = sel == 1 ? one : 0;
                }
                source[r++] = channel;
            }
        }

        /** The texel at (x, y) of the view's level 0 and first layer, or -1 outside the level (as ImageView.texel). */
        long texel(int x, int y) {
            if (x < 0 || y < 0 || x >= width || y >= height) {
                return -1;
            }
            return base + y * pitch + x;
        }

        /** The captured texel's bytes (a copy). */
        byte[] bytes(long texel) {
            byte[] out = new byte[bytesPerTexel];
            texels.get(Math.toIntExact(texel * bytesPerTexel), out);
            return out;
        }
    }
}
