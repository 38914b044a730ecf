package org.replayfarm.coordinator.failover;

import akka.cluster.Member;
import akka.cluster.MemberStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.StreamSupport;

/**
 * Whether this node is on the side of a partition that the split-brain resolver will stop, as its
 * {@code keep-majority} strategy (Akka's default, the farm's) decides: the side that reaches more than half of
 * the members counted (Up and Leaving) stays; at exactly half, the side holding the member with the lowest
 * address stays. A coordinator on the other side answers writes with 503 saying so ({@code CoordinatorHttp}),
 * instead of accepting a job that its downing would leave to a restart (issue 36: "a coordinator cut off from the
 * majority stops accepting and says why").
 */
public final class Quorum {
    private Quorum() {
    }

    /**
     * Why {@code self} is cut off from the majority, or empty when it is not. {@code members}: the addresses the
     * resolver counts, lowest first (Akka's member order); {@code unreachable}: those this node sees unreachable.
     */
    public static Optional<String> cutOff(String self, List<String> members, Set<String> unreachable) {
        if (unreachable.isEmpty() || members.isEmpty()) {
            return Optional.empty();
        }
        List<String> reached = new ArrayList<>(members);
        reached.removeAll(unreachable);
        int n = members.size();
        int r = reached.size();
        boolean minority = 2 * r < n || 2 * r == n && unreachable.contains(members.get(0));
        if (!minority) {
            return Optional.empty();
        }
        List<String> lost = members.stream().filter(unreachable::contains).toList();
        return Optional.of("this coordinator (" + self + ") is cut off from the majority of its cluster: it reaches "
                + r + " of " + n + " members (unreachable: " + String.join(", ", lost) + "), so the split-brain "
                + "resolver (keep-majority) will stop this side; it accepts nothing it could not finish. Ask a "
                + "coordinator on the majority side, or again once the network heals");
    }

    /**
     * {@link #cutOff(String, List, Set)} over the cluster state {@code system}'s node has now, counting the members
     * of {@code keep-majority.role} when one is set. Under another strategy than keep-majority this node cannot
     * tell which side stays: it never says it is cut off.
     */
    public static Optional<String> cutOff(akka.actor.typed.ActorSystem<?> system) {
        var sbr = system.settings().config().getConfig("akka.cluster.split-brain-resolver");
        if (!sbr.getString("active-strategy").equals("keep-majority")) {
            return Optional.empty();
        }
        String role = sbr.getString("keep-majority.role");
        akka.cluster.typed.Cluster cluster = akka.cluster.typed.Cluster.get(system);
        var state = cluster.state();
        List<Member> counted = new ArrayList<>();
        StreamSupport.stream(state.getMembers().spliterator(), false)
                .filter(m -> m.status() == MemberStatus.up() || m.status() == MemberStatus.leaving())
                .filter(m -> role.isEmpty() || m.hasRole(role))
                .forEach(counted::add);
        counted.sort(Member.ordering());
        Set<String> unreachable = new java.util.HashSet<>();
        state.getUnreachable().forEach(m -> unreachable.add(m.address().toString()));
        return cutOff(cluster.selfMember().address().toString(),
                counted.stream().map(m -> m.address().toString()).toList(), unreachable);
    }
}
