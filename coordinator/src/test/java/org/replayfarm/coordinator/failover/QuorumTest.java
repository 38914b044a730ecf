package org.replayfarm.coordinator.failover;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Which side of a partition a coordinator is on, as keep-majority decides it, and what it says when it loses. */
@Tag("unit")
class QuorumTest {
    private static final String C = "akka://farm@127.0.0.2:25520";
    private static final String E1 = "akka://farm@127.0.0.3:25520";
    private static final String E2 = "akka://farm@127.0.0.4:25520";
    private static final String E3 = "akka://farm@127.0.0.5:25520";

    @Test
    void a_coordinator_that_sees_every_member_is_not_cut_off() {
        assertEquals(Optional.empty(), Quorum.cutOff(C, List.of(C, E1, E2), Set.of()));
    }

    @Test
    void a_coordinator_that_lost_one_of_three_keeps_the_majority() {
        assertEquals(Optional.empty(), Quorum.cutOff(C, List.of(C, E1, E2), Set.of(E2)));
    }

    @Test
    void a_coordinator_cut_off_from_both_evaluators_is_the_minority_and_says_why() {
        String why = Quorum.cutOff(C, List.of(C, E1, E2), Set.of(E1, E2)).orElseThrow();
        assertTrue(why.contains("cut off from the majority") && why.contains("1 of 3") && why.contains(E1)
                && why.contains(E2), why);
    }

    @Test
    void at_exactly_half_the_side_with_the_lowest_address_stays() {
        // the coordinator holds the lowest address: its half stays, the other half does not
        assertEquals(Optional.empty(), Quorum.cutOff(C, List.of(C, E1, E2, E3), Set.of(E2, E3)));
        assertTrue(Quorum.cutOff(E2, List.of(C, E1, E2, E3), Set.of(C, E1)).isPresent());
    }
}
