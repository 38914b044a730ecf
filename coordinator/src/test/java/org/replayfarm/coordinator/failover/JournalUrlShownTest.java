package org.replayfarm.coordinator.failover;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A journal URL shown in {@code GET /status}, sent to the other coordinators and logged in the two-journals
 * warning carries no credentials: no options, no query, no user information.
 */
@Tag("unit")
class JournalUrlShownTest {
    @Test
    void credentials_and_options_are_left_out() {
        assertEquals("jdbc:postgresql://db.example:5432/replay",
                Coordinators.publishable("jdbc:postgresql://db.example:5432/replay?user=replay&password=s3cret"));
        assertEquals("jdbc:postgresql://db.example/replay",
                Coordinators.publishable("jdbc:postgresql://replay:s3cret@db.example/replay"));
        assertEquals("jdbc:h2:file:/var/lib/replay/journal",
                Coordinators.publishable("jdbc:h2:file:/var/lib/replay/journal;MODE=PostgreSQL;PASSWORD=x"));
        assertEquals("jdbc:postgresql://localhost/replay", Coordinators.publishable("jdbc:postgresql://localhost/replay"));
        assertEquals("jdbc:postgresql://host/db@2", Coordinators.publishable("jdbc:postgresql://host/db@2"),
                "an @ after the host is part of the path, not user information");
    }
}
