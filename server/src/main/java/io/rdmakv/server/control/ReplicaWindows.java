package io.rdmakv.server.control;

import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.GrantMessage;
import io.rdmakv.common.protocol.GrantReplyMessage;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.server.space.Extent;
import io.rdmakv.verbs.MemoryWindow;
import io.rdmakv.verbs.resource.VerbsException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;

/**
 * Memory windows in a replicated group, the agent's half (docs/design.md, "Windows in a replicated group"). A
 * client WRITEs each new block to every replica of its key's group at the offset the primary granted, so each
 * backup and copying node must let a session write exactly the extent the primary granted that session's writer,
 * and nothing else:
 *
 * <ul>
 *   <li><b>Primary</b>, on ALLOC: each grant gets a fresh random secret (ALLOC_OK), kept on the session. Before a
 *       session is granted another extent, its current grant is revoked: the secret is forgotten here first (so
 *       CHECK_GRANT says no from then on), then every other replica confirms REVOKE_GRANT ({@link
 *       GrantPeers#revoke}); only then is the new extent granted. So once a session has moved on, its previous
 *       extent is writable on no replica, as on the primary itself, and the FREE rules that let another session's
 *       space be reused once its owner moved on hold on every replica. A revocation not confirmed refuses the
 *       ALLOC: the session keeps its extent, and the revocation is tried again on its next ALLOC.</li>
 *   <li><b>Backup or copying node</b>, on BIND_WINDOW: the primary of its group is asked (CHECK_GRANT) whether
 *       a live session of the asking session's writer holds exactly that grant; if so a window is bound over the
 *       extent on the asking session's queue pair (one per session, as for a grant on the primary: {@link
 *       GrantWindows}). REVOKE_GRANT deallocates the windows bound for that grant. A node that grants nothing
 *       refuses ALLOC.</li>
 * </ul>
 *
 * <b>A check answered before a revocation.</b> The primary may say yes, then revoke; the REVOKE_GRANT may be
 * served here before the yes arrives. So a REVOKE_GRANT of a grant marks the checks under way for that grant
 * (session id and secret) as crossed, a map change marks them all, and a crossed yes is not acted on: the check is
 * asked again. A revocation is sent only after the primary forgot the secret, so a check sent after it was served
 * here says no. A FENCE_WRITERS fences the writers' sessions, whose answers are then dropped. A REVOKE_GRANT naming
 * another secret (anyone may send one) crosses nothing.
 *
 * <p>Session id 0 names the primary node's own grant of its data area to its own peer traffic, its scrub's and its
 * partition copier's sessions, which share one writer id (any extent inside it) ({@link
 * GrantMessage#NODE_SESSION_ID}, {@code replication/NodeGrant}). Agent thread only.
 */
final class ReplicaWindows
{
    /** Checks asked again while revocations of the grant or map changes keep crossing them, before BIND_WINDOW fails. */
    private static final int CHECK_ATTEMPTS = 4;

    /** How the agent grants an extent once the revocation is done ({@code secret} 0: none). */
    @FunctionalInterface
    interface Grant
    {
        void grant(ServerSession session, AllocMessage alloc, long secret);
    }

    /** How the agent answers and fences. */
    interface Replies
    {
        void reply(ServerSession session, ControlMessage message);

        void depart(ServerSession session, String why);
    }

    /** The primary's grant to its own scrub and partition copier: writer and secret (any extent of its data area). */
    record NodeGrant(long writerId, long secret)
    {
    }

    private final GrantPeers grants;
    private final GrantWindows windows;
    private final SessionRegistry sessions;
    private final ServerCounters counters;
    private final Consumer<Runnable> later;
    private final Replies replies;
    private final long dataLength;
    private final NodeGrant nodeGrant;
    /** The checks under way: at most one per session ({@link ServerSession#binding}). */
    private final List<Check> checks = new ArrayList<>();

    /** A CHECK_GRANT sent for a session's BIND_WINDOW, and whether a revocation of its grant came since. */
    private static final class Check
    {
        final GrantMessage request;
        boolean crossed;

        Check(final GrantMessage request)
        {
            this.request = request;
        }
    }

    ReplicaWindows(final GrantPeers grants, final NodeGrant nodeGrant, final GrantWindows windows,
        final SessionRegistry sessions, final ServerCounters counters, final Consumer<Runnable> later,
        final Replies replies, final long dataLength)
    {
        this.grants = grants;
        this.nodeGrant = nodeGrant;
        this.windows = windows;
        this.sessions = sessions;
        this.counters = counters;
        this.later = later;
        this.replies = replies;
        this.dataLength = dataLength;
    }

    /** A map change or a fence of every session: every check under way may have crossed a revocation. */
    void fenced()
    {
        for (final Check c : checks)
        {
            c.crossed = true;
        }
    }

    /** ALLOC: refused on a replica; on a primary with replicas, after its current grant is revoked everywhere. */
    void allocate(final ServerSession session, final AllocMessage alloc, final Grant grant)
    {
        switch (grants.role())
        {
            case ALONE -> grant.grant(session, alloc, 0);
            case REPLICA -> replies.reply(session, CodedRefusalMessage.allocFailed(alloc.requestId(),
                ReasonCode.UNEXPECTED_MESSAGE, "this node is a backup or copying node of its replica group: space " +
                "there is granted by the group's primary (ask it; windows here come with BIND_WINDOW)"));
            case PRIMARY -> allocateOnPrimary(session, alloc, grant);
        }
    }

    private void allocateOnPrimary(final ServerSession session, final AllocMessage alloc, final Grant grant)
    {
        if (session.allocating)
        {
            replies.reply(session, CodedRefusalMessage.allocFailed(alloc.requestId(), ReasonCode.UNEXPECTED_MESSAGE,
                "an ALLOC of this session is under way"));
            return;
        }
        final long previous = session.grantSecret != 0 ? session.grantSecret : session.unrevokedSecret;
        if (previous == 0)
        {
            grant.grant(session, alloc, GrantMessage.newSecret());
            return;
        }
        session.grantSecret = 0;
        session.unrevokedSecret = previous;
        session.allocating = true;
        grants.revoke(session.id(), previous).whenComplete((done, failure) -> later.accept(() ->
        {
            session.allocating = false;
            if (session.departed())
            {
                return;
            }
            if (failure != null)
            {
                counters.increment(ServerCounter.REPLICA_REVOKES_FAILED);
                replies.reply(session, CodedRefusalMessage.allocFailed(alloc.requestId(), ReasonCode.INTERNAL,
                    "the session's previous grant could not be revoked on every replica of its group, so no new " +
                    "extent is granted (the session keeps its extent): " + cause(failure).getMessage()));
                return;
            }
            session.unrevokedSecret = 0;
            grant.grant(session, alloc, GrantMessage.newSecret());
        }));
    }

    /**
     * A granted extent: remembered with its secret, for CHECK_GRANT ({@code secret} 0, granted while no other
     * replica mirrored this node: no check finds it, nor the session's grant before it).
     */
    void granted(final ServerSession session, final Extent extent, final long secret)
    {
        session.grantOffset = extent.offset();
        session.grantLength = extent.length();
        session.grantSecret = secret;
    }

    /** CHECK_GRANT (on a primary): whether a live session of that writer holds exactly that grant. */
    void check(final ServerSession asking, final GrantMessage request)
    {
        replies.reply(asking, GrantReplyMessage.checked(request.requestId(), holds(request)));
    }

    private boolean holds(final GrantMessage request)
    {
        if (grants.role() != GrantPeers.Role.PRIMARY)
        {
            return false;
        }
        if (request.sessionId() == GrantMessage.NODE_SESSION_ID)
        {
            return nodeGrant != null && nodeGrant.writerId() == request.writerId() &&
                nodeGrant.secret() == request.secret() && request.offset() <= dataLength - request.length();
        }
        final ServerSession holder = sessions.byId(request.sessionId());
        return holder != null && !holder.departed() && holder.writerId() == request.writerId() &&
            holder.grantSecret != 0 && holder.grantSecret == request.secret() &&
            holder.grantOffset == request.offset() && holder.grantLength == request.length();
    }

    /** BIND_WINDOW (on a backup or copying node): checked with the primary, then bound on the session's queue pair. */
    void bind(final ServerSession session, final GrantMessage request)
    {
        if (!windows.enabled())
        {
            // no windows here: the data area is writable with its own rkey by every session anyway
            replies.reply(session, GrantReplyMessage.bound(request.requestId(), windows.writeRkey(null)));
            return;
        }
        if (request.offset() > dataLength - request.length())
        {
            refuse(session, request, "the extent of " + request.length() + " bytes at " + request.offset() +
                " leaves the data area of " + dataLength + " bytes");
            return;
        }
        if (grants.role() != GrantPeers.Role.REPLICA)
        {
            replies.reply(session, CodedRefusalMessage.error(request.requestId(), ReasonCode.UNEXPECTED_MESSAGE,
                "this node is no backup or copying node of a replica group: its own ALLOC_OK names the window"));
            return;
        }
        if (session.binding)
        {
            // one check per session in flight: a client cannot queue checks on the node's peer thread
            replies.reply(session, CodedRefusalMessage.error(request.requestId(), ReasonCode.UNEXPECTED_MESSAGE,
                "a BIND_WINDOW of this session is under way"));
            return;
        }
        session.binding = true;
        check(session, request, CHECK_ATTEMPTS);
    }

    private void check(final ServerSession session, final GrantMessage request, final int attempts)
    {
        final Check sent = new Check(request);
        checks.add(sent);
        grants.check(session.writerId(), request).whenComplete((granted, failure) -> later.accept(() ->
        {
            checks.remove(sent);
            if (session.departed())
            {
                return;
            }
            session.binding = false;
            if (failure != null)
            {
                counters.increment(ServerCounter.REPLICA_GRANT_CHECKS_FAILED);
                replies.reply(session, CodedRefusalMessage.error(request.requestId(), ReasonCode.INTERNAL,
                    "the grant could not be checked with the group's primary: " + cause(failure).getMessage()));
            }
            else if (!granted)
            {
                refuse(session, request, "the group's primary holds no such grant for this session's writer " +
                    "(never granted, another writer's, or superseded or revoked since)");
            }
            else if (sent.crossed)
            {
                if (attempts > 1)
                {
                    session.binding = true;
                    check(session, request, attempts - 1);
                }
                else
                {
                    replies.reply(session, CodedRefusalMessage.error(request.requestId(), ReasonCode.INTERNAL,
                        "revocations kept arriving while the grant was checked " + CHECK_ATTEMPTS + " times"));
                }
            }
            else
            {
                bindChecked(session, request);
            }
        }));
    }

    private void bindChecked(final ServerSession session, final GrantMessage request)
    {
        final MemoryWindow window;
        try
        {
            window = windows.reserve();
        }
        catch (final VerbsException e)
        {
            replies.reply(session, CodedRefusalMessage.error(request.requestId(), ReasonCode.OUT_OF_MEMORY,
                "no memory window for the grant: " + e.getMessage()));
            return;
        }
        final int rkey = windows.writeRkey(window); // the rkey the bind gives it: asked before the bind moves it on
        if (!windows.bind(session, window, new Extent(request.offset(), request.length())))
        {
            replies.depart(session, "its queue pair refused a memory window bind");
            return;
        }
        session.boundSession = request.sessionId();
        session.boundSecret = request.secret();
        counters.increment(ServerCounter.REPLICA_WINDOWS_BOUND);
        replies.reply(session, GrantReplyMessage.bound(request.requestId(), rkey));
    }

    private void refuse(final ServerSession session, final GrantMessage request, final String why)
    {
        counters.increment(ServerCounter.REPLICA_WINDOWS_REFUSED);
        replies.reply(session, CodedRefusalMessage.error(request.requestId(), ReasonCode.GRANT_UNKNOWN,
            "BIND_WINDOW refused: " + why));
    }

    /** REVOKE_GRANT: deallocates every window bound here for that grant, then answers. */
    void revoke(final ServerSession asking, final GrantMessage request)
    {
        for (final Check c : checks)
        {
            if (c.request.sessionId() == request.sessionId() && c.request.secret() == request.secret())
            {
                c.crossed = true;
            }
        }
        int revoked = 0;
        for (final ServerSession session : sessions.all())
        {
            if (session.boundSecret != 0 && session.boundSession == request.sessionId() &&
                session.boundSecret == request.secret())
            {
                windows.revoke(session);
                session.boundSession = 0;
                session.boundSecret = 0;
                revoked++;
            }
        }
        counters.add(ServerCounter.REPLICA_WINDOWS_REVOKED, revoked);
        replies.reply(asking, GrantReplyMessage.revoked(request.requestId(), revoked));
    }

    private static Throwable cause(final Throwable failure)
    {
        return failure instanceof CompletionException c && c.getCause() != null ? c.getCause() : failure;
    }
}
