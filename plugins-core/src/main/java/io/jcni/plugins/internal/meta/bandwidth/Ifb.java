package io.jcni.plugins.internal.meta.bandwidth;

import io.jcni.netlink.Link;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The ifb device that shapes one attachment's egress: its name, as Go's bandwidth plugin derives it, and the alias
 * jcni gives it so that GC recognizes the devices this network's bandwidth made.
 *
 * <p>Name: {@code bwp} and the hex SHA-512 of the network name followed by the container ID, cut to 15 bytes (Go's
 * {@code utils.MustFormatHashWithPrefix(15, "bwp", name+containerID)}): the same attachment gets the same device
 * under Go's plugin and jcni's, so either one's DEL removes what the other's ADD made.
 *
 * <p>Alias ({@code IFLA_IFALIAS}): {@code jcni-bandwidth <network> <containerID>}. A hash cannot be reversed, so
 * without it GC could not tell an ifb of this network from one of another network or another tool; with it, GC
 * removes only devices whose alias names this network and whose name is the hash of that alias. Go's plugin sets no
 * alias: its devices are left to its DEL. Network names and container IDs contain no spaces (CNI's naming rules), so
 * the alias reads back unambiguously.
 */
final class Ifb {
    static final String PREFIX = "bwp";
    static final int NAME_LENGTH = 15;
    private static final String ALIAS_PREFIX = "jcni-bandwidth ";
    /** {@code IFALIASZ - 1}: longer aliases are refused by the kernel; such an ifb simply gets none. */
    private static final int MAX_ALIAS = 255;
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Ifb() {
    }

    /** The device name for the attachment of {@code containerId} to {@code network}. */
    static String name(String network, String containerId) throws CniException {
        byte[] digest;
        try {
            digest = MessageDigest.getInstance("SHA-512").digest((network + containerId)
                    .getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new CniException(CniError.INTERNAL, "SHA-512 is not available in this Java runtime");
        }
        char[] name = new char[NAME_LENGTH];
        PREFIX.getChars(0, PREFIX.length(), name, 0);
        for (int i = PREFIX.length(), b = 0; i < NAME_LENGTH; i += 2, b++) {
            name[i] = HEX[(digest[b] >> 4) & 0xf];
            if (i + 1 < NAME_LENGTH) {
                name[i + 1] = HEX[digest[b] & 0xf];
            }
        }
        return new String(name);
    }

    /** The alias marking the device as this attachment's, or "" if it would be too long for the kernel. */
    static String alias(String network, String containerId) {
        String alias = ALIAS_PREFIX + network + " " + containerId;
        return alias.getBytes(StandardCharsets.UTF_8).length > MAX_ALIAS ? "" : alias;
    }

    /**
     * The container ID of the attachment to {@code network} that {@code link} shapes, if jcni's bandwidth made it for
     * that network: an ifb whose alias names {@code network} and whose name is the one derived from that alias. Null
     * for anything else (another network's device, Go's, one renamed or re-aliased by someone else).
     */
    static String containerOf(Link link, String network) throws CniException {
        if (!link.kind().equals("ifb") || !link.alias().startsWith(ALIAS_PREFIX)) {
            return null;
        }
        String rest = link.alias().substring(ALIAS_PREFIX.length());
        int space = rest.indexOf(' ');
        if (space <= 0 || !rest.substring(0, space).equals(network)) {
            return null;
        }
        String containerId = rest.substring(space + 1);
        if (containerId.isEmpty() || !link.name().equals(name(network, containerId))) {
            return null;
        }
        return containerId;
    }
}
