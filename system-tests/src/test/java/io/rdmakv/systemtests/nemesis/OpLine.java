package io.rdmakv.systemtests.nemesis;

import io.rdmakv.testsupport.linearizability.Op;
import io.rdmakv.testsupport.linearizability.Outcome;

import java.util.OptionalLong;

/**
 * One recorded operation, one tab-separated line of a client's history file:
 * {@code process op key value expected invoke complete outcome note}.
 * <ul>
 * <li>process: client index * 100 + thread; op: GET, PUT, CAS or DEL; key: the key's index;</li>
 * <li>value: GET the value read ("absent"), PUT and CAS the value written, DEL whether the key existed;</li>
 * <li>expected: CAS the value it expected ("absent": insert only if absent), else "-";</li>
 * <li>invoke and complete: System.nanoTime() (CLOCK_MONOTONIC, the same in every JVM of the host); complete is
 * -1 when the outcome is indeterminate;</li>
 * <li>outcome: ok (a CAS that swapped), fail (a CAS that did not swap; a GET that threw, which constrains
 * nothing) or indeterminate (a write that threw: a timeout or lost connection, it may or may not have taken
 * effect); note: the exception's class when one was thrown, else "-".</li>
 * </ul>
 */
record OpLine(int process, String op, int key, String value, String expected, long invoke, long complete,
              String outcome, String note)
{
    static final String ABSENT = "absent";

    String format()
    {
        return process + "\t" + op + "\t" + key + "\t" + value + "\t" + expected + "\t" + invoke + "\t" + complete +
            "\t" + outcome + "\t" + note;
    }

    static OpLine parse(final String line)
    {
        final String[] f = line.split("\t");
        if (f.length != 9)
        {
            throw new IllegalArgumentException("not a history line (9 tab-separated fields): " + line);
        }
        return new OpLine(Integer.parseInt(f[0]), f[1], Integer.parseInt(f[2]), f[3], f[4], Long.parseLong(f[5]),
            Long.parseLong(f[6]), f[7], f[8]);
    }

    boolean indeterminate()
    {
        return "indeterminate".equals(outcome);
    }

    /** Whether it completed with a result: every op but an indeterminate write or a GET that threw. */
    boolean succeeded()
    {
        return "ok".equals(outcome) || "CAS".equals(op) && "fail".equals(outcome);
    }

    /** Whether it certainly wrote: an acknowledged PUT, a CAS that swapped, an acknowledged DEL. */
    boolean acknowledgedWrite()
    {
        return "ok".equals(outcome) && !"GET".equals(op);
    }

    /** Whether it may have changed the key: an acknowledged write or an indeterminate one. */
    boolean mayHaveWritten()
    {
        return acknowledgedWrite() || indeterminate();
    }

    /** The checker's operation, or null for a GET that threw (it constrains nothing). */
    Op toOp()
    {
        if ("GET".equals(op) && !"ok".equals(outcome))
        {
            return null;
        }
        final long response = indeterminate() ? Op.INFINITY : complete;
        final Op o = switch (op)
        {
            case "GET" -> Op.get(process, invoke, response, parseValue(value));
            case "PUT" -> Op.put(process, Long.parseLong(value), invoke, response);
            // a DEL run again after a lost connection may report false for a key it deleted: its flag is not checked
            case "DEL" -> Op.delete(process, invoke, response, Outcome.UNKNOWN);
            case "CAS" -> Op.compareAndSet(process, parseValue(expected), Long.parseLong(value), invoke, response,
                indeterminate() ? Outcome.UNKNOWN : Outcome.of("ok".equals(outcome)));
            default -> throw new IllegalArgumentException("unknown op " + op);
        };
        return indeterminate() ? o.withUnknownOutcome() : o;
    }

    static OptionalLong parseValue(final String text)
    {
        return ABSENT.equals(text) ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(text));
    }

    static String show(final OptionalLong value)
    {
        return value.isPresent() ? Long.toString(value.getAsLong()) : ABSENT;
    }
}
