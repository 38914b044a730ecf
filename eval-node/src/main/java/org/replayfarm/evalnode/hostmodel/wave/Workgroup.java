package org.replayfarm.evalnode.hostmodel.wave;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.evalnode.hostmodel.memory.GroupMemory;

/**
 * One workgroup in flight, owning its waves, its LDS, its private (scratch) memory and its view of guest
 * memory. Created per group by {@link HostModel#runGroup}; never shared between threads.
 */
public final class Workgroup {
    private final Kernel kernel;
    private final int[] id;
    private final List<Wave> waves = new ArrayList<>();
    private final ByteBuffer lds;
    private final Scratch scratch;
    private final GroupMemory memory;
    private final org.replayfarm.evalnode.hostmodel.InitialImages images;

    public Workgroup(Kernel kernel, int x, int y, int z) {
        this(kernel, kernel.memory(), x, y, z);
    }

    /**
     * A group that reads {@code memory} instead of the capture's initial memory (the same ranges at the same
     * addresses: the memory earlier groups left, when groups run one after another in a defined order).
     */
    public Workgroup(Kernel kernel, org.replayfarm.evalnode.hostmodel.InitialMemory memory, int x, int y, int z) {
        this(kernel, memory, kernel.images(), x, y, z);
    }

    /** As above, the group's images reading {@code images} (what earlier groups left of the capture's). */
    public Workgroup(Kernel kernel, org.replayfarm.evalnode.hostmodel.InitialMemory memory,
                     org.replayfarm.evalnode.hostmodel.InitialImages images, int x, int y, int z) {
        this.kernel = kernel;
        this.images = images;
        this.id = new int[] {x, y, z};
        this.lds = ByteBuffer.allocate(kernel.ldsBytes()).order(ByteOrder.LITTLE_ENDIAN);
        this.scratch = new Scratch((int) Math.min(Integer.MAX_VALUE - 8,
                (long) kernel.scratchBytesPerLane() * kernel.waveSize() * kernel.wavesPerGroup()));
        this.memory = new GroupMemory(memory);
    }

    public Kernel kernel() {
        return kernel;
    }

    /** The images' texels this group starts from: the capture's, or what earlier groups left of them. */
    public org.replayfarm.evalnode.hostmodel.InitialImages images() {
        return images;
    }

    /** The group's id in x (0), y (1) or z (2). */
    public int id(int axis) {
        return id[axis];
    }

    public List<Wave> waves() {
        return waves;
    }

    public void add(Wave wave) {
        waves.add(wave);
    }

    /** The group's LDS, little-endian, {@link Kernel#ldsBytes()} long. */
    public ByteBuffer lds() {
        return lds;
    }

    /**
     * The group's scratch: {@code scratchBytesPerLane * waveSize} bytes per wave, wave after wave, at
     * guest addresses from {@link org.replayfarm.model.build.GuestLayout#SCRATCH_BASE} (the base the
     * capture hands the kernel; each wave's private segment wave offset points at its part).
     */
    public Scratch scratch() {
        return scratch;
    }

    public GroupMemory memory() {
        return memory;
    }
}
