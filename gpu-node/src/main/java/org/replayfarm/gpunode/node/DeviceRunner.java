package org.replayfarm.gpunode.node;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorRefResolver;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Behavior;
import akka.actor.typed.Props;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.receptionist.Receptionist;
import akka.actor.typed.receptionist.ServiceKey;
import akka.cluster.typed.Cluster;
import com.google.protobuf.Message;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.replayfarm.gpunode.cuda.CubinLines;
import org.replayfarm.gpunode.cuda.CudaBackend;
import org.replayfarm.gpunode.cuda.GuestPcMap;
import org.replayfarm.gpunode.device.CudaCpuBackend;
import org.replayfarm.gpunode.device.DeviceBackend;
import org.replayfarm.gpunode.device.DeviceEvent;
import org.replayfarm.gpunode.device.DeviceRequest;
import org.replayfarm.gpunode.device.DeviceRun;
import org.replayfarm.gpunode.translate.LaunchBundle;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.proto.DeviceFault;
import org.replayfarm.proto.DeviceQuery;
import org.replayfarm.proto.DeviceRunEvent;
import org.replayfarm.proto.DeviceRunOutput;
import org.replayfarm.proto.DeviceRunTask;
import org.replayfarm.proto.DeviceWindowSeen;
import org.replayfarm.proto.GpuDeviceInfo;
import org.replayfarm.proto.GpuPcSampleBatch;
import org.replayfarm.proto.GpuSamplingWindowV1;
import org.replayfarm.proto.GuestHotspot;
import org.replayfarm.proto.GuestStall;
import org.replayfarm.proto.PcSample;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The GPU node's device runner: registered with the receptionist under {@link #KEY}, it answers
 * {@link DeviceQuery} with the node's {@link GpuDeviceInfo} and runs each {@link DeviceRunTask} on its one
 * launching thread (the thread PC sampling is driven from): fetches the capture, runs the backend, streams
 * {@link DeviceRunEvent}s (started, each launch, each sampling window) and sends the outputs in chunks,
 * with the device's faults and the hottest guest instructions its PC samples were traced to. A run that
 * fails is an output with {@code error} set; the node serves on.
 */
public final class DeviceRunner {
    /** Where GPU nodes register their runner: it takes {@link DeviceQuery} and {@link DeviceRunTask}, as protobuf messages. */
    public static final ServiceKey<Message> KEY = ServiceKey.create(Message.class, "gpu-device-runner");

    /**
     * What the runner takes. The questions and tasks cross the wire as the protobuf messages they are (the
     * protobuf serializer, unchanged): the runner registers a message adapter under {@link #KEY}, and
     * advertises it as its {@code runner} ref, that wraps each into a {@link Query} or {@link Run}; any
     * other message sent there becomes {@link Unknown} and is refused with a log line naming it.
     */
    public sealed interface Command extends akka.actor.NoSerializationVerificationNeeded permits Query, Run, Unknown {
    }

    /** Answer the node's {@link GpuDeviceInfo} to the query's {@code reply_to}. */
    public record Query(DeviceQuery query) implements Command {
    }

    /** Run the task on the launching thread; events and output chunks go to its {@code reply_to}. */
    public record Run(DeviceRunTask task) implements Command {
    }

    /** A message the runner does not take (a sender's mistake). */
    public record Unknown(Message message) implements Command {
    }

    /** The wire message as the runner's protocol. */
    static Command wrap(Message m) {
        if (m instanceof DeviceQuery q) {
            return new Query(q);
        } else if (m instanceof DeviceRunTask t) {
            return new Run(t);
        }
        return new Unknown(m);
    }
    private static final Logger LOG = LoggerFactory.getLogger(DeviceRunner.class);
    /** How many guest instructions a run's hotspot list keeps. */
    public static final int HOTTEST = 20;

    private final ActorSystem<?> system;
    private final DeviceBackend backend;
    private final GpuDeviceInfo info;
    private final CaptureFetch fetch;
    private final GpuNode gpu;
    private final ExecutorService launcher;
    private final String node;

    private DeviceRunner(ActorSystem<?> system, DeviceBackend backend, GpuDeviceInfo info, CaptureFetch fetch, GpuNode gpu) {
        this.system = system;
        this.backend = backend;
        this.info = info;
        this.fetch = fetch;
        this.gpu = gpu;
        this.node = Cluster.get(system).selfMember().address().toString();
        this.launcher = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "gpu-launcher");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Starts the runner. {@code backend} null: the node has no usable device ({@code info} says why) and
     * answers every task with that error. {@code gpu}: the node's sampling (its session's hooks run around
     * each launch when the backend is {@code cuda}).
     */
    public static ActorRef<Command> start(ActorSystem<?> system, DeviceBackend backend, GpuDeviceInfo info, Path cacheDir,
                                          GpuNode gpu) {
        DeviceRunner r = new DeviceRunner(system, backend, info, new CaptureFetch(cacheDir), gpu);
        if (backend instanceof CudaBackend cuda && gpu != null) {
            cuda.hooks(gpu.launchHooks());
        }
        system.getWhenTerminated().thenRun(r.launcher::shutdownNow);
        return system.systemActorOf(r.behavior(), "gpu-device-runner", Props.empty());
    }

    private Behavior<Command> behavior() {
        return Behaviors.setup(ctx -> {
            ActorRef<Message> wire = ctx.messageAdapter(Message.class, DeviceRunner::wrap);
            ctx.getSystem().receptionist().tell(Receptionist.register(KEY, wire));
            String self = ActorRefResolver.get(system).toSerializationFormat(wire);
            GpuDeviceInfo me = info.toBuilder().setNodeAddress(node).setRunner(self).build();
            LOG.info("device runner on {}: {} ({})", node, me.getBackend(), me.getAvailable() ? me.getWhy()
                    : "takes no device runs: " + me.getWhy());
            return Behaviors.receive(Command.class)
                    .onMessage(Query.class, q -> {
                        ActorRefResolver.get(system).<GpuDeviceInfo>resolveActorRef(q.query().getReplyTo()).tell(me);
                        return Behaviors.same();
                    })
                    .onMessage(Run.class, r -> {
                        launcher.execute(() -> run(r.task()));
                        return Behaviors.same();
                    })
                    .onMessage(Unknown.class, u -> {
                        LOG.error("device runner on {}: refused a message it does not take: {}", node,
                                u.message().getDescriptorForType().getFullName());
                        return Behaviors.same();
                    })
                    .build();
        });
    }

    private void run(DeviceRunTask task) {
        ActorRef<Message> reply = ActorRefResolver.get(system).resolveActorRef(task.getReplyTo());
        DeviceRunEvent.Builder ev = DeviceRunEvent.newBuilder().setJobId(task.getJobId()).setAttempt(task.getAttempt())
                .setNodeAddress(node);
        DeviceRunOutput.Builder out = DeviceRunOutput.newBuilder().setJobId(task.getJobId()).setAttempt(task.getAttempt())
                .setNodeAddress(node).setKind(info.getBackend()).setLabel(info.getLabel());
        List<PcSample> samples = new ArrayList<>();
        AutoCloseable tap = null;
        long started = System.nanoTime();
        try {
            if (backend == null) {
                throw new org.replayfarm.gpunode.device.DeviceException("GPU node " + node + " has no usable device: "
                        + info.getWhy());
            }
            if (gpu != null) {
                tap = gpu.tap((Message m) -> {
                    if (m instanceof GpuSamplingWindowV1 w) {
                        reply.tell(ev.clone().setWindow(DeviceWindowSeen.newBuilder().setSequence(w.getSequence())
                                .setStartNs(w.getStartNs()).setEndNs(w.getEndNs())).build());
                    } else if (m instanceof GpuPcSampleBatch b) {
                        samples.addAll(b.getSamplesList());
                    }
                });
            }
            CaptureFile capture = CaptureFile.open(fetch.fetch(task.getCaptureSha256(), task.getCaptureUrl()));
            DeviceRun run = backend.run(new DeviceRequest(capture, task.getCaptureSha256(), task.getJobId()), e -> {
                if (e instanceof DeviceEvent.Started s) {
                    reply.tell(ev.clone().setStartedLabel(s.label()).build());
                } else if (e instanceof DeviceEvent.Executed x) {
                    reply.tell(ev.clone().setLaunch(DeviceRunCodec.launch(x.execution())).build());
                }
            });
            DeviceRunCodec.output(run, out);
            faults(out);
            hotspots(out, samples);
            LOG.info("device run of job {} (attempt {}) on {}: {} launch(es), {} s", task.getJobId(), task.getAttempt(),
                    backend.kind(), run.executions().size(), (System.nanoTime() - started) / 1e9);
        } catch (Exception | LinkageError e) {
            String why = e.getMessage() == null ? e.toString() : e.getMessage();
            LOG.error("device run of job {} (attempt {}) failed: {}", task.getJobId(), task.getAttempt(), why);
            out.clearRanges().clearImages().setError(why);
        } finally {
            if (tap != null) {
                try {
                    tap.close();
                } catch (Exception ignored) {
                    // the list removal cannot fail
                }
            }
        }
        for (var c : DeviceRunCodec.chunks(out.build())) {
            reply.tell(c);
        }
    }

    private void faults(DeviceRunOutput.Builder out) {
        LaunchBundle.Result r = null;
        if (backend instanceof CudaBackend c && c.lastOutcome() != null) {
            r = c.lastOutcome().result();
        } else if (backend instanceof CudaCpuBackend c && c.lastOutcome() != null) {
            r = c.lastOutcome().result();
        }
        if (r == null) {
            return;
        }
        for (int g = 0; g < r.groups().size(); g++) {
            LaunchBundle.GroupOutcome o = r.groups().get(g);
            if (o.faulted()) {
                out.addFaults(DeviceFault.newBuilder().setGroup(g).setCode(o.code()).setWave(o.wave()).setLane(o.lane())
                        .setPc(o.pc()).setAddress(o.address()));
            }
        }
    }

    /**
     * The run's PC samples traced through the module's cubin to guest instructions: by the cubin's CRC as CUPTI
     * computes it (samples of other modules are set apart), by function name where no CRC is known.
     */
    private void hotspots(DeviceRunOutput.Builder out, List<PcSample> samples) {
        if (samples.isEmpty() || !(backend instanceof CudaBackend c) || c.lastOutcome() == null) {
            return;
        }
        try {
            byte[] cubin = java.nio.file.Files.readAllBytes(c.lastOutcome().built().cubin());
            long crc = moduleCrc(cubin);
            GuestPcMap map = new GuestPcMap(CubinLines.read(cubin), c.lastOutcome().translation().listing(), crc);
            GuestPcMap.Attribution a = map.attribute(samples(samples), HOTTEST);
            out.setSamplesAttributed(a.attributed()).setSamplesUnattributed(a.unattributed() + a.otherModules());
            out.addAllHotspots(toProto(a.hottest()));
            if (a.otherModules() > 0 && a.attributed() == 0) {
                LOG.warn("no PC sample's cubin CRC is the run's cubin's (0x{}): {} samples set apart as other modules'",
                        Long.toHexString(crc), a.otherModules());
            } else if (a.otherModules() > 0) {
                LOG.info("{} PC samples were of other modules than the run's (cubin CRC 0x{})", a.otherModules(),
                        Long.toHexString(crc));
            }
        } catch (java.io.IOException | IllegalArgumentException e) {
            LOG.warn("PC samples could not be traced to guest instructions: {}", e.getMessage());
        }
    }

    /** The samples as the map takes them (the wire's CRC, 0 where the sampler gave none). */
    public static List<GuestPcMap.Sample> samples(List<PcSample> samples) {
        return samples.stream().map(s -> new GuestPcMap.Sample(s.getFunction(), s.getCubinCrc(), s.getPcOffset(),
                s.getStallReason(), s.getSamples())).toList();
    }

    /** CUPTI's CRC of the run's cubin, through the node's sampler; 0 (name-only mapping) where it has none. */
    private long moduleCrc(byte[] cubin) {
        if (gpu == null) {
            return 0;
        }
        try {
            return gpu.session().sampler().cubinCrc(cubin).orElse(0);
        } catch (org.replayfarm.gpunode.sampling.PcSampler.SamplingException e) {
            LOG.warn("the module's cubin CRC is not known ({}): PC samples are placed by function name only", e.getMessage());
            return 0;
        }
    }

    public static List<GuestHotspot> toProto(List<GuestPcMap.Hotspot> hot) {
        List<GuestHotspot> out = new ArrayList<>();
        for (GuestPcMap.Hotspot h : hot) {
            GuestHotspot.Builder b = GuestHotspot.newBuilder().setGuestPc(h.guestPc()).setLine(h.line()).setText(h.text())
                    .setSamples(h.samples());
            h.stallReasons().forEach((r, n) -> b.addStalls(GuestStall.newBuilder().setReason(r).setSamples(n)));
            out.add(b.build());
        }
        return out;
    }
}
