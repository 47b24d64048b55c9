package io.rdmakv.server;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SelfCheckTest
{
    private static final String LIMITS = """
        Limit                     Soft Limit           Hard Limit           Units
        Max cpu time              unlimited            unlimited            seconds
        Max locked memory         8388608              unlimited            bytes
        Max address space         unlimited            unlimited            bytes
        """;

    @Test
    void readsTheLockedMemoryLimit()
    {
        assertEquals("limit 8388608 bytes (hard limit unlimited)", SelfCheck.memlock(LIMITS));
        assertEquals("limit unlimited (hard limit unlimited)",
            SelfCheck.memlock("Max locked memory         unlimited            unlimited            bytes\n"));
        assertTrue(SelfCheck.memlock(null).contains("unknown"));
    }

    @Test
    void readsTheTransparentHugePageMode()
    {
        assertEquals("madvise", SelfCheck.thpMode("always [madvise] never\n"));
        assertEquals("never", SelfCheck.thpMode("always madvise [never]\n"));
        assertTrue(SelfCheck.thpMode(null).contains("unavailable"));
    }

    @Test
    void saysWhetherHugePagesWereRequestedAndTaken()
    {
        assertTrue(SelfCheck.hugePages(false, false).startsWith("not requested"));
        assertTrue(SelfCheck.hugePages(true, true).contains("accepted"));
        assertTrue(SelfCheck.hugePages(true, false).contains("refused"));
    }
}
