package io.jcni.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.jcni.spec.CniError;
import io.jcni.spec.CniVersion;
import io.jcni.spec.NetworkConfigList;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NetworkConfigsTest {
    @TempDir
    Path dir;

    private void write(String name, String json) throws Exception {
        Files.createDirectories(dir.resolve(name).getParent());
        Files.writeString(dir.resolve(name), json);
    }

    @Test
    void conflistsComeFirstThenConfsEachInNameOrderAndTheFirstNameWins() throws Exception {
        write("20-b.conflist", "{\"cniVersion\":\"1.0.0\",\"name\":\"shared\",\"plugins\":[{\"type\":\"from-b\"}]}");
        write("10-a.conflist", "{\"cniVersion\":\"1.0.0\",\"name\":\"shared\",\"plugins\":[{\"type\":\"from-a\"}]}");
        write("00-c.conf", "{\"cniVersion\":\"0.4.0\",\"name\":\"shared\",\"type\":\"from-c\"}");
        write("05-d.json", "{\"cniVersion\":\"0.4.0\",\"name\":\"single\",\"type\":\"bridge\"}");
        write("99-e.txt", "{\"cniVersion\":\"0.4.0\",\"name\":\"ignored\",\"type\":\"bridge\"}");
        Files.createDirectory(dir.resolve("30-dir.conflist"));

        NetworkConfigs configs = NetworkConfigs.load(dir);

        assertThat(configs.networks()).extracting(n -> n.file().getFileName().toString())
                .containsExactly("10-a.conflist", "20-b.conflist", "00-c.conf", "05-d.json");
        assertThat(configs.require("shared").plugins().getFirst().type()).isEqualTo("from-a");
        assertThat(configs.problems()).isEmpty();
    }

    /** com.sun.management.ThreadMXBean's count, through reflection: this module does not read the management ones. */
    private static long allocatedByThisThread() throws Exception {
        Object bean = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean")
                .invoke(null);
        return (long) Class.forName("com.sun.management.ThreadMXBean")
                .getMethod("getThreadAllocatedBytes", long.class).invoke(bean, Thread.currentThread().threadId());
    }

    @Test
    void aHugeSparseFileAmongTheConfigurationsIsRefusedWithoutBeingRead() throws Exception {
        write("10-good.conflist", "{\"cniVersion\":\"1.0.0\",\"name\":\"good\",\"plugins\":[{\"type\":\"bridge\"}]}");
        Path huge = dir.resolve("05-huge.conflist");
        try (RandomAccessFile file = new RandomAccessFile(huge.toFile(), "rw")) {
            file.setLength(1L << 30); // 1 GiB, sparse: no disk used
        }

        long before = allocatedByThisThread();
        NetworkConfigs configs = NetworkConfigs.load(dir);
        long allocated = allocatedByThisThread() - before;

        assertThat(configs.require("good").plugins()).hasSize(1);
        assertThat(configs.problems()).singleElement().satisfies(p -> assertThat(p.message()).isEqualTo(
                "error reading " + huge + ": too large to read: 1073741824 bytes, the limit is 4194304 bytes"));
        assertThat(allocated).as("bytes allocated by the load: the 1 GiB file was not read").isLessThan(16L << 20);
    }

    @Test
    void aFifoNamedLikeAConflistIsReportedInsteadOfBlockingTheLoad() throws Exception {
        write("10-good.conflist", "{\"cniVersion\":\"1.0.0\",\"name\":\"good\",\"plugins\":[{\"type\":\"bridge\"}]}");
        Path fifo = dir.resolve("05-fifo.conflist");
        new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor();
        try {
            NetworkConfigs configs = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> NetworkConfigs.load(dir));
            assertThat(configs.require("good").plugins()).hasSize(1);
            assertThat(configs.problems()).singleElement().satisfies(p -> assertThat(p.message())
                    .isEqualTo("error reading " + fifo + ": not a regular file (a FIFO)"));
            assertThatThrownBy(() -> NetworkConfigs.loadFile(fifo)).isInstanceOfSatisfying(CniRuntimeException.class,
                    e -> assertThat(e.code()).isEqualTo(CniError.IO_FAILURE));
        } finally {
            // A reader stuck in open(2) (the bug this guards against) is released by a writer; O_RDWR never blocks.
            FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE).close();
        }
    }

    @Test
    void symbolicLinksToConfigurationsAreFollowedAsConfigMapMountsNeedThem() throws Exception {
        write("..data/10-net.conflist", "{\"cniVersion\":\"1.0.0\",\"name\":\"linked\",\"plugins\":[{\"type\":\"b\"}]}");
        Files.createSymbolicLink(dir.resolve("10-net.conflist"), Path.of("..data/10-net.conflist"));

        assertThat(NetworkConfigs.load(dir).require("linked").plugins()).hasSize(1);
    }

    @Test
    void aSingleConfBecomesAListOfOneAsLibcnisConfListFromConf() throws Exception {
        write("10.conf", "{\"cniVersion\":\"0.3.1\",\"name\":\"single\",\"type\":\"bridge\",\"bridge\":\"cni0\"}");

        NetworkConfigList list = NetworkConfigs.load(dir).require("single");

        assertThat(list.cniVersion()).isEqualTo(CniVersion.V0_3_1);
        assertThat(list.plugins()).singleElement().satisfies(p -> {
            assertThat(p.type()).isEqualTo("bridge");
            assertThat(p.get("bridge")).isPresent();
        });
    }

    @Test
    void aBadFileIsReportedWithoutHidingTheOtherNetworksUnlikeLibcni() throws Exception {
        write("10-broken.conflist", "{\"cniVersion\":\"1.0.0\",\"name\":");
        write("20-good.conflist", "{\"cniVersion\":\"1.0.0\",\"name\":\"good\",\"plugins\":[{\"type\":\"bridge\"}]}");
        write("30-bad-type.conf", "{\"cniVersion\":\"1.0.0\",\"name\":\"x\",\"type\":\"../evil\"}");

        NetworkConfigs configs = NetworkConfigs.load(dir);

        assertThat(configs.require("good").name()).isEqualTo("good");
        assertThat(configs.problems()).extracting(p -> p.file().getFileName().toString())
                .containsExactly("10-broken.conflist", "30-bad-type.conf");
        assertThat(configs.problems().get(1).message()).startsWith(dir.resolve("30-bad-type.conf") + ": type: "
                + "invalid plugin type \"../evil\"");
        assertThatThrownBy(() -> configs.require("missing")).isInstanceOfSatisfying(CniRuntimeException.class, e -> {
            assertThat(e.getMessage()).startsWith("no net configuration with name \"missing\" in " + dir
                    + "; files that could not be loaded: " + dir.resolve("10-broken.conflist") + ": ");
            assertThat(e.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        });
    }

    @Test
    void anEmptyOrMissingDirectoryHasNoConfigurations() throws Exception {
        assertThatThrownBy(() -> NetworkConfigs.load(dir).require("x"))
                .hasMessage("no net configurations found in " + dir);
        assertThat(NetworkConfigs.load(dir.resolve("missing")).networks()).isEmpty();
    }

    @Test
    void aListWithoutPluginsTakesThemFromItsDirectory() throws Exception {
        write("10.conflist", "{\"cniVersion\":\"1.1.0\",\"name\":\"split\"}");
        write("split/20-second.conf", "{\"type\":\"tuning\"}");
        write("split/10-first.conf", "{\"type\":\"bridge\"}");
        write("split/30-ignored.json", "{\"type\":\"ignored\"}");

        NetworkConfigList list = NetworkConfigs.load(dir).require("split");

        assertThat(list.plugins()).extracting(p -> p.type()).containsExactly("bridge", "tuning");
    }

    @Test
    void aListWithInlinePluginsIsTakenAsWritten() throws Exception {
        write("10.conflist", "{\"cniVersion\":\"1.1.0\",\"name\":\"inline\",\"plugins\":[{\"type\":\"bridge\"}]}");
        write("inline/10-extra.conf", "{\"type\":\"tuning\"}");

        assertThat(NetworkConfigs.load(dir).require("inline").plugins()).extracting(p -> p.type())
                .containsExactly("bridge");
    }

    @Test
    void aListWithoutPluginsAnywhereIsAProblem() throws Exception {
        write("10.conflist", "{\"cniVersion\":\"1.1.0\",\"name\":\"empty\"}");
        write("20.conflist", "{\"cniVersion\":\"1.1.0\",\"name\":\"strict\",\"loadOnlyInlinedPlugins\":true}");
        write("strict/10.conf", "{\"type\":\"bridge\"}");

        NetworkConfigs configs = NetworkConfigs.load(dir);

        assertThat(configs.networks()).isEmpty();
        assertThat(configs.problems()).extracting(NetworkConfigs.Problem::message).containsExactly(
                dir.resolve("10.conflist") + ": no plugin configs found; no \"plugins\" in the list and no *.conf "
                        + "files in " + dir.resolve("empty"),
                dir.resolve("20.conflist") + ": plugins: missing, and loadOnlyInlinedPlugins is true");
    }

    @Test
    void loadFileReadsOneFileByExtension() throws Exception {
        write("a.conflist", "{\"cniVersion\":\"1.0.0\",\"name\":\"a\",\"plugins\":[{\"type\":\"bridge\"}]}");
        write("b.json", "{\"cniVersion\":\"1.0.0\",\"name\":\"b\",\"type\":\"ptp\"}");
        write("c.conf", "{\"cniVersion\":\"1.0.0\",\"type\":\"ptp\"}");

        assertThat(NetworkConfigs.loadFile(dir.resolve("a.conflist")).name()).isEqualTo("a");
        assertThat(NetworkConfigs.loadFile(dir.resolve("b.json")).plugins().getFirst().type()).isEqualTo("ptp");
        assertThatThrownBy(() -> NetworkConfigs.loadFile(dir.resolve("c.conf")))
                .hasMessage(dir.resolve("c.conf") + ": name: missing network name");
        assertThatThrownBy(() -> NetworkConfigs.loadFile(dir.resolve("nope.conf")))
                .isInstanceOfSatisfying(CniRuntimeException.class, e ->
                        assertThat(e.code()).isEqualTo(CniError.IO_FAILURE));
    }
}
