package io.jcni.spec;

import java.util.List;
import java.util.Objects;

/**
 * An interface in a result ({@code interfaces[]}). Empty strings and zero MTU mean "absent" and are omitted on the
 * wire, as libcni omits them.
 *
 * @param name       the interface name
 * @param mac        the hardware address, or ""
 * @param mtu        the MTU, or 0 (1.1.0 and later)
 * @param sandbox    the isolation domain (netns path) for a container-side interface, "" for a host interface
 * @param socketPath a socket path for a vhost-user style interface, or "" (1.1.0 and later)
 * @param pciID      the PCI ID of a device assigned to the container, or "" (1.1.0 and later)
 */
public record Interface(String name, String mac, int mtu, String sandbox, String socketPath, String pciID) {
    public Interface {
        Objects.requireNonNull(name, "name");
        mac = mac == null ? "" : mac;
        sandbox = sandbox == null ? "" : sandbox;
        socketPath = socketPath == null ? "" : socketPath;
        pciID = pciID == null ? "" : pciID;
        if (mtu < 0) {
            throw new IllegalArgumentException("mtu must not be negative: " + mtu);
        }
    }

    /** An interface with the fields every version has. */
    public Interface(String name, String mac, String sandbox) {
        this(name, mac, 0, sandbox, "", "");
    }

    /** {@code interfaces} without the fields 1.1.0 added. */
    static List<Interface> withoutV110Fields(List<Interface> interfaces) {
        Interface[] stripped = new Interface[interfaces.size()];
        for (int i = 0; i < stripped.length; i++) {
            stripped[i] = interfaces.get(i).withoutV110Fields();
        }
        return List.of(stripped);
    }

    /** This interface without the fields that 1.1.0 added (mtu, socketPath, pciID). */
    public Interface withoutV110Fields() {
        return mtu == 0 && socketPath.isEmpty() && pciID.isEmpty() ? this : new Interface(name, mac, sandbox);
    }
}
