package io.jcni.it.tooling;

import io.jcni.it.support.Conflists;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The Go bridge + host-local network the tooling smoke tests attach: no gateway on the bridge, no ipMasq, a host-local
 * dataDir the test owns, and a default route in the container. The tests run it in a test host all the same.
 */
final class BridgeConflist {

    static final String SUBNET = "10.213.7.0/24";
    static final String FIRST_ADDRESS = "10.213.7.2/24";
    static final String GATEWAY = "10.213.7.1";

    private BridgeConflist() {}

    static Path write(Path file, String cniVersion, String network, String bridge, Path dataDir) throws IOException {
        return Files.writeString(file, Conflists.list(cniVersion, network, Conflists.bridge(bridge, "",
                Conflists.hostLocal(dataDir, List.of(SUBNET), Conflists.route("0.0.0.0/0")))));
    }
}
