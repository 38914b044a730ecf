package org.replayfarm.evalnode.cluster;

import akka.actor.NoSerializationVerificationNeeded;
import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorRefResolver;
import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.Behaviors;
import java.util.concurrent.CompletionException;
import org.replayfarm.proto.SliceResult;
import org.replayfarm.proto.SliceResultChunk;
import org.replayfarm.proto.SliceTask;

/**
 * The sharded evaluator entity: one per slice attempt. It evaluates the slice on its node's
 * {@link EvaluatorNode} (the evaluator dispatcher, never Akka's default one), sends the result to the
 * job in chunks of at most {@link SliceCodec#CHUNK_BYTES}, and stops.
 *
 * <p>A node leaving gracefully hands its shards off; sharding then sends each entity {@link #HAND_OFF}.
 * An entity still evaluating finishes its slice and sends the result first (the region waits for it,
 * within the coordinated-shutdown phase's timeout), so the job gets the work instead of sending the slice
 * again; an idle one stops at once.
 */
public final class Evaluator {
    /**
     * What the entity takes: a slice to evaluate ({@link Slice}, the wire's {@link SliceTask} as sharding
     * delivers it), sharding's stop message ({@link HandOff}) and its own result ({@link Evaluated}). None
     * crosses nodes as such: the task travels as the protobuf message, and
     * the extractor on the hosting node wraps it ({@link EvaluatorSharding}).
     */
    public sealed interface Command extends NoSerializationVerificationNeeded permits Slice, HandOff, Evaluated {
    }

    /** Evaluate this slice attempt and send the result to its {@code reply_to} in chunks. */
    public record Slice(SliceTask task) implements Command {
    }

    /** Sharding's stop message for this entity (the node is leaving or the shard moves). */
    public record HandOff() implements Command {
    }

    /** The one stop message, given to sharding's entity definition. */
    public static final HandOff HAND_OFF = new HandOff();

    /** The evaluation of the slice ended (the result carries an error when it failed). */
    record Evaluated(SliceTask task, SliceResult result) implements Command {
    }

    private Evaluator() {
    }

    public static Behavior<Command> create(EvaluatorNode node) {
        return Behaviors.setup(ctx -> Behaviors.receive(Command.class)
                .onMessage(Slice.class, slice -> {
                    SliceTask task = slice.task();
                    if (task.getCancel()) {
                        // the attempt ended here already (its entity stopped) or never came: nothing to stop
                        return Behaviors.stopped();
                    }
                    ctx.getLog().debug("slice {} attempt {} of job {}", task.getSliceId(), task.getAttempt(), task.getJobId());
                    DrainingTopic.get(ctx.getSystem()).remember(task.getDrainTo());
                    if (!task.getTargetNode().isEmpty() && !task.getTargetNode().equals(node.address())) {
                        ctx.getLog().warn("slice {} of job {} was meant for {} but its shard lives here ({})",
                                task.getSliceId(), task.getJobId(), task.getTargetNode(), node.address());
                    }
                    java.util.concurrent.atomic.AtomicBoolean cancelled = new java.util.concurrent.atomic.AtomicBoolean();
                    ctx.pipeToSelf(node.evaluate(task, cancelled::get), (result, failure) -> new Evaluated(task,
                            result != null ? result : SliceResult.newBuilder().setJobId(task.getJobId())
                                    .setSliceId(task.getSliceId()).setAttempt(task.getAttempt())
                                    .setNodeAddress(node.address()).setError(describe(failure)).build()));
                    return evaluating(ctx, node, cancelled);
                })
                .onMessage(HandOff.class, h -> Behaviors.stopped())
                .build());
    }

    private static Behavior<Command> evaluating(akka.actor.typed.javadsl.ActorContext<Command> ctx, EvaluatorNode node,
                                                java.util.concurrent.atomic.AtomicBoolean cancelled) {
        return Behaviors.receive(Command.class)
                .onMessage(Evaluated.class, done -> {
                    if (cancelled.get()) {
                        // the job that sent it has ended (cancelled or failed): nobody takes the result
                        ctx.getLog().info("slice {} attempt {} of job {} stopped: the job no longer wants it",
                                done.task().getSliceId(), done.task().getAttempt(), done.task().getJobId());
                        return Behaviors.stopped();
                    }
                    ActorRef<SliceResultChunk> replyTo = ActorRefResolver.get(ctx.getSystem())
                            .resolveActorRef(done.task().getReplyTo());
                    if (!done.result().getError().isEmpty()) {
                        ctx.getLog().error("slice {} of job {} failed: {}", done.task().getSliceId(),
                                done.task().getJobId(), done.result().getError());
                    }
                    for (SliceResultChunk c : SliceCodec.chunks(done.result(), SliceCodec.CHUNK_BYTES)) {
                        replyTo.tell(c);
                    }
                    return Behaviors.stopped();
                })
                .onMessage(Slice.class, again -> {
                    if (again.task().getCancel()) {
                        cancelled.set(true); // its groups stop at their next look; Evaluated follows
                    }
                    return Behaviors.same(); // the same attempt delivered twice: one answer
                })
                .onMessage(HandOff.class, h -> {
                    ctx.getLog().info("leaving: finishing the slice in progress before handing off");
                    return Behaviors.same();
                })
                .build();
    }

    static String describe(Throwable t) {
        Throwable c = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        return c.getMessage() == null ? c.toString() : c.getClass().getSimpleName() + ": " + c.getMessage();
    }
}
