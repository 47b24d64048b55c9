package io.rdmakv.systemtests.ops;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The little PromQL tokenizer DashboardAndRulesTest relies on. */
class PromQlTest
{
    @Test
    void findsSeriesAndTheRateLikeFunctionAroundThem()
    {
        final PromQl q = PromQl.parse("sum by (instance, type) (rate(rdmakv_control_requests_total{instance=~\"$instance\"}" +
            "[$__rate_interval])) / on (instance) rdmakv_ready > 0.5e1");
        assertEquals(List.of(new PromQl.Reference("rdmakv_control_requests_total", "rate"),
            new PromQl.Reference("rdmakv_ready", null)), q.metrics());
        assertEquals(Set.of(), q.recordingRules());
    }

    @Test
    void skipsStringsLabelValuesDurationsAndVariables()
    {
        final PromQl q = PromQl.parse("increase(rdmakv_x_total{a=\"rdmakv_not_a_metric\", b='}', c=~`rdmakv_y`}[5m:1m]" +
            " offset 1h30m) + ${var} + $rdmakv_var + histogram_quantile(0.99, sum by (le) (rdmakv_h_bucket))");
        assertEquals(List.of(new PromQl.Reference("rdmakv_x_total", "increase"),
            new PromQl.Reference("rdmakv_h_bucket", null)), q.metrics());
    }

    @Test
    void tellsRecordingRulesByTheirColons()
    {
        final PromQl q = PromQl.parse("instance:rdmakv_data_area_used:ratio{instance=~\"$instance\"} > 0.9 and " +
            "label_values(rdmakv_node_info, instance)");
        assertEquals(Set.of("instance:rdmakv_data_area_used:ratio"), q.recordingRules());
        assertEquals(List.of(new PromQl.Reference("rdmakv_node_info", null)), q.metrics());
    }
}
