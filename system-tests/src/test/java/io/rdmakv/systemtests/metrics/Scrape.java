package io.rdmakv.systemtests.metrics;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** A scrape of a Prometheus text endpoint: each sample as "name{labels}" (labels as written) to its value. */
record Scrape(Map<String, Double> samples, String text)
{
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** GETs {@code url} and returns status and body. */
    static HttpResponse<String> get(final String url) throws IOException, InterruptedException
    {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.ofString());
    }

    /** Scrapes http://127.0.0.1:port/metrics. */
    static Scrape of(final int port) throws IOException, InterruptedException
    {
        final HttpResponse<String> response = get("http://127.0.0.1:" + port + "/metrics");
        if (response.statusCode() != 200)
        {
            throw new IOException("scrape answered " + response.statusCode());
        }
        return parse(response.body());
    }

    static Scrape parse(final String text)
    {
        final Map<String, Double> samples = new LinkedHashMap<>();
        for (final String line : text.split("\n"))
        {
            if (line.isBlank() || line.startsWith("#"))
            {
                continue;
            }
            final int space = line.lastIndexOf(' ');
            samples.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
        }
        return new Scrape(samples, text);
    }

    /** The value of {@code sample} (e.g. {@code rdmakv_ready} or {@code x_total{type="alloc"}}); fails if absent. */
    double value(final String sample)
    {
        final Double v = samples.get(sample);
        if (v == null)
        {
            throw new AssertionError("no sample " + sample + " in:\n" + text);
        }
        return v;
    }

    long count(final String sample)
    {
        return (long)value(sample);
    }
}
