package dev.bifrost.neo4j;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilders;
import org.neo4j.io.ByteUnit;

/**
 * A real Neo4j 5.26 (Community) server for Bifrost development and CI, without Docker.
 *
 * <p>Built on {@code neo4j-harness}: Bolt and HTTP (with Neo4j Browser, served by the HTTP
 * server's Browser module from the {@code neo4j-browser} jar on the classpath) on 127.0.0.1,
 * auth off, APOC core loaded from a plugin folder with {@code apoc.*} unrestricted. Because auth is
 * off, it refuses to listen on anything but a loopback address (127.0.0.1, ::1, localhost) and says
 * so when it starts: it is for development and CI on one machine, never a shared server.
 *
 * <p>Persistence: the harness starts every run in a fresh random folder under its working
 * directory (and deletes it on close). That folder only holds logs and certificates here:
 * {@code server.directories.data} is pointed at a fixed folder ({@code <data>/data}), so the
 * databases and transaction logs survive restarts.
 *
 * <p>Options (argument, else environment variable, else default):
 * <pre>
 *   --bolt-port N   BIFROST_NEO4J_BOLT_PORT   7687
 *   --http-port N   BIFROST_NEO4J_HTTP_PORT   7474
 *   --data DIR      BIFROST_NEO4J_DATA        ./neo4j-data
 *   --plugins DIR   BIFROST_NEO4J_PLUGINS     plugins/ beside the launcher jar
 *   --host ADDR     BIFROST_NEO4J_HOST        127.0.0.1
 *   --pagecache MB  BIFROST_NEO4J_PAGECACHE_MB 256
 * </pre>
 * Stops cleanly on SIGTERM/SIGINT (a shutdown hook closes the server, flushing the store).
 */
public final class Launcher {

    private Launcher() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = parse(args);
        if (opts.containsKey("help")) {
            System.out.println(usage());
            return;
        }
        String host = opt(opts, "host", "BIFROST_NEO4J_HOST", "127.0.0.1");
        int boltPort = Integer.parseInt(opt(opts, "bolt-port", "BIFROST_NEO4J_BOLT_PORT", "7687"));
        int httpPort = Integer.parseInt(opt(opts, "http-port", "BIFROST_NEO4J_HTTP_PORT", "7474"));
        long pagecacheMb = Long.parseLong(opt(opts, "pagecache", "BIFROST_NEO4J_PAGECACHE_MB", "256"));
        Path data = Path.of(opt(opts, "data", "BIFROST_NEO4J_DATA", "neo4j-data")).toAbsolutePath().normalize();
        Path plugins = Path.of(opt(opts, "plugins", "BIFROST_NEO4J_PLUGINS", defaultPluginDir().toString()))
                .toAbsolutePath()
                .normalize();

        if (!isLoopback(host)) {
            System.err.println("bifrost-neo4j: refusing to listen on " + host + ": auth is off, so this server "
                    + "listens on a loopback address only (127.0.0.1, ::1, localhost); for a shared server use "
                    + "docker/docker-compose.yml, which requires NEO4J_AUTH");
            System.exit(2);
        }
        Path dbDir = data.resolve("data");
        Path runDir = data.resolve("run");
        Files.createDirectories(dbDir);
        Files.createDirectories(runDir);
        if (!Files.isDirectory(plugins)) {
            System.err.println("warning: plugin folder " + plugins + " does not exist; APOC will not be loaded");
        }

        Neo4j neo4j = Neo4jBuilders.newInProcessBuilder(runDir)
                .withConfig(GraphDatabaseSettings.data_directory, dbDir)
                .withConfig(GraphDatabaseSettings.plugin_dir, plugins)
                .withConfig(GraphDatabaseSettings.procedure_unrestricted, List.of("apoc.*"))
                .withConfig(GraphDatabaseSettings.auth_enabled, false)
                .withConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(pagecacheMb))
                .withConfig(BoltConnector.enabled, true)
                .withConfig(BoltConnector.listen_address, new SocketAddress(host, boltPort))
                .withConfig(BoltConnector.advertised_address, new SocketAddress(host, boltPort))
                .withConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                .withConfig(HttpConnector.enabled, true)
                .withConfig(HttpConnector.listen_address, new SocketAddress(host, httpPort))
                .withConfig(HttpConnector.advertised_address, new SocketAddress(host, httpPort))
                .build();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("bifrost-neo4j: stopping");
            try {
                neo4j.close();
            } finally {
                System.out.println("bifrost-neo4j: stopped");
                System.out.flush();
                stopped.countDown();
            }
        }, "bifrost-neo4j-shutdown"));

        URI bolt = neo4j.boltURI();
        URI http = neo4j.httpURI();
        System.out.println("bifrost-neo4j: Neo4j " + neo4jVersion() + " ready");
        System.out.println("bifrost-neo4j: auth is OFF (development only): listening on " + host
                + " (loopback) only, reachable from this machine only");
        System.out.println("bifrost-neo4j: bolt    " + bolt);
        System.out.println("bifrost-neo4j: http    " + http);
        System.out.println("bifrost-neo4j: browser " + http + "browser/?dbms=" + bolt + "&preselectAuthMethod=NO_AUTH");
        System.out.println("bifrost-neo4j: data    " + dbDir);
        System.out.println("bifrost-neo4j: plugins " + plugins);
        System.out.flush();
        stopped.await();
    }

    private static String neo4jVersion() {
        Package p = org.neo4j.kernel.internal.Version.class.getPackage();
        String v = p == null ? null : p.getImplementationVersion();
        return v == null ? "5.26" : v;
    }

    /** True for 127.0.0.0/8, ::1 and names that resolve only to them (localhost). */
    static boolean isLoopback(String host) {
        try {
            InetAddress[] all = InetAddress.getAllByName(host);
            for (InetAddress a : all) {
                if (!a.isLoopbackAddress()) {
                    return false;
                }
            }
            return all.length > 0;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static Path defaultPluginDir() {
        try {
            Path jar = Path.of(Launcher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return jar.getParent().resolve("plugins");
        } catch (Exception e) {
            return Path.of("plugins");
        }
    }

    private static String opt(Map<String, String> opts, String name, String env, String dflt) {
        String v = opts.get(name);
        if (v == null || v.isBlank()) {
            v = System.getenv(env);
        }
        return v == null || v.isBlank() ? dflt : v;
    }

    private static Map<String, String> parse(String[] args) throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-h") || a.equals("--help")) {
                out.put("help", "");
            } else if (a.startsWith("--") && a.contains("=")) {
                out.put(a.substring(2, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
            } else if (a.startsWith("--") && i + 1 < args.length) {
                out.put(a.substring(2), args[++i]);
            } else {
                throw new IllegalArgumentException("unknown argument " + a + "\n" + usage());
            }
        }
        return out;
    }

    private static String usage() {
        return "usage: java -jar neo4j-launcher.jar [--bolt-port N] [--http-port N] [--data DIR]"
                + " [--plugins DIR] [--host ADDR] [--pagecache MB]\n"
                + "env: BIFROST_NEO4J_BOLT_PORT, BIFROST_NEO4J_HTTP_PORT, BIFROST_NEO4J_DATA,"
                + " BIFROST_NEO4J_PLUGINS, BIFROST_NEO4J_HOST, BIFROST_NEO4J_PAGECACHE_MB";
    }
}
