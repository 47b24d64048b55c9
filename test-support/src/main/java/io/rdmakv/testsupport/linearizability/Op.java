package io.rdmakv.testsupport.linearizability;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * One operation on one key-value register, as a client saw it: who ran it, what it asked, when it
 * was invoked and answered, and what it returned. Values are opaque {@code long}s; an empty
 * {@link OptionalLong} means "absent".
 *
 * <p>An operation whose outcome is unknown (a timeout, a lost connection: the write may or may not
 * have happened) has {@link #INFINITY} as its response time; its result is then ignored, and the
 * checker lets it take effect at any point after its invocation, or not at all. Build one with the
 * factory methods and {@link #withUnknownOutcome()}.
 *
 * @param process       the client thread (or process) that ran it; one process runs one operation at a time
 * @param kind          what it did
 * @param expected      {@link OpKind#COMPARE_AND_SET}: the value it expected (empty: "only if absent"); else empty
 * @param value         {@link OpKind#PUT} and {@link OpKind#COMPARE_AND_SET}: the value it wrote; else 0
 * @param read          {@link OpKind#GET}: the value it returned (empty: absent); else empty
 * @param outcome       its flag result (see {@link Outcome})
 * @param invokeNanos   when it was invoked
 * @param responseNanos when its response arrived, or {@link #INFINITY} if the outcome is unknown
 */
public record Op(int process, OpKind kind, OptionalLong expected, long value, OptionalLong read, Outcome outcome,
                 long invokeNanos, long responseNanos)
{
    /** The response time of an operation whose outcome is unknown. */
    public static final long INFINITY = Long.MAX_VALUE;

    /** Checks the fields and normalises those that mean nothing for the kind. */
    public Op
    {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(expected, "expected");
        Objects.requireNonNull(read, "read");
        Objects.requireNonNull(outcome, "outcome");
        if (responseNanos < invokeNanos)
        {
            throw new IllegalArgumentException("response " + responseNanos + " before invocation " + invokeNanos);
        }
        if (responseNanos == INFINITY)
        {
            outcome = Outcome.UNKNOWN;
        }
        final boolean flagged = kind == OpKind.DELETE || kind == OpKind.COMPARE_AND_SET;
        if (flagged && outcome == Outcome.OK || !flagged && (outcome == Outcome.TRUE || outcome == Outcome.FALSE))
        {
            throw new IllegalArgumentException(kind + " cannot have outcome " + outcome);
        }
        if (kind != OpKind.GET || outcome == Outcome.UNKNOWN)
        {
            read = OptionalLong.empty();
        }
        if (kind != OpKind.COMPARE_AND_SET)
        {
            expected = OptionalLong.empty();
        }
        if (kind != OpKind.PUT && kind != OpKind.COMPARE_AND_SET)
        {
            value = 0;
        }
    }

    /** A get that returned {@code read} (empty: absent). */
    public static Op get(final int process, final long invokeNanos, final long responseNanos, final OptionalLong read)
    {
        return new Op(process, OpKind.GET, OptionalLong.empty(), 0, read, Outcome.OK, invokeNanos, responseNanos);
    }

    /** A put (insert or update) of {@code value}. */
    public static Op put(final int process, final long value, final long invokeNanos, final long responseNanos)
    {
        return new Op(process, OpKind.PUT, OptionalLong.empty(), value, OptionalLong.empty(), Outcome.OK,
            invokeNanos, responseNanos);
    }

    /** A delete that returned whether a value was present ({@link Outcome#UNKNOWN} if it does not say). */
    public static Op delete(final int process, final long invokeNanos, final long responseNanos, final Outcome existed)
    {
        return new Op(process, OpKind.DELETE, OptionalLong.empty(), 0, OptionalLong.empty(), existed,
            invokeNanos, responseNanos);
    }

    /** A delete that returned whether a value was present. */
    public static Op delete(final int process, final long invokeNanos, final long responseNanos, final boolean existed)
    {
        return delete(process, invokeNanos, responseNanos, Outcome.of(existed));
    }

    /** A compare-and-set from {@code expected} (empty: insert only if absent) to {@code value}. */
    public static Op compareAndSet(final int process, final OptionalLong expected, final long value,
                                   final long invokeNanos, final long responseNanos, final Outcome succeeded)
    {
        return new Op(process, OpKind.COMPARE_AND_SET, expected, value, OptionalLong.empty(), succeeded,
            invokeNanos, responseNanos);
    }

    /** A compare-and-set from {@code expected} (empty: insert only if absent) to {@code value}. */
    public static Op compareAndSet(final int process, final OptionalLong expected, final long value,
                                   final long invokeNanos, final long responseNanos, final boolean succeeded)
    {
        return compareAndSet(process, expected, value, invokeNanos, responseNanos, Outcome.of(succeeded));
    }

    /** This operation with its outcome unknown: it may have taken effect any time after its invocation, or never. */
    public Op withUnknownOutcome()
    {
        return new Op(process, kind, expected, value, read, Outcome.UNKNOWN, invokeNanos, INFINITY);
    }

    /** Whether the response arrived, so that the operation certainly took effect before {@link #responseNanos}. */
    public boolean completed()
    {
        return responseNanos != INFINITY;
    }

    /** Whether the operation can change the register. */
    public boolean writes()
    {
        return kind != OpKind.GET;
    }

    /** What it did and returned, e.g. {@code p3 cas(7 -> 9) -> true}. */
    public String describe()
    {
        final String call = switch (kind)
        {
            case GET -> "get()";
            case PUT -> "put(" + value + ")";
            case DELETE -> "delete()";
            case COMPARE_AND_SET -> "cas(" + show(expected) + " -> " + value + ")";
        };
        final String result;
        if (!completed())
        {
            result = " (outcome unknown)";
        }
        else
        {
            result = switch (kind)
            {
                case GET -> outcome == Outcome.UNKNOWN ? " -> ?" : " -> " + show(read);
                case PUT -> "";
                case DELETE, COMPARE_AND_SET -> " -> " + switch (outcome)
                {
                    case TRUE -> "true";
                    case FALSE -> "false";
                    default -> "?";
                };
            };
        }
        return "p" + process + " " + call + result;
    }

    /** {@link #describe()} with its times, relative to {@code originNanos}. */
    public String describe(final long originNanos)
    {
        final String end = completed() ? Long.toString(responseNanos - originNanos) : "inf";
        return describe() + "  [" + (invokeNanos - originNanos) + ", " + end + "]";
    }

    /** A value or {@code absent}. */
    static String show(final OptionalLong value)
    {
        return value.isPresent() ? Long.toString(value.getAsLong()) : "absent";
    }

    @Override
    public String toString()
    {
        return describe(0);
    }
}
