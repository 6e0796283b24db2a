package io.jcni.it.tooling;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The Go bridge + host-local network the tooling smoke tests attach: no gateway on the host bridge (so nothing, not
 * even ip_forward, changes on the host), no ipMasq (no iptables rules), a host-local dataDir the test owns, and a
 * default route in the container.
 */
final class BridgeConflist {

    static final String SUBNET = "10.213.7.0/24";
    static final String FIRST_ADDRESS = "10.213.7.2/24";
    static final String GATEWAY = "10.213.7.1";

    private BridgeConflist() {}

    static Path write(Path file, String cniVersion, String network, String bridge, Path dataDir) throws IOException {
        return Files.writeString(file, """
                {"cniVersion":"%s","name":"%s","plugins":[{"type":"bridge","bridge":"%s",\
                "ipam":{"type":"host-local","dataDir":"%s","ranges":[[{"subnet":"%s"}]],\
                "routes":[{"dst":"0.0.0.0/0"}]}}]}"""
                .formatted(cniVersion, network, bridge, dataDir, SUBNET));
    }
}
