package io.rdmakv.common.cluster;

import io.rdmakv.common.hash.KeyHash;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClusterMapTest
{
    private static final ClusterNode A = new ClusterNode(1, "10.0.0.1", 7400);
    private static final ClusterNode B = new ClusterNode(2, "10.0.0.2", 7400);
    private static final ClusterNode C = new ClusterNode(5, "fd00::3", 7401);

    @Test
    void roundRobinOverNodesInIdOrder()
    {
        final ClusterMap map = ClusterMap.of(4, List.of(C, A, B));
        assertEquals(4, map.epoch());
        assertEquals(64, map.partitionCount());
        assertEquals(List.of(A, B, C), map.nodes());
        assertSame(A, map.nodeFor(0));
        assertSame(B, map.nodeFor(1));
        assertSame(C, map.nodeFor(2));
        assertSame(A, map.nodeFor(63));
        assertArrayEquals(new int[] {0, 3, 6, 9}, Arrays.copyOf(map.partitionsOf(1), 4));
        assertEquals(22, map.partitionsOf(1).length);
        assertEquals(21, map.partitionsOf(5).length);
        assertEquals(0, map.partitionsOf(9).length);
        assertSame(C, map.node(5));
        assertNull(map.node(3));
        assertThrows(IllegalArgumentException.class, () -> map.nodeFor(64));
        assertThrows(IllegalArgumentException.class, () -> map.nodeFor(-1));
    }

    @Test
    void keysGoToThePartitionOfTheirHash()
    {
        final ClusterMap map = ClusterMap.of(1, List.of(A, B));
        final long hash = KeyHash.hash("user:1".getBytes(StandardCharsets.UTF_8));
        assertEquals(KeyHash.partition(hash, 64), map.partitionOf(hash));
        assertSame(map.nodeFor(map.partitionOf(hash)), map.nodeForKeyHash(hash));
        assertEquals(63, map.partitionOf(-1L));
    }

    @Test
    void jsonRoundTrips()
    {
        final ClusterMap map = new ClusterMap(9, 4, List.of(A, B, C), new int[] {5, 5, 1, 2});
        final String json = map.toJson();
        assertEquals(
            "{\"epoch\":9,\"partitions\":4,\"nodes\":[{\"id\":1,\"host\":\"10.0.0.1\",\"port\":7400}," +
            "{\"id\":2,\"host\":\"10.0.0.2\",\"port\":7400},{\"id\":5,\"host\":\"fd00::3\",\"port\":7401}]," +
            "\"assignment\":[5,5,1,2]}", json);
        assertEquals(map, ClusterMap.fromJson(json));
        assertEquals(map, ClusterMap.fromJson(json.getBytes(StandardCharsets.UTF_8)));
        assertEquals(map.hashCode(), ClusterMap.fromJson(json).hashCode());
        assertSame(C, map.nodeFor(0));
        assertEquals("[fd00::3]:7401", C.address());
    }

    @Test
    void readsTheShortForm()
    {
        final ClusterMap map = ClusterMap.fromJson(
            "{ \"epoch\": 2, \"nodes\": [ {\"id\": 2, \"host\": \"b\", \"port\": 1}, " +
            "{\"id\": 1, \"host\": \"a\", \"port\": 1} ] }");
        assertEquals(64, map.partitionCount());
        assertEquals(ClusterMap.of(2, List.of(new ClusterNode(1, "a", 1), new ClusterNode(2, "b", 1))), map);
        assertEquals(1, map.nodeFor(0).id());
        assertEquals(map, ClusterMap.fromJson(map.toJson()));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
        not json                                                          | cluster map is not valid JSON
        []                                                                | cluster map must be a JSON object
        {}                                                                | cluster map: "epoch" must be an integer
        {"epoch":1.5,"nodes":[]}                                          | cluster map: "epoch" must be an integer
        {"epoch":1}                                                       | cluster map: "nodes" must be an array of nodes
        {"epoch":1,"nodes":[]}                                            | cluster map has no nodes
        {"epoch":-1,"nodes":[{"id":1,"host":"a","port":1}]}               | cluster map epoch -1 is negative
        {"epoch":1,"nodes":[{"id":1,"host":"a","port":1}],"extra":0}      | cluster map: unknown field "extra"
        {"epoch":1,"nodes":[{"id":1,"host":"a","port":1,"zone":"x"}]}     | cluster map node #0: unknown field "zone"
        {"epoch":1,"nodes":[{"id":1,"port":1}]}                           | cluster map node #0: "host" must be a string
        {"epoch":1,"nodes":[{"id":1,"host":"a","port":0}]}                | node 1 port 0 outside 1..65535
        {"epoch":1,"nodes":[{"id":1,"host":"a","port":65536}]}            | node 1 port 65536 outside 1..65535
        {"epoch":1,"nodes":[{"id":1,"host":"a","port":"80"}]}             | cluster map node #0: "port" must be an integer
        {"epoch":1,"nodes":[{"id":1,"host":" ","port":1}]}                | node 1 has no host
        {"epoch":1,"nodes":[{"id":-2,"host":"a","port":1}]}               | node id -2 is negative
        {"epoch":1,"nodes":[7]}                                           | cluster map node #0 must be an object
        {"epoch":1,"partitions":0,"nodes":[{"id":1,"host":"a","port":1}]} | cluster map partition count 0 outside 1..65536
        {"epoch":1,"partitions":1,"nodes":[{"id":1,"host":"a","port":1},{"id":2,"host":"b","port":1}]} | cluster map has 1 partitions for 2 nodes
        {"epoch":1,"nodes":[{"id":1,"host":"a","port":1},{"id":1,"host":"b","port":1}]} | cluster map lists node id 1 twice
        {"epoch":1,"nodes":[{"id":1,"host":"a","port":1},{"id":2,"host":"a","port":1}]} | cluster map nodes 1 and 2 share the address a:1
        {"epoch":1,"partitions":2,"nodes":[{"id":1,"host":"a","port":1}],"assignment":[1]}   | cluster map assigns 1 partitions, it has 2
        {"epoch":1,"partitions":2,"nodes":[{"id":1,"host":"a","port":1}],"assignment":[1,3]} | assigns partition 1 to node 3, which it does not list
        {"epoch":1,"partitions":1,"nodes":[{"id":1,"host":"a","port":1}],"assignment":["1"]} | "assignment"[0] must be a node id
        {"epoch":1,"partitions":1,"nodes":[{"id":1,"host":"a","port":1}],"assignment":5}     | "assignment" must be an array of node ids
        {"epoch":1,"epoch":2,"nodes":[{"id":1,"host":"a","port":1}]}      | cluster map is not valid JSON
        {"epoch":1,"nodes":[{"id":1,"host":"a","port":1}]} trailing       | cluster map is not valid JSON
        """)
    void rejectsBadMapsNamingTheProblem(final String json, final String expected)
    {
        final InvalidClusterMapException ex = assertThrows(InvalidClusterMapException.class, () -> ClusterMap.fromJson(json));
        assertTrue(ex.getMessage().contains(expected), ex.getMessage());
    }

    @Test
    void rejectsBadMapsBuiltInCode()
    {
        assertThrows(InvalidClusterMapException.class, () -> ClusterMap.of(1, List.of()));
        assertThrows(InvalidClusterMapException.class, () -> ClusterMap.of(1, null));
        assertThrows(InvalidClusterMapException.class, () -> new ClusterMap(1, 70_000, List.of(A), null));
        assertThrows(InvalidClusterMapException.class, () -> new ClusterNode(1, "x".repeat(256), 1));
        assertThrows(IllegalArgumentException.class, () -> new ClusterNode(1, null, 1));
    }

    @Test
    void copiesItsAssignment()
    {
        final int[] assignment = {1, 2};
        final ClusterMap map = new ClusterMap(1, 2, List.of(A, B), assignment);
        assignment[0] = 2;
        map.assignment()[1] = 1;
        assertArrayEquals(new int[] {1, 2}, map.assignment());
    }
}
