package io.rdmakv.server.bootstrap;

import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.common.protocol.HelloRefusedMessage;
import io.rdmakv.common.protocol.ReasonCode;
import io.rdmakv.server.health.RateLimitedLog;

import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.concurrent.TimeUnit;

/**
 * Who may open a session: the auth token (compared in constant time), failed attempts throttled per address
 * ({@link AuthThrottle}) and summarised in the log, and the transport the client speaks. Thread-safe: every
 * bootstrap connection's thread asks it.
 */
public final class Admission
{
    private static final System.Logger LOG = System.getLogger(Admission.class.getName());

    private final byte[] token;
    private final String provider;
    private final AuthThrottle throttle = new AuthThrottle();
    private final RateLimitedLog log = new RateLimitedLog(LOG, 10, TimeUnit.SECONDS);

    /** {@code token} empty: any client; {@code provider}: the transport this node runs. */
    public Admission(final String token, final String provider)
    {
        this.token = token.getBytes(StandardCharsets.UTF_8);
        this.provider = provider;
    }

    /** Failed and throttled authentications. */
    public AuthThrottle throttle()
    {
        return throttle;
    }

    /** Null when {@code hello} from {@code socket} may open a session, else the refusal to answer. */
    public BootstrapListener.Outcome refusal(final HelloMessage hello, final Socket socket)
    {
        if (token.length > 0)
        {
            final InetAddress from = socket.getInetAddress();
            final long now = System.nanoTime();
            final long wait = throttle.blockedFor(from, now);
            if (wait > 0)
            {
                log.log(System.Logger.Level.WARNING, "throttled", "refused " + from.getHostAddress() +
                    " unread: too many failed authentications, blocked for " + TimeUnit.NANOSECONDS.toSeconds(wait) +
                    " s more");
                return refused(ReasonCode.AUTH_FAILED, "too many failed authentications from this address: retry in " +
                    Math.max(1, TimeUnit.NANOSECONDS.toSeconds(wait)) + " s");
            }
            if (!MessageDigest.isEqual(token, hello.authToken()))
            {
                final int recent = throttle.failed(from, now);
                log.log(System.Logger.Level.WARNING, "auth", "refused " + socket.getRemoteSocketAddress() +
                    ": wrong auth token (" + recent + " in a row from this address)");
                return refused(ReasonCode.AUTH_FAILED, "wrong auth token");
            }
            throttle.succeeded(from);
        }
        if (!provider.equals(hello.endpoint().provider()))
        {
            return refused(ReasonCode.UNEXPECTED_MESSAGE, "this node runs the " + provider + " transport, the client " +
                hello.endpoint().provider());
        }
        return null;
    }

    /** A HELLO_REFUSED with no session to end. */
    public static BootstrapListener.Outcome refused(final ReasonCode code, final String text)
    {
        return new BootstrapListener.Outcome(new HelloRefusedMessage(0, code.code(), text), null);
    }
}
