package io.jcni.plugins.internal.ipam.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.sdk.Skel;
import io.jcni.plugins.testing.PluginCall;
import io.jcni.spec.CniError;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * cluster-ipam against etcd with user auth and with mutual TLS, each a real member started here: the good
 * credentials and certificates work, wrong ones fail with code 7 and change nothing. Certificates are made by
 * {@code openssl} for the test: an RSA CA, the server's RSA key in PKCS#8, the client's EC key in SEC1 and an RSA
 * one in PKCS#1, the three PEM forms the plugin reads.
 */
class ClusterIpamSecurityTest {
    private final Skel skel = PluginRegistry.skel("cluster-ipam");

    @TempDir
    Path tmp;

    String conf(String etcdFields) {
        return "{\"cniVersion\":\"1.1.0\",\"name\":\"sec\",\"type\":\"bridge\",\"ipam\":{\"type\":\"cluster-ipam\","
                + "\"subnet\":\"10.81.0.0/24\",\"nodeName\":\"n1\",\"etcd\":{" + etcdFields + "}}}";
    }

    PluginCall.Outcome call(String command, String containerId, String conf) {
        return PluginCall.of(command).containerId(containerId).stdin(conf).run(skel);
    }

    @Test
    void userAuthWorksWithTheCredentialsFileAndWrongOrMissingCredentialsAreCode7() throws Exception {
        try (EtcdCluster etcd = EtcdCluster.start(tmp.resolve("etcd"), 1)) {
            String endpoint = etcd.clientUrl(0);
            etcdctl(endpoint, null, "user", "add", "root:rootpw", "--interactive=false");
            etcdctl(endpoint, null, "role", "add", "root");
            etcdctl(endpoint, null, "user", "grant-role", "root", "root");
            etcdctl(endpoint, null, "auth", "enable");
            Path good = Files.writeString(tmp.resolve("good"), "root:rootpw\n");
            Path bad = Files.writeString(tmp.resolve("bad"), "root:wrong\n");
            String base = "\"endpoints\":[\"" + endpoint + "\"]";

            call("ADD", "c1", conf(base + ",\"credentialsFile\":\"" + good + "\"")).ok();
            List<String> before = etcdctl(endpoint, "root:rootpw", "get", "--prefix", "/jcni/", "--keys-only");
            assertThat(before).contains("/jcni/ipam/sec/owner/n1/c1/eth0");

            CniError wrong = call("ADD", "c2", conf(base + ",\"credentialsFile\":\"" + bad + "\"")).error();
            assertThat(wrong.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
            assertThat(wrong.msg()).contains("authentication failed");
            CniError none = call("ADD", "c3", conf(base)).error();
            assertThat(none.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
            assertThat(none.msg()).contains("no credentialsFile is configured");
            CniError missing = call("ADD", "c4", conf(base + ",\"credentialsFile\":\"" + tmp.resolve("nope")
                    + "\"")).error();
            assertThat(missing.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
            assertThat(etcdctl(endpoint, "root:rootpw", "get", "--prefix", "/jcni/", "--keys-only"))
                    .isEqualTo(before);

            call("DEL", "c1", conf(base + ",\"credentialsFile\":\"" + good + "\"")).ok();
            assertThat(etcdctl(endpoint, "root:rootpw", "get", "--prefix", "/jcni/ipam/sec/owner/", "--keys-only"))
                    .isEmpty();
        }
    }

    /**
     * The credentials and CA files are checked for their kind before they are read (issue 23, item 7): a FIFO there
     * blocked the call for ever (and, through the plugin service, with a GC, the whole node), {@code /dev/zero} made
     * it read until the heap ran out (code 999). Both are code 7 at once, naming the file and what it is; no etcd is
     * needed to tell (the files are read before the first connection).
     */
    @Test
    void aFifoOrADeviceAsCredentialsOrCaFileIsCode7AtOnce() throws Exception {
        Path fifo = tmp.resolve("credentials");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        Process writer = new ProcessBuilder("sh", "-c", "exec 3>'" + fifo + "'; sleep 600").start();
        try {
            long t0 = System.nanoTime();
            CniError credentials = call("ADD", "c1", conf("\"endpoints\":[\"http://127.0.0.1:9\"],"
                    + "\"credentialsFile\":\"" + fifo + "\"")).error();
            assertThat(credentials.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
            assertThat(credentials.msg()).contains(fifo.toString()).contains("not a regular file (a FIFO)");
            CniError ca = call("ADD", "c2", conf("\"endpoints\":[\"https://127.0.0.1:9\"],"
                    + "\"trustedCAFile\":\"/dev/zero\"")).error();
            assertThat(ca.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
            assertThat(ca.msg()).contains("/dev/zero").contains("not a regular file (a character device)");
            assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(10));
        } finally {
            writer.destroyForcibly().waitFor();
        }
    }

    @Test
    void mutualTlsWithPemKeysInEveryFormAndAnUntrustedServerIsCode7() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/openssl")), "openssl is not installed");
        Path ca = tmp.resolve("ca.pem");
        Path caKey = tmp.resolve("ca-key.pem");
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", caKey.toString(), "-out", ca.toString(),
                "-days", "2", "-subj", "/CN=jcni-test-ca");
        Path serverKey = tmp.resolve("server-key.pem");
        openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", serverKey.toString());
        // clientAuth too: etcd 3.4's JSON gateway dials its own TLS listener with the server certificate.
        Path server = sign("server", serverKey, ca, caKey,
                "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth");
        Path ecKey = tmp.resolve("client-ec-key.pem");
        openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", ecKey.toString());
        Path ecCert = sign("client-ec", ecKey, ca, caKey, "extendedKeyUsage=clientAuth");
        Path rsaKey8 = tmp.resolve("client-rsa8-key.pem");
        openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", rsaKey8.toString());
        Path rsaKey1 = tmp.resolve("client-rsa1-key.pem");
        openssl("rsa", "-in", rsaKey8.toString(), "-traditional", "-out", rsaKey1.toString());
        Path rsaCert = sign("client-rsa", rsaKey8, ca, caKey, "extendedKeyUsage=clientAuth");
        assertThat(Files.readString(ecKey)).contains("BEGIN EC PRIVATE KEY");
        assertThat(Files.readString(rsaKey1)).contains("BEGIN RSA PRIVATE KEY");
        assertThat(Files.readString(serverKey)).contains("BEGIN PRIVATE KEY");

        try (EtcdCluster etcd = EtcdCluster.start(tmp.resolve("etcd"), 1, List.of("--cert-file", server.toString(),
                "--key-file", serverKey.toString(), "--trusted-ca-file", ca.toString(), "--client-cert-auth"))) {
            String base = "\"endpoints\":[\"" + etcd.tlsUrl(0) + "\"],\"trustedCAFile\":\"" + ca + "\"";
            call("ADD", "ec", conf(base + ",\"certFile\":\"" + ecCert + "\",\"keyFile\":\"" + ecKey + "\"")).ok();
            call("ADD", "rsa1", conf(base + ",\"certFile\":\"" + rsaCert + "\",\"keyFile\":\"" + rsaKey1 + "\""))
                    .ok();
            call("ADD", "rsa8", conf(base + ",\"certFile\":\"" + rsaCert + "\",\"keyFile\":\"" + rsaKey8 + "\""))
                    .ok();
            List<String> before = etcd.keys("/jcni/");
            assertThat(before).contains("/jcni/ipam/sec/owner/n1/ec/eth0", "/jcni/ipam/sec/owner/n1/rsa1/eth0",
                    "/jcni/ipam/sec/owner/n1/rsa8/eth0");

            CniError noClientCert = call("ADD", "anon", conf(base)).error();
            assertThat(noClientCert.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
            Path otherCa = tmp.resolve("other-ca.pem");
            openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", tmp.resolve("other-key.pem")
                    .toString(), "-out", otherCa.toString(), "-days", "2", "-subj", "/CN=someone-else");
            CniError untrusted = call("ADD", "mitm", conf("\"endpoints\":[\"" + etcd.tlsUrl(0)
                    + "\"],\"trustedCAFile\":\"" + otherCa + "\",\"certFile\":\"" + ecCert + "\",\"keyFile\":\""
                    + ecKey + "\"")).error();
            assertThat(untrusted.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
            assertThat(untrusted.msg()).contains("TLS with https://127.0.0.1:");
            CniError notAKey = call("ADD", "bad", conf(base + ",\"certFile\":\"" + ecCert + "\",\"keyFile\":\""
                    + ca + "\"")).error();
            assertThat(notAKey.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
            assertThat(notAKey.msg()).contains("no unencrypted PEM private key");
            assertThat(etcd.keys("/jcni/")).isEqualTo(before);
        }
    }

    private Path sign(String name, Path key, Path ca, Path caKey, String extensions) throws Exception {
        Path csr = tmp.resolve(name + ".csr");
        Path cert = tmp.resolve(name + ".pem");
        Path ext = Files.writeString(tmp.resolve(name + ".ext"), extensions + "\n");
        openssl("req", "-new", "-key", key.toString(), "-out", csr.toString(), "-subj", "/CN=" + name);
        openssl("x509", "-req", "-in", csr.toString(), "-CA", ca.toString(), "-CAkey", caKey.toString(),
                "-CAcreateserial", "-out", cert.toString(), "-days", "2", "-extfile", ext.toString());
        return cert;
    }

    private void openssl(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/openssl"));
        cmd.addAll(List.of(args));
        run(cmd);
    }

    private static List<String> etcdctl(String endpoint, String user, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/etcdctl", "--endpoints", endpoint));
        if (user != null) {
            cmd.addAll(List.of("--user", user));
        }
        cmd.addAll(List.of(args));
        String out = run(cmd);
        List<String> lines = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (!line.isBlank()) {
                lines.add(line.strip());
            }
        }
        return lines;
    }

    private static String run(List<String> cmd) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("ETCDCTL_API", "3");
        pb.redirectErrorStream(true);
        Process p = pb.start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new AssertionError(cmd + " failed: " + out);
            }
            return out;
        } finally {
            p.destroyForcibly();
        }
    }
}
