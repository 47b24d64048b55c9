package io.rdmakv.server.health;

import io.rdmakv.server.metrics.Readiness;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NodeHealthTest
{
    @Test
    void aListenerThatCannotAcceptTakesReadinessDownUntilItRecovers()
    {
        final NodeHealth health = new NodeHealth();
        final Readiness readiness = new Readiness();
        readiness.requires(health::isHealthy);
        readiness.ready();
        assertTrue(readiness.isReady());
        health.impaired("bootstrap listener");
        assertFalse(readiness.isReady(), "not ready while a listener cannot accept");
        health.recovered("bootstrap listener");
        assertTrue(readiness.isReady());
    }

    @Test
    void aFatalErrorIsReportedOnceWithItsFirstReasonAndForGood()
    {
        final NodeHealth health = new NodeHealth();
        final List<String> seen = new ArrayList<>();
        health.onFatal(seen::add);
        health.fatal("accept: Too many open files");
        health.fatal("something later");
        assertEquals(List.of("accept: Too many open files"), seen);
        assertFalse(health.isHealthy());
        final List<String> late = new ArrayList<>();
        health.onFatal(late::add);
        assertEquals(List.of("accept: Too many open files"), late, "a listener added afterwards still hears it");
    }
}
