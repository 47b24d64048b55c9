/**
 * The verbs conformance suite: one set of tests, written against the verbs API only, run once per
 * provider ({@code tcp} always, {@code ibverbs} where it can open a device, skipped with the reason
 * otherwise). Run it with {@code scripts/mvn -B -pl verbs test -Dtest='io.rdmakv.verbs.conformance.*Test'};
 * {@code -Drdmakv.conformance.providers=ibverbs} (a comma list) picks and requires providers,
 * {@code -Drdmakv.conformance.device=rxe0} a device, and {@code -DexcludedGroups=provider-tolerant} leaves
 * out the tests that accept any error status (see {@link io.rdmakv.verbs.conformance.ProviderTest#TOLERANT}).
 */
package io.rdmakv.verbs.conformance;
