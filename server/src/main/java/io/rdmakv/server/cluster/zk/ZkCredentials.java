package io.rdmakv.server.cluster.zk;

import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A ZooKeeper digest credential, {@code user:password}: the node authenticates its session with it, and every
 * znode it creates grants ALL to its identity only ({@link #acl}). Read from a file only its owner may read
 * ({@link #fromFile}) or from the environment ({@link #parse}), never from the command line. {@link #toString}
 * hides the password.
 */
public final class ZkCredentials
{
    /** The permissions a credentials file may not have: any for group or others. */
    private static final Set<PosixFilePermission> TOO_OPEN = EnumSet.of(
        PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
        PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private final String user;
    private final String password;
    private final String source;

    private ZkCredentials(final String user, final String password, final String source)
    {
        this.user = user;
        this.password = password;
        this.source = source;
    }

    /**
     * Parses {@code user:password} (one trailing newline allowed: a file written by echo).
     *
     * @param text   the credential
     * @param source where it came from, for messages ("file /etc/x", "$RDMAKV_ZK_AUTH"); never the secret
     * @throws IllegalArgumentException naming {@code source}, never quoting the secret
     */
    public static ZkCredentials parse(final String text, final String source)
    {
        Objects.requireNonNull(source, "source");
        String s = text == null ? "" : text;
        if (s.endsWith("\n"))
        {
            s = s.substring(0, s.length() - 1);
        }
        if (s.endsWith("\r"))
        {
            s = s.substring(0, s.length() - 1);
        }
        final int colon = s.indexOf(':');
        if (colon <= 0 || colon == s.length() - 1)
        {
            throw new IllegalArgumentException(source + " must hold one line 'user:password' (a user and a " +
                "password, both non-empty)");
        }
        for (int i = 0; i < s.length(); i++)
        {
            if (Character.isISOControl(s.charAt(i)))
            {
                throw new IllegalArgumentException(source + " must hold one line 'user:password': it has a " +
                    "control character (a second line?)");
            }
        }
        return new ZkCredentials(s.substring(0, colon), s.substring(colon + 1), source);
    }

    /**
     * Reads the credential from {@code file}, refused (as ssh refuses a private key) when group or others have
     * any permission on it.
     *
     * @throws IllegalArgumentException when the file is missing, unreadable, too open or malformed
     */
    public static ZkCredentials fromFile(final Path file)
    {
        final Set<PosixFilePermission> permissions;
        try
        {
            // follows links: a Kubernetes secret volume's files are links to the files whose mode counts
            permissions = Files.getPosixFilePermissions(file);
        }
        catch (final NoSuchFileException e)
        {
            throw new IllegalArgumentException("credentials file " + file + " does not exist");
        }
        catch (final UnsupportedOperationException e)
        {
            throw new IllegalArgumentException("credentials file " + file + ": its permissions cannot be " +
                "checked on this file system (POSIX permissions are needed)");
        }
        catch (final IOException e)
        {
            throw new IllegalArgumentException("cannot read credentials file " + file + ": " + e);
        }
        final Set<PosixFilePermission> open = EnumSet.noneOf(PosixFilePermission.class);
        open.addAll(permissions);
        open.retainAll(TOO_OPEN);
        if (!open.isEmpty())
        {
            throw new IllegalArgumentException("credentials file " + file + " has permissions " +
                PosixFilePermissions.toString(permissions) + ": it must not be accessible by group or others " +
                "(the password would be readable by other users); run 'chmod 600 " + file + "'");
        }
        final String text;
        try
        {
            text = Files.readString(file, StandardCharsets.UTF_8);
        }
        catch (final IOException e)
        {
            throw new IllegalArgumentException("cannot read credentials file " + file + ": " + e);
        }
        return parse(text, "credentials file " + file);
    }

    public String user()
    {
        return user;
    }

    /** Where the credential came from: a file or the environment (no secret). */
    public String source()
    {
        return source;
    }

    /** What Curator's {@code authorization("digest", ...)} sends: {@code user:password} in UTF-8. */
    public byte[] authBytes()
    {
        return (user + ":" + password).getBytes(StandardCharsets.UTF_8);
    }

    /** The digest identity, {@code user:base64(sha1(user:password))}, as ZooKeeper's digest provider names it. */
    public String digestId()
    {
        try
        {
            return DigestAuthenticationProvider.generateDigest(user + ":" + password);
        }
        catch (final NoSuchAlgorithmException e)
        {
            throw new IllegalStateException("this JDK has no SHA-1, which ZooKeeper's digest scheme needs", e);
        }
    }

    /** The ACL of every znode the node creates: ALL for this identity, nothing for anyone else. */
    public List<ACL> acl()
    {
        // not List.of: ZooKeeper asks the list whether it contains null, which List.of answers with an exception
        return Collections.unmodifiableList(new ArrayList<>(List.of(new ACL(ZooDefs.Perms.ALL,
            new Id("digest", digestId())))));
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof ZkCredentials other && user.equals(other.user) && password.equals(other.password);
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(user, password);
    }

    @Override
    public String toString()
    {
        return "ZkCredentials[user=" + user + ", password=(hidden), from " + source + "]";
    }
}
