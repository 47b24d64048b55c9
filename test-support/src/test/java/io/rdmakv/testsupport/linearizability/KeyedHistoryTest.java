package io.rdmakv.testsupport.linearizability;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static io.rdmakv.testsupport.linearizability.Histories.ABSENT;
import static io.rdmakv.testsupport.linearizability.Histories.some;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KeyedHistoryTest
{
    @Test
    void splitsPerKeyKeepingOrderOfFirstAppearance()
    {
        final Op a = Op.put(0, 1, 0, 10);
        final Op b = Op.put(1, 2, 5, 15);
        final Op c = Op.get(0, 20, 30, some(1));
        final Map<String, List<Op>> split = KeyedHistory.split(List.of(
            new KeyedOp<>("x", a), new KeyedOp<>("y", b), new KeyedOp<>("x", c)));
        assertEquals(List.of("x", "y"), List.copyOf(split.keySet()));
        assertEquals(List.of(a, c), split.get("x"));
        assertEquals(List.of(b), split.get("y"));
    }

    @Test
    void eachKeyIsCheckedAgainstItsOwnRegister()
    {
        // The same operations would be a violation on one register; on two keys they are fine.
        final KeyedHistory<String> history = new KeyedHistory<>();
        history.record("x", Op.put(0, 1, 0, 10));
        history.record("y", Op.put(1, 2, 20, 30));
        history.record("x", Op.get(2, 40, 50, some(1)));
        history.record("y", Op.get(2, 60, 70, some(2)));
        final KeyedCheckResult<String> result = history.check(new LinearizabilityChecker());
        assertTrue(result.isLinearizable(), result::summary);
        assertEquals(2, result.results().size());
    }

    @Test
    void reportsOnlyTheKeyThatIsNotLinearizable()
    {
        final KeyedHistory<Long> history = new KeyedHistory<>();
        history.record(7L, Op.put(0, 1, 0, 10));
        history.record(7L, Op.get(1, 20, 30, some(1)));
        history.record(8L, Op.put(0, 2, 40, 50));
        history.record(8L, Op.get(1, 60, 70, ABSENT));
        final KeyedCheckResult<Long> result = history.check(new LinearizabilityChecker());
        assertFalse(result.isLinearizable());
        assertEquals(List.of(8L), List.copyOf(result.violations().keySet()));
        assertTrue(result.unknown().isEmpty());
        assertTrue(result.summary().startsWith("2 keys: 1 linearizable, 1 not linearizable, 0 unknown"),
            result::summary);
        assertTrue(result.summary().contains("key 8: NOT LINEARIZABLE"), result::summary);
    }

    @Test
    void initialValuesMayDifferPerKey()
    {
        final KeyedHistory<String> history = new KeyedHistory<>();
        history.record("x", Op.get(0, 0, 10, some(5)));
        history.record("y", Op.get(0, 20, 30, ABSENT));
        final KeyedCheckResult<String> result = history.check(new LinearizabilityChecker(),
            key -> key.equals("x") ? OptionalLong.of(5) : OptionalLong.empty());
        assertTrue(result.isLinearizable(), result::summary);
    }
}
