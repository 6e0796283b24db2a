package io.jcni.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.runtime.internal.cache.AttachmentLocks;
import io.jcni.spec.CniJson;
import io.jcni.spec.NetworkConfigList;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CniRuntimeConcurrencyAndCacheTest {
    @TempDir
    Path tmp;

    Path bin;
    Path cacheDir;
    FakePlugin plugin;
    CniRuntime runtime;
    NetworkConfigList list;

    @BeforeEach
    void setUp() throws Exception {
        bin = Files.createDirectory(tmp.resolve("bin"));
        cacheDir = tmp.resolve("cache");
        plugin = FakePlugin.create(bin, "p").answer("ADD", CniRuntimeListTest.R1);
        FakePlugin.create(bin, "q").answer("ADD", CniRuntimeListTest.R1);
        runtime = CniRuntime.create(CniRuntime.Options.of(List.of(bin)).withCacheDir(cacheDir));
        list = CniJson.decodeNetworkConfigList("{\"cniVersion\":\"1.0.0\",\"name\":\"net1\",\"plugins\":[{\"type\":\"p\"}]}"
                .getBytes(StandardCharsets.UTF_8));
    }

    private CompletableFuture<Void> async(ThrowingRunnable body) {
        return CompletableFuture.runAsync(() -> {
            try {
                body.run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, command -> Thread.ofPlatform().start(command));
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    private void awaitCalls(int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (plugin.calls().size() < n) {
            assertThat(System.nanoTime()).as("plugin called " + n + " times").isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    @Test
    void operationsOnTheSameAttachmentAreSerialized() throws Exception {
        plugin.gate("ADD");
        RuntimeConf rt = new RuntimeConf("ctr", "/ns", "eth0");
        CompletableFuture<Void> add = async(() -> runtime.addNetworkList(list, rt));
        awaitCalls(1);
        // The ADD's plugin is now blocked on its gate while holding the attachment.
        Thread[] delThread = new Thread[1];
        CompletableFuture<Void> del = CompletableFuture.runAsync(() -> {
            try {
                runtime.delNetworkList(list, rt);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, command -> delThread[0] = Thread.ofPlatform().start(command));
        awaitState(delThread[0], Thread.State.WAITING);
        assertThat(plugin.commands()).as("DEL has not started its plugin").containsExactly("ADD");

        plugin.openGate();
        add.get(30, TimeUnit.SECONDS);
        del.get(30, TimeUnit.SECONDS);

        assertThat(plugin.commands()).containsExactly("ADD", "DEL");
        assertThat(cacheDir.resolve("results/net1-ctr-eth0")).doesNotExist();
    }

    @Test
    void differentAttachmentsRunInParallel() throws Exception {
        plugin.gate("ADD");
        RuntimeConf first = new RuntimeConf("ctr", "/ns", "eth0");
        RuntimeConf second = new RuntimeConf(otherBucket("ctr", "eth0"), "/ns2", "eth0");
        CompletableFuture<Void> blocked = async(() -> runtime.addNetworkList(list, first));
        awaitCalls(1);

        // The second attachment's ADD completes although the first attachment's ADD is still in its plugin.
        runtime.addNetworkList(CniJson.decodeNetworkConfigList(("""
                {"cniVersion":"1.0.0","name":"net2",\
                "plugins":[{"type":"q"}]}""").getBytes(StandardCharsets.UTF_8)), second);
        assertThat(blocked).isNotDone();

        plugin.openGate();
        blocked.get(30, TimeUnit.SECONDS);
    }

    private static void awaitState(Thread thread, Thread.State state) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (thread.getState() != state) {
            assertThat(System.nanoTime()).as("thread reached " + state).isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    private static String otherBucket(String containerId, String ifName) {
        int bucket = AttachmentLocks.bucket(containerId, ifName);
        for (int i = 0; ; i++) {
            if (AttachmentLocks.bucket(containerId + i, ifName) != bucket) {
                return containerId + i;
            }
        }
    }

    @Test
    void aCorruptCacheFileFailsCheckWithLibcnisText() throws Exception {
        RuntimeConf rt = new RuntimeConf("ctr", "/ns", "eth0");
        Path file = cacheDir.resolve("results/net1-ctr-eth0");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "");

        assertThatThrownBy(() -> runtime.checkNetworkList(list, rt)).hasMessage(
                """
                        failed to get network "net1" cached result: decoding version from network config: \
                        unexpected end of JSON input""");
        assertThat(plugin.calls()).isEmpty();
    }

    @Test
    void aCorruptCacheFileDoesNotBlockDelUnlikeLibcni112() throws Exception {
        RuntimeConf rt = new RuntimeConf("ctr", "/ns", "eth0");
        Path file = cacheDir.resolve("results/net1-ctr-eth0");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "garbage{");

        runtime.delNetworkList(list, rt);

        assertThat(plugin.commands()).containsExactly("DEL");
        assertThat(plugin.calls().getFirst().stdin()).doesNotContain("prevResult");
        assertThat(file).doesNotExist();
    }

    @Test
    void cachedConfigAndAttachmentsComeFromTheCache() throws Exception {
        RuntimeConf rt = new RuntimeConf("ctr", "/ns", "eth0", io.jcni.spec.CniArgs.parse("A=1"),
                io.jcni.spec.JsonObject.EMPTY);
        runtime.addNetworkList(list, rt);

        CachedConfig config = runtime.cachedConfig("net1", new RuntimeConf("ctr", "", "eth0")).orElseThrow();
        assertThat(config.config()).isEqualTo(list.bytes());
        assertThat(config.runtimeConf().args().toString()).isEqualTo("A=1");
        assertThat(runtime.cachedAttachments("ctr")).singleElement().satisfies(a -> {
            assertThat(a.network()).isEqualTo("net1");
            assertThat(a.runtimeConf()).isEqualTo(rt);
        });
        assertThat(runtime.cachedAttachments("other")).isEmpty();
        // Value semantics despite the byte arrays inside.
        assertThat(config).isEqualTo(new CachedConfig(list.bytes(), new RuntimeConf("ctr", "", "eth0",
                io.jcni.spec.CniArgs.parse("A=1"), io.jcni.spec.JsonObject.EMPTY)));
        assertThat(runtime.cachedAttachments("ctr")).containsExactly(new CachedAttachment("net1", rt, list.bytes()));
    }
}
