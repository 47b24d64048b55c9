package io.rdmakv.server.bootstrap;

import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.common.RateLimitedLog;

import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.concurrent.TimeUnit;

/**
 * Who may open a session: the auth token (always read and compared, in constant time), and the transport the
 * client speaks. A right token is admitted whatever its address did before; a wrong one is refused, and once
 * its address has spent its free failures ({@link AuthThrottle}) the refusal is held back in a bounded
 * {@link Tarpit}, which slows a guesser without holding anything the right token needs. Failures are
 * summarised in the log. Thread-safe: every bootstrap connection's thread asks it.
 */
public final class Admission
{
    private static final System.Logger LOG = System.getLogger(Admission.class.getName());

    private final byte[] token;
    private final String provider;
    private final AuthThrottle throttle = new AuthThrottle();
    private final Tarpit tarpit;
    private final RateLimitedLog log = new RateLimitedLog(LOG, 10, TimeUnit.SECONDS);

    /**
     * {@code token} empty: any client; {@code provider}: the transport this node runs; {@code maxConnections}:
     * the node's connection limit, of which held-back refusals take a small share at most.
     */
    public Admission(final String token, final String provider, final int maxConnections)
    {
        this.token = token.getBytes(StandardCharsets.UTF_8);
        this.provider = provider;
        this.tarpit = new Tarpit(Tarpit.capacityFor(maxConnections));
    }

    /** Failed and throttled authentications. */
    public AuthThrottle throttle()
    {
        return throttle;
    }

    /**
     * Null when {@code hello} from {@code socket} may open a session, else the refusal to answer (for a wrong
     * token from a throttled address, after holding it back).
     */
    public BootstrapListener.Outcome refusal(final HelloMessage hello, final Socket socket)
    {
        if (token.length > 0 && !MessageDigest.isEqual(token, hello.authToken()))
        {
            return wrongToken(socket);
        }
        if (!provider.equals(hello.endpoint().provider()))
        {
            return refused(ReasonCode.UNEXPECTED_MESSAGE, "this node runs the " + provider + " transport, the client " +
                hello.endpoint().provider());
        }
        return null;
    }

    private BootstrapListener.Outcome wrongToken(final Socket socket)
    {
        final InetAddress from = socket.getInetAddress();
        final long delay = throttle.failed(from, System.nanoTime());
        if (delay > 0 && tarpit.hold(from, delay))
        {
            log.log(System.Logger.Level.WARNING, "auth", "refused " + socket.getRemoteSocketAddress() + ": wrong " +
                "auth token, answered after " + TimeUnit.NANOSECONDS.toMillis(delay) + " ms (too many from this " +
                "address)");
            return refused(ReasonCode.AUTH_FAILED, "wrong auth token (answered after " +
                TimeUnit.NANOSECONDS.toMillis(delay) + " ms: too many wrong tokens from this address)");
        }
        log.log(System.Logger.Level.WARNING, "auth", "refused " + socket.getRemoteSocketAddress() +
            ": wrong auth token" + (delay > 0 ? " (too many from this address; answered at once, " +
            tarpit.overflowed() + " such: no room to hold them back)" : ""));
        return refused(ReasonCode.AUTH_FAILED, "wrong auth token");
    }

    /** A HELLO_REFUSED with no session to end. */
    public static BootstrapListener.Outcome refused(final ReasonCode code, final String text)
    {
        return new BootstrapListener.Outcome(CodedRefusalMessage.helloRefused(0, code.code(), text), null);
    }
}
