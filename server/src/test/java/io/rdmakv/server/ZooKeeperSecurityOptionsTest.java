package io.rdmakv.server;

import io.rdmakv.server.cluster.zk.ZkCredentials;
import io.rdmakv.server.cluster.zk.ZkTls;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** kvserver's ZooKeeper credential (a file or the environment, never a flag) and TLS options. */
class ZooKeeperSecurityOptionsTest
{
    private static final String SECRET = "pa55-w0rd:with-colon";
    private static final String[] ZK = {"--zookeeper", "127.0.0.1:2181", "--cluster-name", "c"};

    @TempDir
    Path dir;

    private Path file(final String name, final String content, final String mode) throws IOException
    {
        final Path p = dir.resolve(name);
        Files.writeString(p, content);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(mode));
        return p;
    }

    private static String[] zk(final String... more)
    {
        final List<String> args = new ArrayList<>(List.of(ZK));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    private static String refusal(final Map<String, String> env, final String... args)
    {
        final CommandRun run = CommandRun.of(env, args);
        assertEquals(KvServerCommand.EXIT_USAGE, run.code(), run.err());
        assertNull(run.config(), "nothing started");
        assertFalse(run.err().contains(SECRET) || run.err().contains("pa55"), "the secret is never printed: " + run.err());
        return run.err().lines().findFirst().orElse("");
    }

    @Test
    void theCredentialComesFromAFileOnlyItsOwnerMayRead() throws IOException
    {
        final Path auth = file("zk-auth", "rdmakv:" + SECRET + "\n", "rw-------");
        final CommandRun run = CommandRun.of(zk("--zk-auth-file", auth.toString()));
        assertEquals(0, run.code(), run.err());
        final ZkCredentials c = run.config().zookeeper().credentials();
        assertEquals(ZkCredentials.parse("rdmakv:" + SECRET, "x"), c);
        assertEquals("rdmakv", c.user());
        assertFalse(run.config().toString().contains(SECRET), "the configuration never shows the password (logs)");

        final Path readOnly = file("zk-auth-400", "rdmakv:" + SECRET, "r--------");
        assertEquals(c, CommandRun.of(zk("--zk-auth-file", readOnly.toString())).config().zookeeper().credentials());
        final Path config = file("kv.yaml", "zookeeper: 127.0.0.1:2181\ncluster-name: c\nzk-auth-file: " + auth + "\n",
            "rw-r--r--");
        assertEquals(c, CommandRun.of("--config", config.toString()).config().zookeeper().credentials(),
            "a config file key, like every option");
        assertNull(CommandRun.of(zk()).config().zookeeper().credentials(), "none: unauthenticated");
    }

    @Test
    void aCredentialsFileOthersCanReadIsRefusedLikeSshDoes() throws IOException
    {
        final Path open = file("zk-auth", "rdmakv:" + SECRET + "\n", "rw-r--r--");
        final String why = refusal(Map.of(), zk("--zk-auth-file", open.toString()));
        assertTrue(why.contains("'--zk-auth-file'") && why.contains("rw-r--r--") && why.contains("chmod 600 " + open),
            why);
        final Path groupOnly = file("zk-auth-g", "rdmakv:" + SECRET + "\n", "rw-r-----");
        assertTrue(refusal(Map.of(), zk("--zk-auth-file", groupOnly.toString())).contains("group or others"));
        final Path environment = file("zk-auth-env", "rdmakv:" + SECRET + "\n", "rw-rw-rw-");
        assertTrue(refusal(Map.of("RDMAKV_ZK_AUTH_FILE", environment.toString()), zk())
            .contains("environment variable RDMAKV_ZK_AUTH_FILE"), "says where the file name came from");
    }

    @Test
    void aMissingOrMalformedCredentialIsRefusedNamingItsSource() throws IOException
    {
        final String missing = refusal(Map.of(), zk("--zk-auth-file", dir.resolve("nope").toString()));
        assertTrue(missing.contains("'--zk-auth-file'") && missing.contains("does not exist"), missing);
        final Path noColon = file("zk-auth", "justauser\n", "rw-------");
        assertTrue(refusal(Map.of(), zk("--zk-auth-file", noColon.toString())).contains("'user:password'"));
        final Path twoLines = file("zk-auth-2", "rdmakv:" + SECRET + "\nmore\n", "rw-------");
        assertTrue(refusal(Map.of(), zk("--zk-auth-file", twoLines.toString())).contains("one line"));
        final String env = refusal(Map.of("RDMAKV_ZK_AUTH", ":" + SECRET), zk());
        assertTrue(env.contains("$RDMAKV_ZK_AUTH") && env.contains("'user:password'"), env);
        assertTrue(refusal(Map.of(), "--zk-auth-file", noColon.toString()).contains("only with --zookeeper"));
    }

    @Test
    void theEnvironmentVariableIsUsedWhenNoFileIsGiven() throws IOException
    {
        final CommandRun env = CommandRun.of(Map.of("RDMAKV_ZK_AUTH", "ops:" + SECRET), zk());
        assertEquals(0, env.code(), env.err());
        assertEquals(ZkCredentials.parse("ops:" + SECRET, "x"), env.config().zookeeper().credentials());
        final Path auth = file("zk-auth", "rdmakv:" + SECRET + "\n", "rw-------");
        assertEquals("rdmakv", CommandRun.of(Map.of("RDMAKV_ZK_AUTH", "ops:" + SECRET),
            zk("--zk-auth-file", auth.toString())).config().zookeeper().credentials().user(), "a file beats it");
    }

    @Test
    void noFlagTakesTheSecretItself()
    {
        final CommandLine cmd = new CommandLine(new KvServerCommand(config -> 0));
        final List<String> zkAuth = cmd.getCommandSpec().options().stream().map(CommandLine.Model.OptionSpec::longestName)
            .filter(n -> n.startsWith("--zk-auth")).toList();
        assertEquals(List.of("--zk-auth-file"), zkAuth, "the credential is named by a file, never given on the " +
            "command line, where ps shows it to every user");
        final CommandRun run = CommandRun.of(zk("--zk-auth", "rdmakv:" + SECRET));
        assertEquals(KvServerCommand.EXIT_USAGE, run.code(), run.err());
        assertTrue(run.err().contains("Unknown option"), run.err());
    }

    @Test
    void tlsToZooKeeperNeedsItsCaAndACertificateWithItsKey() throws IOException
    {
        final Path ca = file("ca.pem", "x", "rw-r--r--");
        final Path cert = file("node.pem", "x", "rw-r--r--");
        final Path key = file("node.key", "x", "rw-------");
        final CommandRun caOnly = CommandRun.of(zk("--zk-tls-ca", ca.toString()));
        assertEquals(0, caOnly.code(), caOnly.err());
        assertEquals(new ZkTls(ca, null, null), caOnly.config().zookeeper().tls());
        final CommandRun mutual = CommandRun.of(zk("--zk-tls-ca", ca.toString(), "--zk-tls-cert", cert.toString(),
            "--zk-tls-key", key.toString()));
        assertEquals(0, mutual.code(), mutual.err());
        assertEquals(new ZkTls(ca, cert, key), mutual.config().zookeeper().tls());
        assertNull(CommandRun.of(zk()).config().zookeeper().tls(), "plaintext by default");

        assertTrue(refusal(Map.of(), zk("--zk-tls-cert", cert.toString())).contains("needs --zk-tls-key"));
        assertTrue(refusal(Map.of(), zk("--zk-tls-key", key.toString())).contains("needs --zk-tls-cert"));
        assertTrue(refusal(Map.of(), zk("--zk-tls-cert", cert.toString(), "--zk-tls-key", key.toString()))
            .contains("needs --zk-tls-ca"));
        final String missing = refusal(Map.of(), zk("--zk-tls-ca", dir.resolve("nope.pem").toString()));
        assertTrue(missing.contains("'--zk-tls-ca'") && missing.contains("no such file"), missing);
        final String missingKey = refusal(Map.of(), zk("--zk-tls-ca", ca.toString(), "--zk-tls-cert", cert.toString(),
            "--zk-tls-key", dir.resolve("nope.key").toString()));
        assertTrue(missingKey.contains("'--zk-tls-key'") && missingKey.contains("no such file"), missingKey);
        assertTrue(refusal(Map.of(), "--zk-tls-ca", ca.toString()).contains("only with --zookeeper"));
    }
}
