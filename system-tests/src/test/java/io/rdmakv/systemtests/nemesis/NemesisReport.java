package io.rdmakv.systemtests.nemesis;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The figures per fault type over every phase, written as report.md and report.json. */
record NemesisReport(List<PhaseResult> phases, String aborted, long durationMs)
{
    /** The totals of one fault type. */
    record Totals(String fault, int phases, int rounds, long operations, long indeterminate, int keys, int violations,
                  int unknown, int lostWrites, int staleReads, long longestUnavailableMs, List<String> errors)
    {
    }

    List<Totals> totals()
    {
        final Map<Fault, List<PhaseResult>> byFault = new LinkedHashMap<>();
        phases.forEach(p -> byFault.computeIfAbsent(p.fault(), f -> new ArrayList<>()).add(p));
        final List<Totals> totals = new ArrayList<>();
        byFault.forEach((fault, list) -> totals.add(new Totals(fault.label, list.size(),
            list.stream().mapToInt(PhaseResult::rounds).sum(),
            list.stream().mapToLong(p -> p.analysis().operations()).sum(),
            list.stream().mapToLong(p -> p.analysis().indeterminate()).sum(),
            list.stream().mapToInt(p -> p.analysis().keys()).sum(),
            list.stream().mapToInt(p -> p.analysis().violations().size()).sum(),
            list.stream().mapToInt(p -> p.analysis().unknown().size()).sum(),
            list.stream().mapToInt(p -> p.analysis().lostWrites()).sum(),
            list.stream().mapToInt(p -> p.analysis().staleReads()).sum(),
            list.stream().mapToLong(p -> p.analysis().longestUnavailableMs()).max().orElse(0),
            list.stream().map(PhaseResult::error).filter(e -> e != null).toList())));
        return totals;
    }

    int violations()
    {
        return totals().stream().mapToInt(Totals::violations).sum();
    }

    int lostWrites()
    {
        return totals().stream().mapToInt(Totals::lostWrites).sum();
    }

    void write(final Path dir) throws IOException
    {
        Files.createDirectories(dir);
        final Map<String, Object> json = new LinkedHashMap<>();
        json.put("durationMs", durationMs);
        json.put("aborted", aborted);
        json.put("faults", totals());
        final List<Map<String, Object>> phaseJson = new ArrayList<>();
        for (final PhaseResult p : phases)
        {
            final Map<String, Object> m = new LinkedHashMap<>();
            m.put("fault", p.fault().label);
            m.put("pass", p.pass());
            m.put("error", p.error());
            m.put("analysis", p.analysis());
            m.put("timeline", p.timeline());
            phaseJson.add(m);
        }
        json.put("phases", phaseJson);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(dir.resolve("report.json").toFile(), json);
        Files.writeString(dir.resolve("report.md"), markdown());
    }

    String markdown()
    {
        final StringBuilder md = new StringBuilder("# Nemesis report\n\n");
        md.append(String.format("Run time %.1f s.%s%n%n", durationMs / 1000.0,
            aborted == null ? "" : " **Aborted: " + aborted + "**"));
        md.append("| fault | phases | rounds | operations | indeterminate | keys | violations (keys not linearizable) | " +
            "unknown verdicts | acknowledged writes lost | stale reads | longest unavailability ms |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (final Totals t : totals())
        {
            md.append(String.format("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d |%n", t.fault(), t.phases(),
                t.rounds(), t.operations(), t.indeterminate(), t.keys(), t.violations(), t.unknown(), t.lostWrites(),
                t.staleReads(), t.longestUnavailableMs()));
        }
        md.append("\nDefinitions (see HistoryAnalysis): a violation is a key whose history is not linearizable as a " +
            "compare-and-set register; an acknowledged write is lost when no GET ever returned its value although " +
            "no other write could be ordered after it (none acknowledged after its invocation) and the key has no " +
            "write of unknown outcome; a stale read " +
            "returned a value that another acknowledged write had replaced before the read began.\n");
        for (final PhaseResult p : phases)
        {
            md.append("\n## ").append(p.fault().label).append(", pass ").append(p.pass()).append("\n\n");
            if (p.error() != null)
            {
                md.append("**Error:** ").append(p.error()).append("\n\n");
            }
            md.append("```\n");
            p.timeline().forEach(line -> md.append(line).append('\n'));
            md.append("```\n");
            p.analysis().violations().forEach((k, why) -> md.append("\n- key ").append(k).append(" not linearizable: ")
                .append(why.lines().limit(12).reduce((a, b) -> a + "\n  " + b).orElse("")).append('\n'));
            p.analysis().lostDetails().forEach(d -> md.append("\n- lost: ").append(d).append('\n'));
            p.analysis().staleDetails().forEach(d -> md.append("\n- stale: ").append(d).append('\n'));
        }
        return md.toString();
    }
}
