package io.rdmakv.common.layout;

import io.rdmakv.common.hash.KeyHash;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VersionSaltTest
{
    private static final long SEGMENT = KeyHash.segment(64, 16);

    @Test
    void aMapWithoutSegmentsHasNoSalt()
    {
        assertEquals(VersionSalt.NONE, VersionSalt.of(3, 1, KeyHash.WHOLE_INDEX));
    }

    @Test
    void theSamePlacementHasTheSameSaltAndAnotherGroupOrSegmentAnother()
    {
        final long salt = VersionSalt.of(3, 1, SEGMENT);
        assertEquals(salt, VersionSalt.of(3, 1, SEGMENT), "a client and the copier compute one salt");
        assertNotEquals(salt, VersionSalt.of(3, 2, SEGMENT), "the same segment numbers on another group");
        assertNotEquals(salt, VersionSalt.of(3, 1, KeyHash.segment(64, 32)), "another segment on the same group");
        assertNotEquals(salt, VersionSalt.of(4, 1, SEGMENT), "another partition");
    }

    @Test
    void oneWordOnTwoGroupsGivesTwoVersions()
    {
        // identical data areas hand out identical offsets: the same word for a key on both groups of a move
        final long word = SlotWord.encodeBlock(0x5A, 4096, 128);
        final Set<Long> versions = new HashSet<>();
        for (int group = 0; group < 64; group++)
        {
            assertTrue(versions.add(word ^ VersionSalt.of(7, group, SEGMENT)), "group " + group);
        }
    }
}
