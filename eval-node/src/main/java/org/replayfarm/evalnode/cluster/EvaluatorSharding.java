package org.replayfarm.evalnode.cluster;

import akka.actor.Address;
import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.cluster.sharding.ShardCoordinator;
import akka.cluster.sharding.typed.ShardingMessageExtractor;
import akka.cluster.sharding.typed.javadsl.ClusterSharding;
import akka.cluster.sharding.typed.javadsl.Entity;
import akka.cluster.sharding.typed.javadsl.EntityTypeKey;
import akka.cluster.typed.Cluster;
import akka.dispatch.Futures;
import java.util.Map;
import java.util.Set;
import org.replayfarm.proto.SliceTask;
import scala.collection.immutable.IndexedSeq;
import scala.concurrent.Future;

/**
 * Cluster Sharding of the evaluator entities (role {@code eval}). An entity is one slice attempt; its id
 * starts with the address of the node the job chose for it, and that address is its shard: the
 * allocation strategy puts the shard on that node's region, so the job, which keeps a bounded number of
 * slices in flight per node, decides where each slice runs. Every node calls {@link #init} the same way
 * (evaluator nodes host regions, the others get a proxy).
 */
public final class EvaluatorSharding {
    public static final EntityTypeKey<Evaluator.Command> TYPE_KEY = EntityTypeKey.create(Evaluator.Command.class, "Evaluator");
    public static final String ROLE = "eval";
    private static final char SEP = '|';

    private EvaluatorSharding() {
    }

    /**
     * Starts sharding of evaluators on this node: a region when {@code node} is given (an evaluator
     * node), a proxy otherwise. Returns the ref to send {@link SliceTask}s to (each names its node).
     */
    public static ActorRef<SliceTask> init(ActorSystem<?> system, EvaluatorNode node) {
        Address self = Cluster.get(system).selfMember().address();
        DrainingTopic.get(system); // every node joins the topic now, long before anyone drains
        if (node != null) {
            DrainingTopic.announceOnShutdown(system);
        }
        Entity<Evaluator.Command, SliceTask> entity = Entity.of(TYPE_KEY, ctx -> {
                    if (node == null) {
                        throw new IllegalStateException("no evaluator runs on a node without the eval role");
                    }
                    return Evaluator.create(node);
                })
                .withRole(ROLE)
                .withStopMessage(Evaluator.HAND_OFF)
                .withMessageExtractor(new Extractor())
                .withAllocationStrategy(new ToChosenNode(self));
        return ClusterSharding.get(system).init(entity);
    }

    /** The id of a slice attempt's entity on {@code node}. */
    public static String entityId(String node, String jobId, long sliceId, int attempt) {
        return node + SEP + jobId + SEP + sliceId + SEP + attempt;
    }

    /**
     * A slice travels as its protobuf {@link SliceTask}, which names its entity itself (target node, job, slice,
     * attempt: {@link #entityId}); on the hosting node's shard it becomes the entity's {@link Evaluator.Slice}.
     * (Not a ShardingEnvelope: typed sharding unwraps those itself, past this extractor.)
     */
    static final class Extractor extends ShardingMessageExtractor<SliceTask, Evaluator.Command> {
        @Override
        public String entityId(SliceTask task) {
            return EvaluatorSharding.entityId(task.getTargetNode(), task.getJobId(), task.getSliceId(), task.getAttempt());
        }

        @Override
        public String shardId(String entityId) {
            int at = entityId.indexOf(SEP);
            return at < 0 ? entityId : entityId.substring(0, at);
        }

        @Override
        public Evaluator.Command unwrapMessage(SliceTask task) {
            return new Evaluator.Slice(task);
        }
    }

    /** Puts shard "ADDRESS" on the region of the node at ADDRESS; never rebalances. */
    static final class ToChosenNode extends ShardCoordinator.AbstractShardAllocationStrategy {
        private final Address self;

        ToChosenNode(Address self) {
            this.self = self;
        }

        @Override
        public Future<akka.actor.ActorRef> allocateShard(akka.actor.ActorRef requester, String shardId,
                                                         Map<akka.actor.ActorRef, IndexedSeq<String>> current) {
            akka.actor.ActorRef fallback = null;
            int fewest = Integer.MAX_VALUE;
            for (Map.Entry<akka.actor.ActorRef, IndexedSeq<String>> e : current.entrySet()) {
                Address a = e.getKey().path().address();
                String address = (a.hasLocalScope() ? self : a).toString();
                if (address.equals(shardId)) {
                    return Futures.successful(e.getKey());
                }
                if (e.getValue().size() < fewest) {
                    fewest = e.getValue().size();
                    fallback = e.getKey();
                }
            }
            return Futures.successful(fallback != null ? fallback : requester);
        }

        @Override
        public Future<Set<String>> rebalance(Map<akka.actor.ActorRef, IndexedSeq<String>> current,
                                             Set<String> rebalanceInProgress) {
            return Futures.successful(Set.of());
        }
    }
}
