package io.rdmakv.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.server.config.ProtectedMode;
import io.rdmakv.server.config.ServerConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The files under deploy/ say what the server accepts: sample configs parse into the configuration they
 * claim, and the Kubernetes manifests agree with their ConfigMap (probes on the metrics port, ports,
 * RDMA resources, IPC_LOCK, node id from the pod index).
 */
class DeployFilesTest
{
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static Path deploy;

    @TempDir
    Path tmp;

    @BeforeAll
    static void findDeploy()
    {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("deploy/kubernetes")))
        {
            p = p.getParent();
        }
        assertNotNull(p, "deploy/ above " + Path.of("").toAbsolutePath());
        deploy = p.resolve("deploy");
    }

    private static ServerConfig parse(final Path config)
    {
        final CommandRun run = CommandRun.of(Map.of(), "--config", config.toString());
        assertEquals(0, run.code(), config + ": " + run.err());
        return run.config();
    }

    @Test
    void theSingleNodeSamplesParseAndAgree()
    {
        final ServerConfig yaml = parse(deploy.resolve("config/single-node.yaml"));
        assertEquals(yaml, parse(deploy.resolve("config/single-node.json")), "YAML and JSON samples say the same");
        assertEquals(ServerConfig.RECOMMENDED_METRICS_PORT, yaml.metricsPort());
        assertEquals("0.0.0.0", yaml.listenHost());
        assertTrue(yaml.hugePages());
    }

    @Test
    void theClusterSamplesListEveryNodeWhereItListens() throws IOException
    {
        final ClusterMap map = ClusterMap.fromJson(Files.readString(deploy.resolve("config/cluster/cluster.json")));
        assertEquals(3, map.nodes().size());
        for (final ClusterNode node : map.nodes())
        {
            final ServerConfig c = parse(deploy.resolve("config/cluster/node-" + node.id() + ".yaml"));
            assertEquals(node.id(), c.nodeId());
            assertEquals(node.host(), c.listenHost());
            assertEquals(node.port(), c.listenPort());
            assertEquals(Path.of("/etc/rdmakv/cluster.json"), c.clusterFile());
            assertEquals("ibverbs", c.transport());
            assertTrue(c.metricsEnabled());
        }
    }

    private static Map<String, JsonNode> kubernetes() throws IOException
    {
        return kubernetes(deploy.resolve("kubernetes"));
    }

    private static Map<String, JsonNode> kubernetes(final Path folder) throws IOException
    {
        final Map<String, JsonNode> byKind = new HashMap<>();
        try (Stream<Path> files = Files.list(folder))
        {
            for (final Path f : files.filter(f -> f.toString().endsWith(".yaml")).toList())
            {
                try (MappingIterator<JsonNode> docs = YAML.readerFor(JsonNode.class).readValues(f.toFile()))
                {
                    while (docs.hasNext())
                    {
                        final JsonNode doc = docs.next();
                        byKind.put(doc.path("kind").asText(), doc);
                    }
                }
            }
        }
        return byKind;
    }

    @Test
    void theKubernetesManifestsAgreeWithTheirConfigMap() throws IOException
    {
        final Map<String, JsonNode> k8s = kubernetes();
        assertEquals(List.of("ConfigMap", "Service", "StatefulSet"), k8s.keySet().stream().sorted().toList());
        final JsonNode configMap = k8s.get("ConfigMap");
        final JsonNode service = k8s.get("Service");
        final JsonNode statefulSet = k8s.get("StatefulSet");

        final Path config = tmp.resolve("kvserver.yaml");
        Files.writeString(config, configMap.at("/data/kvserver.yaml").asText());
        final JsonNode container = statefulSet.at("/spec/template/spec/containers/0");
        final List<String> args = new ArrayList<>();
        container.path("args").forEach(a -> args.add(a.asText()));
        final List<String> local = new ArrayList<>(args);
        local.set(1, config.toString());
        // the ZooKeeper credential and certificates come from secret volumes: stand-ins here, the credential's
        // mode as the volume's defaultMode sets it
        final Map<String, JsonNode> secretVolumes = new HashMap<>();
        statefulSet.at("/spec/template/spec/volumes").forEach(v ->
        {
            if (v.has("secret"))
            {
                secretVolumes.put(v.path("name").asText(), v.path("secret"));
            }
        });
        final List<String> zkFlags = new ArrayList<>();
        for (int i = 0; i < args.size() - 1; i++)
        {
            if (!args.get(i).startsWith("--zk-auth-file") && !args.get(i).startsWith("--zk-tls-"))
            {
                continue;
            }
            zkFlags.add(args.get(i));
            final String file = args.get(i + 1);
            JsonNode secret = null;
            for (final JsonNode m : container.path("volumeMounts"))
            {
                if (file.startsWith(m.path("mountPath").asText() + "/"))
                {
                    secret = secretVolumes.get(m.path("name").asText());
                }
            }
            assertNotNull(secret, args.get(i) + " " + file + " is in a mounted secret");
            final Path standIn = tmp.resolve(args.get(i).substring(2));
            Files.writeString(standIn, "rdmakv:from-the-secret\n");
            final int mode = secret.path("defaultMode").asInt(0644);
            if (args.get(i).equals("--zk-auth-file"))
            {
                assertEquals(0, mode & 077, "kvserver refuses a credentials file group or others may read");
            }
            Files.setPosixFilePermissions(standIn, posix(mode));
            local.set(i + 1, standIn.toString());
        }
        assertEquals(List.of("--zk-auth-file", "--zk-tls-ca", "--zk-tls-cert", "--zk-tls-key"), zkFlags,
            "ZooKeeper with a credential and TLS with a client certificate");
        final CommandRun run = CommandRun.of(Map.of("RDMAKV_ADVERTISE", "kvserver-0.kvserver:7400"),
            local.toArray(String[]::new));
        assertEquals(0, run.code(), "the StatefulSet's arguments with the ConfigMap's file: " + run.err());
        final ServerConfig c = run.config();
        assertTrue(c.metricsEnabled(), "probes need the metrics endpoint");
        final int metricsPort = c.metricsPort();

        assertEquals("None", service.at("/spec/clusterIP").asText(), "headless service");
        assertEquals(service.at("/metadata/name").asText(), statefulSet.at("/spec/serviceName").asText());
        final JsonNode template = statefulSet.at("/spec/template");
        assertEquals(service.at("/spec/selector"), template.at("/metadata/labels"));
        assertEquals(statefulSet.at("/spec/selector/matchLabels"), template.at("/metadata/labels"));

        JsonNode token = null;
        for (final JsonNode env : container.path("env"))
        {
            token = "RDMAKV_AUTH_TOKEN".equals(env.path("name").asText()) ? env : token;
        }
        assertTrue(token != null && !token.at("/valueFrom/secretKeyRef/optional").asBoolean(false),
            "the token comes from a required secret: " + token);
        assertThrows(ProtectedMode.RefusedException.class, () -> ProtectedMode.check(c),
            "without it the pods, listening on " + c.listenHost() + ", would not start");
        ProtectedMode.check(c.withAuthToken("from-the-secret"));
        assertEquals("/ready", container.at("/readinessProbe/httpGet/path").asText());
        assertEquals(metricsPort, container.at("/readinessProbe/httpGet/port").asInt(), "readiness on metrics-port");
        assertEquals("/live", container.at("/livenessProbe/httpGet/path").asText());
        assertEquals(metricsPort, container.at("/livenessProbe/httpGet/port").asInt(), "liveness on metrics-port");
        assertEquals(String.valueOf(metricsPort), template.at("/metadata/annotations/prometheus.io~1port").asText());

        final Map<String, Integer> ports = new HashMap<>();
        container.path("ports").forEach(p -> ports.put(p.path("name").asText(), p.path("containerPort").asInt()));
        assertEquals(Map.of("bootstrap", c.listenPort(), "metrics", metricsPort), ports);
        final Map<String, Integer> servicePorts = new HashMap<>();
        service.at("/spec/ports").forEach(p -> servicePorts.put(p.path("name").asText(), p.path("port").asInt()));
        assertEquals(ports, servicePorts);

        for (final String kind : new String[] {"requests", "limits"})
        {
            assertEquals(1, container.at("/resources/" + kind + "/rdma~1hca_shared_devices_a").asInt(),
                "an RDMA device in " + kind);
        }
        final long memoryLimit = kubernetesBytes(container.at("/resources/limits/memory").asText());
        assertTrue(memoryLimit > c.memoryBytes(), "the memory limit covers the region plus the heap");

        final List<String> added = new ArrayList<>();
        container.at("/securityContext/capabilities/add").forEach(n -> added.add(n.asText()));
        assertEquals(List.of("IPC_LOCK"), added, "memlock through CAP_IPC_LOCK");
        assertEquals("ALL", container.at("/securityContext/capabilities/drop/0").asText());

        final Map<String, JsonNode> env = new HashMap<>();
        container.path("env").forEach(e -> env.put(e.path("name").asText(), e));
        assertEquals("metadata.labels['apps.kubernetes.io/pod-index']",
            env.get("RDMAKV_NODE_ID").at("/valueFrom/fieldRef/fieldPath").asText(), "node id from the pod ordinal");

        final JsonNode mount = container.at("/volumeMounts/0");
        assertEquals(List.of("--config", mount.path("mountPath").asText() + "/kvserver.yaml"), args.subList(0, 2));
        assertEquals(configMap.at("/metadata/name").asText(),
            template.at("/spec/volumes/0/configMap/name").asText());

        // membership and the map come from ZooKeeper, through the Service of zookeeper/zookeeper.yaml
        assertNull(c.clusterFile(), "no static map");
        final Map<String, JsonNode> zk = kubernetes(deploy.resolve("kubernetes/zookeeper"));
        final JsonNode zkService = zk.get("Service");
        assertEquals(zkService.at("/metadata/name").asText() + ":" + zkService.at("/spec/ports/0/port").asInt(),
            c.zookeeper().connect(), "--zookeeper names the ZooKeeper Service");
        assertEquals(zkService.at("/spec/selector"), zk.get("StatefulSet").at("/spec/template/metadata/labels"));
        assertTrue(zk.get("StatefulSet").at("/spec/template/spec/containers/0/image").asText()
            .startsWith("zookeeper:"), "the official image");
        assertNotNull(c.zookeeper().credentials(), "the znodes are locked to the secret's credential");
        assertTrue(c.zookeeper().tls() != null && c.zookeeper().tls().clientCertificate(), "TLS to ZooKeeper");
        // ZooKeeper's zoo.cfg: only a TLS client port, the Service's, client certificates and authentication required
        final java.util.Properties zooCfg = new java.util.Properties();
        zooCfg.load(new java.io.StringReader(zk.get("ConfigMap").at("/data/zoo.cfg").asText()));
        assertNull(zooCfg.getProperty("clientPort"), "no plaintext client port");
        final JsonNode zkContainer = zk.get("StatefulSet").at("/spec/template/spec/containers/0");
        assertEquals(zkContainer.at("/ports/0/containerPort").asText(), zooCfg.getProperty("secureClientPort"));
        assertEquals(zkService.at("/spec/ports/0/targetPort").asText(), zkContainer.at("/ports/0/name").asText());
        assertEquals("org.apache.zookeeper.server.NettyServerCnxnFactory", zooCfg.getProperty("serverCnxnFactory"));
        assertEquals("need", zooCfg.getProperty("ssl.clientAuth"));
        assertEquals("true", zooCfg.getProperty("enforce.auth.enabled"));
        assertEquals("digest", zooCfg.getProperty("enforce.auth.schemes"));
        boolean mounted = false;
        for (final JsonNode m : zkContainer.path("volumeMounts"))
        {
            mounted |= "/conf/zoo.cfg".equals(m.path("mountPath").asText()) && "zoo.cfg".equals(m.path("subPath").asText());
        }
        assertTrue(mounted, "zoo.cfg is mounted over the image's");
        final int replicas = statefulSet.at("/spec/replicas").asInt();
        assertTrue(c.zookeeper().replicas() > 1 && c.zookeeper().replicas() <= replicas,
            "a replicated cluster the pods can hold");
        // each pod registers the address clients reach it at: its DNS name through the headless service
        assertEquals("metadata.name", env.get("POD_NAME").at("/valueFrom/fieldRef/fieldPath").asText());
        assertEquals("$(POD_NAME)." + service.at("/metadata/name").asText() + ":" + c.listenPort(),
            env.get("RDMAKV_ADVERTISE").path("value").asText());
        assertEquals("kvserver-0.kvserver", c.advertiseHost());
        assertEquals(c.listenPort(), c.advertisePort());
    }

    /** A file mode ({@code 0400}) as POSIX permissions. */
    private static java.util.Set<java.nio.file.attribute.PosixFilePermission> posix(final int mode)
    {
        final StringBuilder s = new StringBuilder();
        for (int shift = 6; shift >= 0; shift -= 3)
        {
            final int bits = (mode >> shift) & 7;
            s.append((bits & 4) != 0 ? 'r' : '-').append((bits & 2) != 0 ? 'w' : '-').append((bits & 1) != 0 ? 'x' : '-');
        }
        return java.nio.file.attribute.PosixFilePermissions.fromString(s.toString());
    }

    private static long kubernetesBytes(final String quantity)
    {
        final String[][] units = {{"Ki", "10"}, {"Mi", "20"}, {"Gi", "30"}, {"Ti", "40"}};
        for (final String[] u : units)
        {
            if (quantity.endsWith(u[0]))
            {
                return Long.parseLong(quantity.substring(0, quantity.length() - 2)) << Integer.parseInt(u[1]);
            }
        }
        return Long.parseLong(quantity);
    }

    @Test
    void theSystemdUnitRunsTheServerAsItsOwnUserWithUnlimitedMemlock() throws IOException
    {
        final String unit = Files.readString(deploy.resolve("systemd/kvserver.service"));
        for (final String line : new String[] {"LimitMEMLOCK=infinity", "User=rdmakv", "Restart=on-failure",
            "RestartPreventExitStatus=2", "KillSignal=SIGTERM", "io.rdmakv.server.KvServerCommand",
            "--config /etc/rdmakv/kvserver.yaml"})
        {
            assertTrue(unit.contains(line), line);
        }
        assertTrue(Files.readString(deploy.resolve("systemd/rdmakv.sysusers.conf")).contains("u rdmakv "));
    }

    @Test
    void theContainerfileStartsTheServerClass() throws IOException, ClassNotFoundException
    {
        final String containerfile = Files.readString(deploy.resolve("Containerfile"));
        assertTrue(containerfile.contains("debian:12"));
        assertTrue(containerfile.contains("temurin-${JAVA_VERSION}-jre") && containerfile.contains("JAVA_VERSION=25"));
        assertTrue(containerfile.contains("\"" + KvServerCommand.class.getName() + "\""));
        Class.forName(KvServerCommand.class.getName());
    }
}
