package io.rdmakv.server;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

class HugePagesTest
{
    @Test
    void aHugePageRegionIsTwoMegabyteAlignedAndAdvisedWhereTheKernelHasThp() throws IOException
    {
        try (KvServer server = KvServer.start(ServerConfig.local(16L << 20).toBuilder().hugePages(true).build()))
        {
            assertEquals(0, server.regionSegment().address() % HugePages.HUGE_PAGE);
            assertEquals(Files.exists(SelfCheck.THP_ENABLED), server.hugePagesAdvised());
            server.regionSegment().set(java.lang.foreign.ValueLayout.JAVA_LONG, server.geometry().regionLength() - 8,
                42L);
        }
    }

    @Test
    void aPlainRegionIsNotAdvised() throws IOException
    {
        try (KvServer server = KvServer.start(ServerConfig.local(16L << 20)))
        {
            assertFalse(server.hugePagesAdvised());
        }
    }
}
