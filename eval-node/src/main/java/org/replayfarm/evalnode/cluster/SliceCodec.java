package org.replayfarm.evalnode.cluster;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.replayfarm.evalnode.hostmodel.AtomicContribution;
import org.replayfarm.evalnode.hostmodel.FaultRecord;
import org.replayfarm.evalnode.hostmodel.GroupResult;
import org.replayfarm.evalnode.hostmodel.StoreRun;
import org.replayfarm.evalnode.hostmodel.TexelAtomic;
import org.replayfarm.evalnode.hostmodel.TexelStore;
import org.replayfarm.proto.AtomicMessage;
import org.replayfarm.proto.Dispatch;
import org.replayfarm.proto.FaultMessage;
import org.replayfarm.proto.GroupId;
import org.replayfarm.proto.GroupOutcome;
import org.replayfarm.proto.GroupRange;
import org.replayfarm.proto.SliceResult;
import org.replayfarm.proto.SliceResultChunk;
import org.replayfarm.proto.SliceTask;
import org.replayfarm.proto.StoreRunMessage;
import org.replayfarm.proto.TexelAtomicMessage;
import org.replayfarm.proto.TexelStoreBatch;
import org.replayfarm.proto.TexelStoreMessage;

/**
 * The wire forms of a slice: group results to and from {@link GroupOutcome}, the deterministic result
 * hash, the groups a task names, and results cut into bounded chunks and put back together.
 */
public final class SliceCodec {
    /** The most payload bytes one chunk carries (Artery's default frame is 256 KiB). */
    public static final int CHUNK_BYTES = 128 * 1024;

    private SliceCodec() {
    }

    public static GroupOutcome encode(GroupResult r) {
        GroupOutcome.Builder b = GroupOutcome.newBuilder()
                .setGroup(GroupId.newBuilder().setX(r.x()).setY(r.y()).setZ(r.z()))
                .setWaveInstructions(r.waveInstructions()).setLaneInstructions(r.laneInstructions())
                .setExact(r.exact()).setApproximate(r.approximate()).setUnsupported(r.unsupported());
        for (StoreRun s : r.stores()) {
            b.addStores(StoreRunMessage.newBuilder().setRange(s.range()).setOffset(s.offset())
                    .setData(ByteString.copyFrom(s.data())));
        }
        addTexelBatches(b, r.texels());
        for (AtomicContribution a : r.atomics()) {
            b.addAtomics(AtomicMessage.newBuilder().setRange(a.range()).setOffset(a.offset()).setOp(a.op())
                    .setBytes(a.bytes()).setOperand(a.operand()).setComparand(a.comparand()).setReturned(a.returned()));
        }
        for (TexelAtomic a : r.texelAtomics()) {
            b.addTexelAtomics(TexelAtomicMessage.newBuilder().setImage(a.image()).setTexel(a.texel()).setOp(a.op())
                    .setBytes(a.bytes()).setOperand(a.operand()).setComparand(a.comparand()).setReturned(a.returned()));
        }
        r.fault().ifPresent(f -> b.setFault(FaultMessage.newBuilder().setGroupX(f.groupX()).setGroupY(f.groupY())
                .setGroupZ(f.groupZ()).setWave(f.wave()).setLane(f.lane()).setPc(f.pc())
                .setInstruction(f.instruction()).setMessage(f.message())));
        return b.build();
    }

    /** The group's texel stores, in order, as batches: a new batch where the image or the texel size changes. */
    private static void addTexelBatches(GroupOutcome.Builder b, List<TexelStore> stores) {
        int i = 0;
        while (i < stores.size()) {
            TexelStore first = stores.get(i);
            int bpt = first.value().length;
            int end = i;
            while (end < stores.size() && stores.get(end).image() == first.image() && stores.get(end).value().length == bpt) {
                end++;
            }
            TexelStoreBatch.Builder batch = TexelStoreBatch.newBuilder().setImage(first.image()).setBytesPerTexel(bpt);
            byte[] values = new byte[(end - i) * bpt];
            for (int k = i; k < end; k++) {
                TexelStore t = stores.get(k);
                batch.addTexels(t.texel());
                System.arraycopy(t.value(), 0, values, (k - i) * bpt, bpt);
            }
            b.addTexelBatches(batch.setValues(ByteString.copyFrom(values)));
            i = end;
        }
    }

    public static GroupResult decode(GroupOutcome o) {
        List<StoreRun> stores = new ArrayList<>(o.getStoresCount());
        for (StoreRunMessage s : o.getStoresList()) {
            stores.add(new StoreRun(s.getRange(), s.getOffset(), s.getData().toByteArray()));
        }
        List<TexelStore> texels = new ArrayList<>(o.getTexelsCount());
        for (TexelStoreMessage t : o.getTexelsList()) {
            texels.add(new TexelStore(t.getImage(), t.getTexel(), t.getValue().toByteArray()));
        }
        for (TexelStoreBatch batch : o.getTexelBatchesList()) {
            int bpt = batch.getBytesPerTexel();
            ByteString values = batch.getValues();
            if ((long) batch.getTexelsCount() * bpt != values.size()) {
                throw new IllegalArgumentException("a texel store batch of image " + batch.getImage() + " holds "
                        + values.size() + " value bytes for " + batch.getTexelsCount() + " texels of " + bpt + " bytes");
            }
            byte[] all = values.toByteArray();
            for (int i = 0; i < batch.getTexelsCount(); i++) {
                texels.add(new TexelStore(batch.getImage(), batch.getTexels(i),
                        java.util.Arrays.copyOfRange(all, i * bpt, (i + 1) * bpt)));
            }
        }
        List<AtomicContribution> atomics = new ArrayList<>(o.getAtomicsCount());
        for (AtomicMessage a : o.getAtomicsList()) {
            atomics.add(new AtomicContribution(a.getRange(), a.getOffset(), a.getOp(), a.getBytes(), a.getOperand(),
                    a.getComparand(), a.getReturned()));
        }
        List<TexelAtomic> texelAtomics = new ArrayList<>(o.getTexelAtomicsCount());
        for (TexelAtomicMessage a : o.getTexelAtomicsList()) {
            texelAtomics.add(new TexelAtomic(a.getImage(), a.getTexel(), a.getOp(), a.getBytes(), a.getOperand(),
                    a.getComparand(), a.getReturned()));
        }
        Optional<FaultRecord> fault = Optional.empty();
        if (o.hasFault()) {
            FaultMessage f = o.getFault();
            fault = Optional.of(new FaultRecord(f.getGroupX(), f.getGroupY(), f.getGroupZ(), f.getWave(), f.getLane(),
                    f.getPc(), f.getInstruction(), f.getMessage()));
        }
        GroupId g = o.getGroup();
        return new GroupResult(g.getX(), g.getY(), g.getZ(), stores, texels, atomics, texelAtomics, fault, o.getWaveInstructions(),
                o.getLaneInstructions(), o.getExact(), o.getApproximate(), o.getUnsupported());
    }

    /** SHA-256 over each outcome's deterministic serialization, in order. */
    public static byte[] hash(List<GroupOutcome> outcomes) {
        MessageDigest digest = sha256();
        try {
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            for (GroupOutcome o : outcomes) {
                buffer.reset();
                CodedOutputStream out = CodedOutputStream.newInstance(buffer);
                out.useDeterministicSerialization();
                out.writeUInt32NoTag(o.getSerializedSize());
                o.writeTo(out);
                out.flush();
                digest.update(buffer.toByteArray());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return digest.digest();
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The groups a task names, in order, each checked against the dispatch. */
    public static List<int[]> groups(SliceTask task, Dispatch d) {
        List<int[]> groups = new ArrayList<>();
        long gx = d.getGroupCountX();
        long gy = d.getGroupCountY();
        long total = gx * gy * d.getGroupCountZ();
        for (GroupRange r : task.getRangesList()) {
            if (r.getStart() < 0 || r.getStart() + r.getCount() > total) {
                throw new IllegalArgumentException("slice " + task.getSliceId() + ": groups [" + r.getStart() + ", "
                        + (r.getStart() + r.getCount()) + ") are outside the dispatch's " + total + " groups");
            }
            for (long i = r.getStart(); i < r.getStart() + r.getCount(); i++) {
                groups.add(new int[] {(int) (i % gx), (int) (i / gx % gy), (int) (i / (gx * gy))});
            }
        }
        for (GroupId g : task.getGroupsList()) {
            if (Integer.compareUnsigned(g.getX(), d.getGroupCountX()) >= 0
                    || Integer.compareUnsigned(g.getY(), d.getGroupCountY()) >= 0
                    || Integer.compareUnsigned(g.getZ(), d.getGroupCountZ()) >= 0) {
                throw new IllegalArgumentException("slice " + task.getSliceId() + ": group (" + g.getX() + ", "
                        + g.getY() + ", " + g.getZ() + ") is outside the dispatch");
            }
            groups.add(new int[] {g.getX(), g.getY(), g.getZ()});
        }
        return groups;
    }

    /** The result cut into chunks of at most {@code maxBytes} payload bytes (at least one chunk). */
    public static List<SliceResultChunk> chunks(SliceResult r, int maxBytes) {
        ByteString all = r.toByteString();
        List<SliceResultChunk> chunks = new ArrayList<>();
        int seq = 0;
        int at = 0;
        do {
            int end = Math.min(all.size(), at + maxBytes);
            chunks.add(SliceResultChunk.newBuilder().setJobId(r.getJobId()).setSliceId(r.getSliceId())
                    .setAttempt(r.getAttempt()).setNodeAddress(r.getNodeAddress()).setSequence(seq++)
                    .setLast(end == all.size()).setPayload(all.substring(at, end)).build());
            at = end;
        } while (at < all.size());
        return chunks;
    }

    /** Puts chunks (in sequence order, the last one last) back into the result. */
    public static SliceResult join(List<SliceResultChunk> chunks) {
        return parse(joinBytes(chunks));
    }

    /** A result's bytes, as {@link #join} reads them. */
    public static SliceResult parse(ByteString all) {
        try {
            return SliceResult.parseFrom(all);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalArgumentException("slice result does not parse: " + e.getMessage(), e);
        }
    }

    /**
     * The serialized result the chunks carry (in sequence order, the last one last), not parsed: whoever keeps
     * the result's bytes (the coordinator's journal) keeps these instead of serializing the parsed result again.
     */
    public static ByteString joinBytes(List<SliceResultChunk> chunks) {
        ByteString all = ByteString.EMPTY;
        for (int i = 0; i < chunks.size(); i++) {
            SliceResultChunk c = chunks.get(i);
            if (c.getSequence() != i || c.getLast() != (i == chunks.size() - 1)) {
                throw new IllegalArgumentException("chunk " + c.getSequence() + " of slice " + c.getSliceId()
                        + " arrived out of sequence (expected " + i + ")");
            }
            all = all.concat(c.getPayload());
        }
        return all;
    }
}
