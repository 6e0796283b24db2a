import io.jcni.plugins.Plugins;
import io.jcni.runtime.InProcessPlugin;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * One "node" of ClusterIpamExecTest: a JVM of its own that runs {@code count} calls of cluster-ipam at once, each on
 * its own thread, through {@code Plugins.inProcess()} (the resident-service model: one JVM, many concurrent calls).
 * Launched in source-file mode with jcni's modules on the module path.
 *
 * <p>Arguments: {@code <CNI_COMMAND> <node name> <count> <container ID prefix> <config file> <result dir>}; for each
 * call it writes {@code <cid>.json} (stdout) and {@code <cid>.rc} (exit status).
 */
public class ClusterNode {
    public static void main(String[] args) throws Exception {
        String command = args[0];
        String node = args[1];
        int count = Integer.parseInt(args[2]);
        String prefix = args[3];
        byte[] conf = Files.readAllBytes(Path.of(args[4]));
        Path out = Path.of(args[5]);
        InProcessPlugin plugin = Plugins.inProcess().find("cluster-ipam").orElseThrow();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String cid = prefix + "-" + node + "-" + i;
            Thread t = new Thread(() -> {
                Map<String, String> env = new HashMap<>();
                env.put("CNI_COMMAND", command);
                env.put("CNI_CONTAINERID", cid);
                env.put("CNI_NETNS", "/var/run/netns/jcni-sdk-none");
                env.put("CNI_IFNAME", "eth0");
                env.put("CNI_PATH", "/nonexistent");
                env.put("JCNI_NODE_NAME", node);
                ByteArrayOutputStream stdout = new ByteArrayOutputStream();
                ByteArrayOutputStream stderr = new ByteArrayOutputStream();
                try {
                    start.await();
                    int rc = plugin.run(env, conf, stdout, stderr);
                    Files.write(out.resolve(cid + ".json"), stdout.toByteArray());
                    Files.writeString(out.resolve(cid + ".rc"), Integer.toString(rc));
                    Files.write(out.resolve(cid + ".err"), stderr.toByteArray());
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            t.start();
            threads.add(t);
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("node " + node + ": " + count + " " + command + " calls done");
        System.out.flush();
    }
}
