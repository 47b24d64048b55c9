package io.rdmakv.systemtests.nemesis;

import java.util.List;

/**
 * One phase: {@code rounds} rounds of one fault on fresh keys, under load, then final reads.
 *
 * @param error why the phase ended early (the group not back in sync, a fault that could not be applied), or null
 */
record PhaseResult(Fault fault, int pass, int rounds, HistoryAnalysis analysis, List<String> timeline, String error)
{
}
