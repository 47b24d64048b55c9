package io.rdmakv.verbs.util;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AcceptFailuresTest
{
    private static final long S = 1_000_000_000L;

    @Test
    void backOffDoublesUpToItsCapThenGivesUpAfterTheFatalTime()
    {
        final AcceptFailures f = new AcceptFailures(5 * S);
        assertTrue(f.healthy());
        assertEquals(AcceptFailures.MIN_BACKOFF_NANOS, f.failed(0));
        assertFalse(f.healthy());
        assertEquals(2 * AcceptFailures.MIN_BACKOFF_NANOS, f.failed(1));
        final List<Long> later = new ArrayList<>();
        for (int i = 0; i < 20; i++)
        {
            later.add(f.failed(2 + i));
        }
        assertEquals(AcceptFailures.MAX_BACKOFF_NANOS, later.getLast(), "capped");
        assertEquals(AcceptFailures.GIVE_UP, f.failed(5 * S), "failing for the whole fatal time");
        assertEquals(5, f.fatalAfterSeconds());
    }

    @Test
    void aSuccessEndsTheRunAndSaysItRecovered()
    {
        final AcceptFailures f = new AcceptFailures(5 * S);
        assertFalse(f.succeeded(), "no failures to recover from");
        f.failed(0);
        f.failed(4 * S);
        assertTrue(f.succeeded());
        assertTrue(f.healthy());
        assertEquals(AcceptFailures.MIN_BACKOFF_NANOS, f.failed(9 * S), "a new run starts afresh, not fatal");
    }
}
