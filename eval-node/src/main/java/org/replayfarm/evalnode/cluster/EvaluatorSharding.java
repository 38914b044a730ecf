package org.replayfarm.evalnode.cluster;

import akka.actor.Address;
import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.cluster.sharding.ShardCoordinator;
import akka.cluster.sharding.typed.ShardingEnvelope;
import akka.cluster.sharding.typed.ShardingMessageExtractor;
import akka.cluster.sharding.typed.javadsl.ClusterSharding;
import akka.cluster.sharding.typed.javadsl.Entity;
import akka.cluster.sharding.typed.javadsl.EntityTypeKey;
import akka.cluster.typed.Cluster;
import akka.dispatch.Futures;
import java.util.Map;
import java.util.Set;
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
    public static final EntityTypeKey<Object> TYPE_KEY = EntityTypeKey.create(Object.class, "Evaluator");
    public static final String ROLE = "eval";
    private static final char SEP = '|';

    private EvaluatorSharding() {
    }

    /**
     * Starts sharding of evaluators on this node: a region when {@code node} is given (an evaluator
     * node), a proxy otherwise. Returns the ref to send {@link ShardingEnvelope}s to.
     */
    public static ActorRef<ShardingEnvelope<Object>> init(ActorSystem<?> system, EvaluatorNode node) {
        Address self = Cluster.get(system).selfMember().address();
        DrainingTopic.get(system); // every node joins the topic now, long before anyone drains
        if (node != null) {
            DrainingTopic.announceOnShutdown(system);
        }
        Entity<Object, ShardingEnvelope<Object>> entity = Entity.of(TYPE_KEY, ctx -> {
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

    static final class Extractor extends ShardingMessageExtractor<ShardingEnvelope<Object>, Object> {
        @Override
        public String entityId(ShardingEnvelope<Object> envelope) {
            return envelope.entityId();
        }

        @Override
        public String shardId(String entityId) {
            int at = entityId.indexOf(SEP);
            return at < 0 ? entityId : entityId.substring(0, at);
        }

        @Override
        public Object unwrapMessage(ShardingEnvelope<Object> envelope) {
            return envelope.message();
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
