package io.jcni.runtime.internal.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.runtime.CachedAttachment;
import io.jcni.runtime.CachedConfig;
import io.jcni.runtime.RuntimeConf;
import io.jcni.spec.CniArgs;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.Json;
import io.jcni.spec.JsonObject;
import io.jcni.spec.LegacyResult;
import io.jcni.spec.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultCacheTest {
    /** Written by Go libcni 1.1.2 (copy of it/src/test/resources/libcni-cache/jcni-iop-sample-iop-sample-container-eth0). */
    static final String LIBCNI_FILE = """
            {"kind":"cniCacheV1","containerId":"iop-sample-container","config":\
            "eyJjbmlWZXJzaW9uIjoiMS4wLjAiLCJuYW1lIjoiamNuaS1pb3Atc2FtcGxlIiwicGx1Z2lucyI6W3sidHlwZSI6ImJyaWRnZSIs\
            ImJyaWRnZSI6ImpjbmktaW9wLXNhbXBsZSIsImlwYW0iOnsidHlwZSI6Imhvc3QtbG9jYWwiLCJkYXRhRGlyIjoiL3RtcC9qY25pLWlv\
            cC1zYW1wbGUvaXBhbSIsInJhbmdlcyI6W1t7InN1Ym5ldCI6IjEwLjIxMy43LjAvMjQifV1dLCJyb3V0ZXMiOlt7ImRzdCI6IjAuMC4w\
            LjAvMCJ9XX19XX0=","ifName":"eth0","networkName":"jcni-iop-sample","cniArgs":[["IgnoreUnknown"\
            ,"1"],["K8S_POD_NAME","sample"]],"capabilityArgs":{"mac":"02:00:00:00:00:01","portMappings"\
            :[{"containerPort":80,"hostPort":8080,"protocol":"tcp"}]},"result":{"cniVersion":"1.0.0",\
            "dns":{},"interfaces":[{"mac":"0a:00:00:00:00:01","name":"jcni-iop-sample"},{"mac":\
            "0a:00:00:00:00:01","name":"veth0123abcd"},{"mac":"0a:00:00:00:00:02","name":"eth0",\
            "sandbox":"/var/run/netns/jcni-iop-sample"}],"ips":[{"address":"10.213.7.2/24","gateway":\
            "10.213.7.1","interface":2}],"routes":[{"dst":"0.0.0.0/0"}]}}""";

    static final String RESULT = """
            {"cniVersion":"1.0.0","interfaces":[{"name":"eth0"}],"ips":[{"address"\
            :"10.1.0.2/24","interface":0}]}""";

    @TempDir
    Path tmp;

    ResultCache cache() {
        return new ResultCache(tmp);
    }

    static CniResult result() throws Exception {
        return CniJson.decodeResult(RESULT.getBytes(StandardCharsets.UTF_8));
    }

    Path put(String name, String content) throws Exception {
        Path file = tmp.resolve("results").resolve(name);
        Files.createDirectories(file.getParent());
        return Files.writeString(file, content);
    }

    @Test
    void aLibcniWrittenFileIsReadWhole() throws Exception {
        put("jcni-iop-sample-iop-sample-container-eth0", LIBCNI_FILE);
        RuntimeConf rt = new RuntimeConf("iop-sample-container", "/var/run/netns/x", "eth0");

        Result result = (Result) cache().result("jcni-iop-sample", rt, CniVersion.V1_0_0).orElseThrow();
        assertThat(result.interfaces()).extracting(i -> i.name())
                .containsExactly("jcni-iop-sample", "veth0123abcd", "eth0");
        assertThat(result.ips().getFirst().address().toString()).isEqualTo("10.213.7.2/24");

        CachedConfig config = cache().config("jcni-iop-sample", rt).orElseThrow();
        assertThat(new String(config.config(), StandardCharsets.UTF_8)).startsWith(
                "{\"cniVersion\":\"1.0.0\",\"name\":\"jcni-iop-sample\",\"plugins\":[{\"type\":\"bridge\"");
        assertThat(config.runtimeConf().args()).isEqualTo(CniArgs.parse("IgnoreUnknown=1;K8S_POD_NAME=sample"));
        assertThat(config.runtimeConf().capabilityArgs().keys()).containsExactly("mac", "portMappings");
        assertThat(config.runtimeConf().netns()).as("libcni keeps the caller's netns").isEqualTo("/var/run/netns/x");
    }

    @Test
    void theResultIsConvertedToTheRequestedVersion() throws Exception {
        put("jcni-iop-sample-iop-sample-container-eth0", LIBCNI_FILE);
        RuntimeConf rt = new RuntimeConf("iop-sample-container", "", "eth0");

        CniResult old = cache().result("jcni-iop-sample", rt, CniVersion.V0_2_0).orElseThrow();
        assertThat(old).isInstanceOf(LegacyResult.class);
        assertThat(((LegacyResult) old).ip4().ip().toString()).isEqualTo("10.213.7.2/24");
    }

    @Test
    void writeProducesLibcnisLayoutAtomicallyWithPrivateModes() throws Exception {
        RuntimeConf rt = new RuntimeConf("c1", "/var/run/netns/n1", "eth0", CniArgs.parse("A=1"),
                (JsonObject) Json.parse("{\"portMappings\":[]}"));
        byte[] config = "{\"name\":\"net\"}".getBytes(StandardCharsets.UTF_8);

        cache().write("net", rt, config, result());

        Path file = tmp.resolve("results/net-c1-eth0");
        assertThat(Files.readString(file)).isEqualTo("{\"kind\":\"cniCacheV1\",\"containerId\":\"c1\",\"config\":"
                + "\"eyJuYW1lIjoibmV0In0=\",\"ifName\":\"eth0\",\"networkName\":\"net\",\"netns\":\"/var/run/netns/n1\","
                + "\"cniArgs\":[[\"A\",\"1\"]],\"capabilityArgs\":{\"portMappings\":[]},\"result\":"
                + CniJson.toJson(result()) + "}");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())))
                .isEqualTo("rwx------");
        try (var files = Files.list(file.getParent())) {
            assertThat(files).as("no temporary file left").containsExactly(file);
        }
        assertThat(cache().result("net", rt, CniVersion.V1_0_0)).contains(result());
    }

    @Test
    void emptyOptionalFieldsAreOmittedAsGoOmitsThem() throws Exception {
        cache().write("net", new RuntimeConf("c1", "", "eth0"), new byte[0], result());
        JsonObject doc = (JsonObject) Json.parse(Files.readString(tmp.resolve("results/net-c1-eth0")));
        assertThat(doc.keys()).containsExactly("kind", "containerId", "config", "ifName", "networkName", "result");
    }

    @Test
    void aLegacyBareResultFileIsRead() throws Exception {
        put("net-c1-eth0", "{\"cniVersion\":\"0.2.0\",\"ip4\":{\"ip\":\"10.1.0.2/24\",\"gateway\":\"10.1.0.1\"}}");
        RuntimeConf rt = new RuntimeConf("c1", "", "eth0");

        Result result = (Result) cache().result("net", rt, CniVersion.V1_0_0).orElseThrow();
        assertThat(result.ips().getFirst().address().toString()).isEqualTo("10.1.0.2/24");
        // As in libcni: the config cannot be had from a bare result.
        assertThatThrownBy(() -> cache().config("net", rt))
                .hasMessage("read cached network \"net\" config has wrong kind: ");
    }

    @Test
    void corruptFilesFailWithLibcnisTexts() throws Exception {
        RuntimeConf rt = new RuntimeConf("c1", "", "eth0");
        put("net-c1-eth0", "");
        assertThatThrownBy(() -> cache().result("net", rt, CniVersion.V1_0_0))
                .hasMessage("decoding version from network config: unexpected end of JSON input");
        put("net-c1-eth0", "garbage{");
        assertThatThrownBy(() -> cache().result("net", rt, CniVersion.V1_0_0))
                // libcni then quotes Go's parser: "invalid character 'g' looking for beginning of value".
                .hasMessageStartingWith("decoding version from network config: invalid JSON");
        put("net-c1-eth0", "{\"kind\":\"cniCacheV1\",\"result\":{\"cniVersion\":\"9.9.9\"}}");
        assertThatThrownBy(() -> cache().result("net", rt, CniVersion.V1_0_0))
                .hasMessage("unsupported CNI result version \"9.9.9\"");
    }

    @Test
    void aMissingFileIsNoCachedResult() throws Exception {
        RuntimeConf rt = new RuntimeConf("c1", "", "eth0");
        assertThat(cache().result("net", rt, CniVersion.V1_0_0)).isEmpty();
        assertThat(cache().config("net", rt)).isEmpty();
        assertThat(cache().delete("net", rt)).isFalse();
    }

    @Test
    void attachmentsAreListedSortedFilteredAndBadFilesSkipped() throws Exception {
        ResultCache cache = cache();
        cache.write("net-b", new RuntimeConf("c1", "/ns/1", "eth0"), "{}".getBytes(StandardCharsets.UTF_8), result());
        cache.write("net-a", new RuntimeConf("c1", "", "eth1", CniArgs.parse("K=V"), JsonObject.EMPTY),
                "{}".getBytes(StandardCharsets.UTF_8), result());
        cache.write("net-a", new RuntimeConf("c2", "", "eth0"), "{}".getBytes(StandardCharsets.UTF_8), result());
        put("net-a-c1-garbage", "garbage{");
        put("net-a-c1-legacy", "{\"cniVersion\":\"0.2.0\"}");
        put(".net-a-c1-eth9.tmp-1234", LIBCNI_FILE);

        List<CachedAttachment> all = cache.attachments("");
        assertThat(all).extracting(CachedAttachment::network, a -> a.runtimeConf().containerId(),
                a -> a.runtimeConf().ifName()).containsExactly(
                        org.assertj.core.groups.Tuple.tuple("net-a", "c1", "eth1"),
                        org.assertj.core.groups.Tuple.tuple("net-a", "c2", "eth0"),
                        org.assertj.core.groups.Tuple.tuple("net-b", "c1", "eth0"));
        assertThat(all.getFirst().runtimeConf().args()).isEqualTo(CniArgs.parse("K=V"));
        assertThat(all.getLast().runtimeConf().netns()).isEqualTo("/ns/1");

        assertThat(cache.attachments("c1")).extracting(CachedAttachment::network).containsExactly("net-a", "net-b");
        assertThat(cache.attachments("c3")).isEmpty();
        assertThat(new ResultCache(tmp.resolve("none")).attachments("")).isEmpty();
    }

    @Test
    void deleteRemovesTheEntry() throws Exception {
        RuntimeConf rt = new RuntimeConf("c1", "", "eth0");
        cache().write("net", rt, new byte[0], result());
        assertThat(cache().delete("net", rt)).isTrue();
        assertThat(tmp.resolve("results/net-c1-eth0")).doesNotExist();
    }

    @Test
    void aSymbolicLinkOrFifoPlantedAsACacheEntryIsAnErrorNeverFollowedOrBlocking() throws Exception {
        RuntimeConf rt = new RuntimeConf("c1", "/var/run/netns/n1", "eth0");
        Path secret = Files.writeString(tmp.resolve("secret.json"), RESULT);
        Path entry = cache().file("net", "c1", "eth0");
        Files.createDirectories(entry.getParent());
        Files.createSymbolicLink(entry, secret);

        assertThatThrownBy(() -> cache().result("net", rt, CniVersion.V1_0_0))
                .isInstanceOfSatisfying(io.jcni.spec.CniException.class, e -> assertThat(e.getMessage())
                        .isEqualTo("cannot read cache file " + entry + ": not a regular file (a symbolic link, which "
                                + "is not followed here)"));
        assertThat(cache().exists("net", rt)).as("a link is an entry: ADD is refused, DEL removes it").isTrue();

        Files.delete(entry);
        new ProcessBuilder("mkfifo", entry.toString()).inheritIO().start().waitFor();
        try {
            org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(30), () -> {
                assertThatThrownBy(() -> cache().result("net", rt, CniVersion.V1_0_0))
                        .hasMessageEndingWith("not a regular file (a FIFO)");
                assertThat(cache().attachments("")).as("skipped, as unreadable files are").isEmpty();
            });
        } finally {
            java.nio.channels.FileChannel.open(entry, java.nio.file.StandardOpenOption.READ,
                    java.nio.file.StandardOpenOption.WRITE).close();
        }
    }
}
