package io.rdmakv.verbs.conformance;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.TimeUnit;

/**
 * A conformance test, run once per provider of {@link ConformanceProviders#names()}; the method takes
 * the provider's name as its only parameter.
 *
 * <p>Per-method parameterization (not {@code @ParameterizedClass}) on purpose: each provider's run then
 * has its own test name ({@code method(String)[n]}), so Surefire counts a skipped {@code ibverbs} run
 * as skipped instead of folding it into the {@code tcp} run of the same method.
 *
 * <p>Every completion wait is bounded by {@link VerbsFixture#WAIT_NANOS}; the timeout here is only a
 * backstop for a provider call that blocks (it runs the test on its own thread, so even a call that
 * ignores interrupts cannot hang the build).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "[{index}] {0}")
@MethodSource("io.rdmakv.verbs.conformance.ConformanceProviders#names")
@Timeout(
    value = ProviderTest.BACKSTOP_SECONDS, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@interface ProviderTest
{
    long BACKSTOP_SECONDS = 120;

    /**
     * The tag of a test that accepts any error status where devices legitimately differ (the status a
     * real NIC reports is named in the test); select or exclude them with Surefire's {@code groups}.
     */
    String TOLERANT = "provider-tolerant";
}
