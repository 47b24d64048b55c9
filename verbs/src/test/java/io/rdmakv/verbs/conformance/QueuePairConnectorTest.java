package io.rdmakv.verbs.conformance;

import io.rdmakv.verbs.ConnectionSetup;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.Providers;
import io.rdmakv.verbs.VerbsConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The connector's choice of setup and its ticket check. Needs no device (tcp). */
final class QueuePairConnectorTest
{
    @Test
    void theSetupIsAutoUnlessThePropertyNamesOne()
    {
        final String before = System.getProperty(QueuePairConnector.CM_PROPERTY);
        try
        {
            System.clearProperty(QueuePairConnector.CM_PROPERTY);
            assertEquals(ConnectionSetup.AUTO, QueuePairConnector.requestedSetup());
            System.setProperty(QueuePairConnector.CM_PROPERTY, " rdmacm ");
            assertEquals(ConnectionSetup.RDMACM, QueuePairConnector.requestedSetup());
            System.setProperty(QueuePairConnector.CM_PROPERTY, "exchange");
            assertEquals(ConnectionSetup.EXCHANGE, QueuePairConnector.requestedSetup());
            System.setProperty(QueuePairConnector.CM_PROPERTY, "ib_cm");
            assertThrows(IllegalArgumentException.class, QueuePairConnector::requestedSetup);
        }
        finally
        {
            if (before == null)
            {
                System.clearProperty(QueuePairConnector.CM_PROPERTY);
            }
            else
            {
                System.setProperty(QueuePairConnector.CM_PROPERTY, before);
            }
        }
    }

    @Test
    void tcpExchangesWhateverThePropertySays()
    {
        final String before = System.getProperty(QueuePairConnector.CM_PROPERTY);
        try (Context tcp = Providers.open(Providers.TCP, VerbsConfig.DEFAULT))
        {
            for (final String setup : ConnectionSetup.NAMES)
            {
                System.setProperty(QueuePairConnector.CM_PROPERTY, setup);
                assertFalse(QueuePairConnector.usesConnectionManager(tcp), setup);
            }
        }
        finally
        {
            if (before == null)
            {
                System.clearProperty(QueuePairConnector.CM_PROPERTY);
            }
            else
            {
                System.setProperty(QueuePairConnector.CM_PROPERTY, before);
            }
        }
    }

    @Test
    void aTicketMatchesAloneOrPaddedWithZerosOnly()
    {
        final byte[] ticket = {1, 2, 3, 4};
        assertTrue(QueuePairConnector.carries(new byte[] {1, 2, 3, 4}, ticket));
        assertTrue(QueuePairConnector.carries(new byte[] {1, 2, 3, 4, 0, 0}, ticket));
        assertFalse(QueuePairConnector.carries(new byte[] {1, 2, 3, 4, 0, 9}, ticket));
        assertFalse(QueuePairConnector.carries(new byte[] {1, 2, 3}, ticket));
        assertFalse(QueuePairConnector.carries(new byte[] {1, 2, 3, 5}, ticket));
        assertFalse(QueuePairConnector.carries(null, ticket));
    }
}
