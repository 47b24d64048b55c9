package io.rdmakv.client.internal.op;

import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;

/** A scripted node, a manual clock, and two lanes to it (sessions 7 and 8): what most data-path tests need. */
abstract class TwoLanes
{
    protected final CachedNanoClock clock = new CachedNanoClock();
    protected final NodeRegion node = new NodeRegion();
    protected final TestLane lane = new TestLane(node, clock, 7);
    protected final TestLane other = new TestLane(node, clock, 8);

    @AfterEach
    void closeLanesAndNode()
    {
        lane.close();
        other.close();
        node.close();
    }
}
