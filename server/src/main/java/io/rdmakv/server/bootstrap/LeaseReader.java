package io.rdmakv.server.bootstrap;

import io.rdmakv.common.LittleEndian;
import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.HeartbeatMessage;
import io.rdmakv.common.protocol.wire.MalformedMessageException;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageType;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeUnit;

/**
 * Reads a session's bootstrap connection after HELLO_OK for as long as the session holds its lease: the
 * client sends a HEARTBEAT (24 bytes: the header and the oldest epoch it may still run an operation under, which
 * goes to {@link HeartbeatEpochs#reported}) every interval, and each one that arrives whole renews the lease
 * for {@code leaseTimeoutNanos}. Bytes that do not complete a frame renew nothing, so a trickle does not
 * keep a lease; over TLS, where a read returns only once a whole record has arrived, a {@link LeaseWatchdog}
 * holds reads to the same bound. Anything but a well-formed HEARTBEAT ends the session, as does the
 * connection's end.
 * Each HEARTBEAT is answered, with its request id and the node's applied epoch ({@link HeartbeatEpochs#applied}),
 * while {@code answer} says so (the node serves, and the session's answers are not flooding: see {@code
 * HeartbeatAnswers}): that grants the client its read lease (see {@code HeartbeatMessage}); a node that cannot
 * vouch for itself stays silent.
 * Runs on the connection's own (virtual) thread; blocking reads with a timeout are its clock (over TLS, with
 * the watchdog's).
 */
final class LeaseReader
{
    private final Socket socket;
    private final Socket plain;
    private final LeaseWatchdog watchdog;
    private final long leaseTimeoutNanos;
    private final byte[] frame = new byte[HeartbeatMessage.LENGTH];
    private final java.util.function.BooleanSupplier answer;
    private final HeartbeatEpochs epochs;
    private long heartbeats;

    /**
     * @param plain  the plain socket under {@code socket} when that is TLS, else {@code socket} itself
     * @param answer whether to send each heartbeat back now (null: never)
     * @param epochs  where the client's epochs go and the node's come from (null: ignored, and 0 answered)
     */
    LeaseReader(final Socket socket, final Socket plain, final long leaseTimeoutNanos,
        final java.util.function.BooleanSupplier answer, final HeartbeatEpochs epochs)
    {
        this.epochs = epochs;
        this.socket = socket;
        this.plain = plain;
        this.watchdog = plain == socket ? null : new LeaseWatchdog(plain, leaseTimeoutNanos);
        this.leaseTimeoutNanos = leaseTimeoutNanos;
        this.answer = answer;
    }

    /** Reads heartbeats until the lease ends; returns how it ended. */
    SessionEnd hold()
    {
        long renewedAt = System.nanoTime();
        int got = 0;
        if (watchdog != null)
        {
            watchdog.start(renewedAt);
        }
        try
        {
            final InputStream in = socket.getInputStream();
            while (true)
            {
                got = 0;
                int want = MessageHeaderDescriptor.HEADER_LENGTH; // the header first: anything but a HEARTBEAT ends it
                while (got < want)
                {
                    final long left = renewedAt + leaseTimeoutNanos - System.nanoTime();
                    if (left <= 0)
                    {
                        return expired(renewedAt, got);
                    }
                    socket.setSoTimeout((int)Math.min(Integer.MAX_VALUE, Math.max(1, ceilMillis(left))));
                    final int n;
                    try
                    {
                        n = in.read(frame, got, want - got);
                    }
                    catch (final SocketTimeoutException e)
                    {
                        continue;
                    }
                    if (n < 0)
                    {
                        return watchdog != null && watchdog.expired() ? expired(renewedAt, got) :
                            new SessionEnd(SessionEnd.Kind.CLOSED, "the client closed its bootstrap connection");
                    }
                    got += n;
                    if (got == MessageHeaderDescriptor.HEADER_LENGTH && want == got)
                    {
                        final String wrong = checkHeader();
                        if (wrong != null)
                        {
                            return new SessionEnd(SessionEnd.Kind.BAD_FRAME, wrong);
                        }
                        want = frame.length;
                    }
                }
                if (watchdog != null && watchdog.expired())
                {
                    return expired(renewedAt, got); // whole, but after the lease had ended
                }
                final String wrong = checkHeartbeat();
                if (wrong != null)
                {
                    return new SessionEnd(SessionEnd.Kind.BAD_FRAME, wrong);
                }
                heartbeats++;
                renewedAt = System.nanoTime();
                if (epochs != null)
                {
                    epochs.reported(MemorySegment.ofArray(frame).get(LittleEndian.U64, HeartbeatMessage.EPOCH_OFFSET));
                }
                if (watchdog != null)
                {
                    watchdog.renewed(renewedAt);
                }
                if (answer != null && answer.getAsBoolean())
                {
                    echo();
                }
            }
        }
        catch (final IOException e)
        {
            return watchdog != null && watchdog.expired() ? expired(renewedAt, got) :
                new SessionEnd(SessionEnd.Kind.CLOSED, "its bootstrap connection ended: " + e.getMessage());
        }
        finally
        {
            if (watchdog != null)
            {
                watchdog.stop();
            }
        }
    }

    private SessionEnd expired(final long renewedAt, final int got)
    {
        return new SessionEnd(SessionEnd.Kind.LEASE_EXPIRED, "no whole frame for " +
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - renewedAt) + " ms (lease timeout " +
            TimeUnit.NANOSECONDS.toMillis(leaseTimeoutNanos) + " ms, " + heartbeats + " heartbeats before" +
            (got > 0 ? ", " + got + " bytes of a frame" : "") +
            (watchdog != null && watchdog.expired() ? ", cut inside a TLS record" : "") + ")");
    }

    /**
     * Sends the answer: {@link #frame}'s header (the client's request id) with the node's applied epoch. A client that never reads its socket fills the buffers at last and would block
     * this write, and with it the lease's clock, for good: a write still blocked after the lease timeout closes
     * the connection, which ends the session as CLOSED. The plain socket is closed (closing a TLS socket would
     * wait for the blocked write to send its close_notify, on the timer's one thread).
     */
    private void echo() throws IOException
    {
        final java.util.concurrent.ScheduledFuture<?> deadline = BootstrapListener.closeAfter(plain,
            leaseTimeoutNanos);
        try
        {
            MemorySegment.ofArray(frame).set(LittleEndian.U64, HeartbeatMessage.EPOCH_OFFSET,
                epochs == null ? 0 : Math.max(0, epochs.applied()));
            socket.getOutputStream().write(frame);
            socket.getOutputStream().flush();
        }
        finally
        {
            deadline.cancel(false);
        }
    }

    /** Null when {@link #frame}'s first 16 bytes are a HEARTBEAT's header, else what they are. */
    private String checkHeader()
    {
        try
        {
            final MemorySegment header = MemorySegment.ofArray(frame);
            final MessageType type = MessageType.of(MessageHeaderDescriptor.type(header, 0));
            if (type != null && type != MessageType.HEARTBEAT)
            {
                return "sent " + type + " on its bootstrap connection, where only HEARTBEAT may follow HELLO_OK";
            }
            ControlCodec.checkHeader(header, 0, MessageHeaderDescriptor.HEADER_LENGTH); // type and length (24)
            return null;
        }
        catch (final MalformedMessageException e)
        {
            return "sent a malformed frame on its bootstrap connection: " + e.getMessage();
        }
    }

    /** Null when {@link #frame} is a well-formed HEARTBEAT, else what it is. */
    private String checkHeartbeat()
    {
        try
        {
            ControlCodec.decode(MemorySegment.ofArray(frame), 0, frame.length); // the epoch (below 2^63)
            return null;
        }
        catch (final MalformedMessageException e)
        {
            return "sent a malformed frame on its bootstrap connection: " + e.getMessage();
        }
    }

    private static long ceilMillis(final long nanos)
    {
        return (nanos + 999_999) / 1_000_000;
    }
}
