/**
 * A linearizability checker for histories of a key-value store, for tests.
 *
 * <p>Record what concurrent clients saw into a {@link io.rdmakv.testsupport.linearizability.KeyedHistory}
 * (or a {@link io.rdmakv.testsupport.linearizability.History} for one key): each operation as an
 * {@link io.rdmakv.testsupport.linearizability.Op} with its process, invocation and response times and
 * its result, values as unique {@code long}s. An operation whose outcome the client could not learn
 * (a timeout, a lost connection) is recorded with {@link io.rdmakv.testsupport.linearizability.Op#INFINITY}
 * as response time: it may have taken effect at any point after its invocation, or never.
 *
 * <pre>{@code
 * final KeyedHistory<String> history = new KeyedHistory<>();
 * // in each client thread t:
 * final long invoked = history.invoke();
 * try
 * {
 *     store.put(key, encode(value));                       // value unique in the whole test
 *     history.record(key, Op.put(t, value, invoked, history.now()));
 * }
 * catch (final TimeoutException e)
 * {
 *     history.record(key, Op.put(t, value, invoked, Op.INFINITY));
 * }
 * // after joining the threads:
 * final KeyedCheckResult<String> result = history.check(new LinearizabilityChecker());
 * assertTrue(result.isLinearizable(), result::summary);
 * }</pre>
 *
 * <p>Each key is checked on its own ({@link io.rdmakv.testsupport.linearizability.LinearizabilityChecker}),
 * by a Wing &amp; Gong search with just-in-time linearization and memoized configurations, within a
 * {@link io.rdmakv.testsupport.linearizability.Budget}; the verdict is linearizable, not linearizable
 * (with an explanation built around the shortest failing prefix), or unknown when the budget ran out.
 */
package io.rdmakv.testsupport.linearizability;
