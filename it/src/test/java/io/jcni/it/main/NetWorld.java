package io.jcni.it.main;

import io.jcni.it.support.HostLocalFiles;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Names;
import io.jcni.it.support.NetlinkView;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import io.jcni.runtime.CniRuntime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What one interface-plugin test works in: a {@link TestHost} (the plugins' host; its bridges and veth ends, routes
 * and forwarding sysctls are read back there) with container namespaces, and IPAM data and cache dirs under the test's
 * temp dir. Closing deletes the namespaces, and with the host everything the plugins made on it, also when the test
 * failed.
 */
final class NetWorld implements AutoCloseable {
    static final String TAG = "net";

    final Path tmp;
    final TestHost host;

    NetWorld(Path tmp) {
        Prerequisites.assumeRoot();
        this.tmp = tmp;
        this.host = TestHost.create(TAG);
    }

    /** A fresh container namespace. */
    TestNetns netns() {
        return host.container();
    }

    /** A unique bridge name: {@code jcni-net-} and 6 hex digits (the bridge itself goes with the host). */
    String bridge() {
        return Names.link(TAG);
    }

    Path dataDir() {
        return tmp.resolve("ipam");
    }

    /** Go libcni in the host, jcni's launchers first in CNI_PATH, Debian's reference plugins after them. */
    LibcniDriver libcniWithJcni(String cacheName) {
        Prerequisites.assumeDistPlugins("bridge", "ptp");
        return host.libcni(List.of(Locations.distCniBin(), Locations.referencePlugins()), tmp.resolve(cacheName));
    }

    /** Go libcni in the host with Debian's reference plugins only. */
    LibcniDriver libcniWithGo(String cacheName) {
        Prerequisites.assumeReferencePlugins("bridge", "ptp", "host-local");
        return host.libcni(List.of(Locations.referencePlugins()), tmp.resolve(cacheName));
    }

    /** Options of a jcni runtime in this JVM whose plugins, found in {@code cniPath}, run in the host. */
    CniRuntime.Options runtimeOptions(List<Path> cniPath) {
        return CniRuntime.Options.of(host.runtimeCniPath(tmp.resolve("host-bin"), cniPath));
    }

    /** The host seen through jcni's netlink layer. */
    NetlinkView hostView() {
        return NetlinkView.of(host);
    }

    Path write(String name, String json) throws IOException {
        return Files.writeString(tmp.resolve(name), json);
    }

    /** The reservation files host-local keeps for {@code network} (its lock and last-reserved markers excluded). */
    List<String> reservations(String network) {
        return HostLocalFiles.reservations(dataDir(), network);
    }

    @Override
    public void close() {
        host.close();
    }
}
