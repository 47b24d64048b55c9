package io.rdmakv.server.cluster.map;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The operator's {@code rebalance/request} znode is input anyone with the ZooKeeper credential writes: it round-trips,
 * and anything malformed is refused with a reason ({@code IllegalArgumentException}, which the coordinator logs and
 * ignores), never an exception of another kind that would stop its planning.
 */
class MoveRequestTest
{
    private static MoveRequest parse(final String json)
    {
        return MoveRequest.fromJson(3, json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aRequestRoundTrips()
    {
        final MoveRequest request = parse("{\"moves\": [{\"partitions\": [3, 5], \"target\": 1}], \"cancel\": [2001]}");
        assertEquals(1, request.moves().size());
        assertArrayEquals(new int[] {3, 5}, request.moves().getFirst().partitions());
        assertEquals(1, request.moves().getFirst().target());
        assertEquals(List.of(2001L), request.cancel());
        assertEquals(request, MoveRequest.fromJson(3, request.toJson()));
    }

    @Test
    void malformedRequestsAreRefusedWithAReason()
    {
        for (final String bad : new String[] {"", "not json", "[1, 2]", "{\"moves\": 7}", "{\"unknown\": 1}",
            "{\"moves\": [{\"partitions\": 3, \"target\": 1}]}", "{\"moves\": [{\"partitions\": [\"x\"], \"target\": 1}]}",
            "{\"moves\": [{\"partitions\": [1]}]}", "{\"cancel\": [\"x\"]}"})
        {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse(bad), bad);
            assertTrue(e.getMessage().startsWith("move request"), e.getMessage());
        }
    }
}
