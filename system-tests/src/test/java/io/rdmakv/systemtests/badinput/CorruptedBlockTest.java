package io.rdmakv.systemtests.badinput;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RegionView;
import org.junit.jupiter.api.Test;

/**
 * A flipped byte in a stored block (value, key, length field): a GET never returns wrong bytes. It
 * retries a bounded number of times and fails with a KvException (not a connection failure: the lane
 * stays up), and every other key still reads fine on the same client.
 */
class CorruptedBlockTest extends CorruptionFixture
{
    @Test
    void flippedValueByteIsNeverReturned()
    {
        final RegionView.Slot slot = view.find(key);
        view.flip(view.valueOffset(slot) + 5);
        report("value byte, client with the slot cached", getFails(writer));
        othersReadFine(writer);
        try (KvClient fresh = LocalCluster.client(server))
        {
            report("value byte, fresh client", getFails(fresh));
            othersReadFine(fresh);
        }
    }

    @Test
    void flippedKeyByteIsNeverReturned()
    {
        final RegionView.Slot slot = view.find(key);
        view.flip(slot.blockOffset() + KvBlockDescriptor.KEY_OFFSET + 1);
        report("key byte", getFails(writer));
        othersReadFine(writer);
    }

    @Test
    void flippedLengthFieldIsNeverTrusted()
    {
        final RegionView.Slot slot = view.find(key);
        view.flip(slot.blockOffset() + KvBlockDescriptor.VALUE_LENGTH_OFFSET + 1);
        report("value length field", getFails(writer));
        othersReadFine(writer);
    }
}
