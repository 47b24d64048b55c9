package io.rdmakv.common.hash;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KeyHashTest
{
    private static final int KEYS = 200_000;

    private static long keyHash(final int i)
    {
        return KeyHash.hash(("user" + i).getBytes(StandardCharsets.UTF_8));
    }

    /** Pearson's chi-square statistic of {@code counts} against a uniform expectation. */
    private static double chiSquare(final long[] counts, final long total)
    {
        final double expected = (double)total / counts.length;
        double sum = 0;
        for (final long count : counts)
        {
            sum += (count - expected) * (count - expected) / expected;
        }
        return sum;
    }

    /** A bound that a uniform distribution exceeds with negligible probability: dof + 6 standard deviations. */
    private static double bound(final int bins)
    {
        final int dof = bins - 1;
        return dof + 6 * Math.sqrt(2.0 * dof);
    }

    @Test
    void keyHashIsXxh64WithSeedZero()
    {
        final byte[] key = "abc".getBytes(StandardCharsets.US_ASCII);
        assertEquals(0x44BC2CF5AD770999L, KeyHash.hash(key));
        assertEquals(0x44BC2CF5AD770999L, KeyHash.hash(MemorySegment.ofArray(key), 0, 3));
        assertEquals(0x44BC2CF5AD770999L, KeyHash.hash("xabcx".getBytes(StandardCharsets.US_ASCII), 1, 3));
    }

    @Test
    void derivedValuesArePinned()
    {
        final long h = 0x44BC2CF5AD770999L;
        assertEquals(0x44, KeyHash.fingerprint(h));
        assertEquals((int)Long.remainderUnsigned(h, 64), KeyHash.partition(h, 64));
        assertEquals(Math.unsignedMultiplyHigh(KeyHash.fmix64(h ^ KeyHash.GROUP_SEED_1), 1024), KeyHash.group1(h, 1024));
        // layout version 2: the high bits, by multiply-shift (a power of two count takes the top bits)
        assertEquals(KeyHash.fmix64(h ^ KeyHash.GROUP_SEED_1) >>> 54, KeyHash.group1(h, 1024));
        assertEquals(100 + KeyHash.reduce(KeyHash.fmix64(h ^ KeyHash.GROUP_SEED_1), 1365), KeyHash.group1(h, 100, 1365));
        assertEquals(0xFF, KeyHash.fingerprint(-1L));
        assertEquals((int)Long.remainderUnsigned(-1L, 10), KeyHash.partition(-1L, 10));
        assertEquals(0, KeyHash.fmix64(0));
    }

    @Test
    void aPowerOfTwoPartitionCountMasksAndGivesWhatTheRemainderGives()
    {
        // the mask is an implementation of the remainder: a cluster's keys must not move when it is taken
        final java.util.SplittableRandom random = new java.util.SplittableRandom(23);
        for (int i = 0; i < 100_000; i++)
        {
            final long h = random.nextLong();
            for (final int partitions : new int[] {1, 2, 8, 64, 4096, 1 << 16})
            {
                assertEquals((int)Long.remainderUnsigned(h, partitions), KeyHash.partition(h, partitions));
            }
            for (final int partitions : new int[] {3, 10, 100, 65_535})
            {
                assertEquals((int)Long.remainderUnsigned(h, partitions), KeyHash.partition(h, partitions));
            }
        }
        assertEquals(4095, KeyHash.partition(-1L, 4096));
        assertEquals(0, KeyHash.partition(Long.MIN_VALUE, 4096));
    }

    @Test
    void groupsAlwaysDiffer()
    {
        for (final long groups : new long[] {2, 4, 1024})
        {
            for (int i = 0; i < 50_000; i++)
            {
                final long h = keyHash(i);
                final long g1 = KeyHash.group1(h, groups);
                final long g2 = KeyHash.group2(h, groups);
                assertNotEquals(g1, g2);
                assertTrue(g1 >= 0 && g1 < groups && g2 >= 0 && g2 < groups);
            }
        }
    }

    @Test
    void groupsPartitionsAndFingerprintsAreUniform()
    {
        final int groups = 4096;
        final long[] group1 = new long[groups];
        final long[] group2 = new long[groups];
        final long[] partitions = new long[64];
        final long[] fingerprints = new long[256];
        int collisions = 0;
        for (int i = 0; i < KEYS; i++)
        {
            final long h = keyHash(i);
            group1[(int)KeyHash.group1(h, groups)]++;
            group2[(int)KeyHash.group2(h, groups)]++;
            partitions[KeyHash.partition(h, 64)]++;
            fingerprints[KeyHash.fingerprint(h)]++;
            if (KeyHash.reduce(KeyHash.fmix64(h ^ KeyHash.GROUP_SEED_1), groups) ==
                KeyHash.reduce(KeyHash.fmix64(h ^ KeyHash.GROUP_SEED_2), groups))
            {
                collisions++;
            }
        }
        assertTrue(chiSquare(group1, KEYS) < bound(groups), "group 1");
        assertTrue(chiSquare(group2, KEYS) < bound(groups), "group 2");
        assertTrue(chiSquare(partitions, KEYS) < bound(64), "partitions");
        assertTrue(chiSquare(fingerprints, KEYS) < bound(256), "fingerprints");
        // independent groups coincide about once per group count
        assertTrue(collisions < 3 * KEYS / groups, "collisions " + collisions);
    }

    @Test
    void aNodesKeysStillSpreadOverAllGroupsAndFingerprints()
    {
        // a node that owns only partition 0 of 64 must not see its keys crowd a 64th of the index
        final long[] lowGroupBits = new long[64];
        final long[] fingerprints = new long[256];
        long inPartition = 0;
        for (int i = 0; i < KEYS * 2; i++)
        {
            final long h = keyHash(i);
            if (KeyHash.partition(h, 64) == 0)
            {
                inPartition++;
                lowGroupBits[(int)(KeyHash.group1(h, 1 << 20) & 63)]++;
                fingerprints[KeyHash.fingerprint(h)]++;
            }
        }
        assertTrue(inPartition > 5000);
        assertTrue(chiSquare(lowGroupBits, inPartition) < bound(64), "group bits within a partition");
        assertTrue(chiSquare(fingerprints, inPartition) < bound(256), "fingerprints within a partition");
    }

    @Test
    void bothCandidatesLieInsideTheSegmentAndDiffer()
    {
        final java.util.SplittableRandom random = new java.util.SplittableRandom(4);
        for (final long count : new long[] {2, 3, 5, 7, 1000, 1365, 4093, 1L << 20, KeyHash.MAX_SEGMENT_FIELD})
        {
            for (int i = 0; i < 20_000; i++)
            {
                final long h = random.nextLong();
                final long base = random.nextLong(KeyHash.MAX_SEGMENT_FIELD + 1 - count + 1);
                final long g1 = KeyHash.group1(h, base, count);
                final long g2 = KeyHash.group2(h, base, count);
                assertTrue(g1 >= base && g1 < base + count, count + ": " + g1);
                assertTrue(g2 >= base && g2 < base + count, count + ": " + g2);
                assertNotEquals(g1, g2);
                assertTrue(KeyHash.isCandidateGroup(h, g1, base, count));
                assertTrue(KeyHash.isCandidateGroup(h, g2, base, count));
                // the same key in another segment of the same size: the same offsets
                assertEquals(g1 - base, KeyHash.group1(h, 0, count));
                assertEquals(g2 - base, KeyHash.group2(h, 0, count));
            }
        }
        // no segment (count below 2) has no candidate
        assertFalse(KeyHash.isCandidateGroup(1, 0, 0, 0));
        assertFalse(KeyHash.isCandidateGroup(1, 5, 5, 1));
    }

    @Test
    void equalCandidatesTakeTheNeighbourWrappingToTheBase()
    {
        boolean wrapped = false;
        boolean stepped = false;
        for (int i = 0; i < 1000 && !(wrapped && stepped); i++)
        {
            final long h = keyHash(i);
            final long r1 = KeyHash.reduce(KeyHash.fmix64(h ^ KeyHash.GROUP_SEED_1), 3);
            final long r2 = KeyHash.reduce(KeyHash.fmix64(h ^ KeyHash.GROUP_SEED_2), 3);
            if (r1 != r2)
            {
                assertEquals(40 + r2, KeyHash.group2(h, 40, 3));
                continue;
            }
            assertEquals(40 + r1, KeyHash.group1(h, 40, 3));
            if (r1 == 2)
            {
                assertEquals(40, KeyHash.group2(h, 40, 3), "the last group's neighbour is the segment's first");
                wrapped = true;
            }
            else
            {
                assertEquals(40 + r1 + 1, KeyHash.group2(h, 40, 3));
                stepped = true;
            }
        }
        assertTrue(wrapped && stepped);
    }

    @Test
    void candidatesSpreadEvenlyOverSegmentsOfAnySize()
    {
        final java.util.SplittableRandom random = new java.util.SplittableRandom(17);
        for (final int count : new int[] {3, 12, 100, 1365, 5000})
        {
            final long[] group1 = new long[count];
            final long[] group2 = new long[count];
            final int keys = Math.max(KEYS, count * 40);
            for (int i = 0; i < keys; i++)
            {
                final long h = random.nextLong();
                group1[(int)(KeyHash.group1(h, 7, count) - 7)]++;
                group2[(int)(KeyHash.group2(h, 7, count) - 7)]++;
            }
            assertTrue(chiSquare(group1, keys) < bound(count), count + ": group 1 " + chiSquare(group1, keys));
            assertTrue(chiSquare(group2, keys) < bound(count), count + ": group 2 " + chiSquare(group2, keys));
            // and no group is far from its share: within 6 standard deviations (binomial, about sqrt(mean))
            final double mean = (double)keys / count;
            for (final long c : group1)
            {
                assertTrue(Math.abs(c - mean) < 6 * Math.sqrt(mean), count + ": " + c + " vs " + mean);
            }
        }
    }

    @Test
    void theWholeIndexIsOneSegmentFromZero()
    {
        for (int i = 0; i < 10_000; i++)
        {
            final long h = keyHash(i);
            assertEquals(KeyHash.group1(h, 0, 4096), KeyHash.group1(h, 4096));
            assertEquals(KeyHash.group2(h, 0, 4096), KeyHash.group2(h, 4096));
            assertEquals(KeyHash.isCandidateGroup(h, i % 4096, 0, 4096), KeyHash.isCandidateGroup(h, i % 4096, 4096));
        }
        // what a node without a segment table uses, and what a client resolves WHOLE_INDEX to
        final io.rdmakv.common.layout.IndexSegments whole = new io.rdmakv.common.layout.IndexSegments(4096);
        for (int i = 0; i < 10_000; i++)
        {
            final long h = keyHash(i);
            assertEquals(KeyHash.segment(0, 4096), whole.segmentOf(h));
            assertEquals(KeyHash.group1(h, 4096), whole.group1(h));
            assertEquals(KeyHash.group2(h, 4096), whole.group2(h));
        }
        assertEquals(0L, KeyHash.WHOLE_INDEX);
        assertEquals(KeyHash.segment(3, 5), 3L << 32 | 5);
        assertEquals(3, KeyHash.segmentBase(KeyHash.segment(3, 5)));
        assertEquals(5, KeyHash.segmentCount(KeyHash.segment(3, 5)));
        assertThrows(IllegalArgumentException.class, () -> KeyHash.segment(-1, 5));
        assertThrows(IllegalArgumentException.class, () -> KeyHash.segment(0, 1L << 32));
    }
}
