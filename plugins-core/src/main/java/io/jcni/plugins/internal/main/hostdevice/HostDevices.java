package io.jcni.plugins.internal.main.hostdevice;

import io.jcni.plugins.sdk.CallerNetns;
import io.jcni.runtime.internal.files.IoText;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Where host-device finds a device other than by name or MAC: sysfs. {@code kernelpath} names a device directory
 * under {@code /sys/devices/} whose {@code net/} directory lists its interfaces; {@code pciBusID} (or the runtime's
 * {@code deviceID}) names a PCI function under {@code /sys/bus/pci/devices}, whose interfaces are in {@code net/} or,
 * for virtio devices, in {@code virtio*}/net/. A function bound to a user-space driver (vfio-pci, uio_pci_generic,
 * igb_uio) has no kernel interface: DPDK mode, nothing to move.
 *
 * <p>sysfs shows the interfaces of the network namespace it was mounted for: the plugin's ({@code ip netns exec}
 * remounts it); in jcni's plugin service, the client's, handed over ({@link CallerNetns#sysfs()}). The roots are
 * parameters so that tests can lay out a fake tree.
 */
final class HostDevices {
    static final Path SYS_DEVICES = Path.of("/sys/devices");
    static final Path SYS_BUS_PCI = Path.of("/sys/bus/pci/devices");
    /** Go's {@code userspaceDrivers}. */
    static final List<String> USERSPACE_DRIVERS = List.of("vfio-pci", "uio_pci_generic", "igb_uio");

    private final Path sysDevices;
    private final Path sysBusPci;

    HostDevices(Path sysDevices, Path sysBusPci) {
        this.sysDevices = sysDevices;
        this.sysBusPci = sysBusPci;
    }

    /** The sysfs of the call running on this thread: {@code /sys}, or the one its caller handed over. */
    static HostDevices system() {
        Path sysfs = CallerNetns.sysfs();
        return new HostDevices(sysfs.resolve("devices"), sysfs.resolve("bus/pci/devices"));
    }

    /**
     * A PCI address, {@code DDDD:BB:DD.F} in hex: anything else (a path, {@code ..}) is refused with code 7 before
     * it is joined to a sysfs path.
     */
    static String requirePciAddress(String text, String field) throws CniException {
        boolean ok = text.length() == 12 && text.charAt(4) == ':' && text.charAt(7) == ':' && text.charAt(10) == '.';
        for (int i = 0; ok && i < text.length(); i++) {
            if (i != 4 && i != 7 && i != 10) {
                ok = Character.digit(text.charAt(i), 16) >= 0;
            }
        }
        if (!ok || text.charAt(11) > '7') {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, field + ": invalid PCI address \"" + text + "\"",
                    "expected domain:bus:device.function, e.g. 0000:00:19.0");
        }
        return text;
    }

    /**
     * The interfaces of the device at {@code kernelPath}, sorted (Go takes the first): the path must be absolute,
     * under /sys/devices, without {@code .} or {@code ..} components (code 7).
     */
    List<String> byKernelPath(String kernelPath) throws CniException {
        Path path = requireKernelPath(kernelPath);
        Path local = sysDevices.resolve(Path.of("/sys/devices").relativize(path).toString());
        return names(local.resolve("net"), "failed to find network devices at \"" + path.resolve("net") + "\"");
    }

    /** {@code kernelpath} checked (see {@link #byKernelPath}): code 7 unless a clean path under /sys/devices/. */
    static Path requireKernelPath(String kernelPath) throws CniException {
        Path path = Path.of(kernelPath);
        boolean clean = path.isAbsolute() && path.normalize().equals(path) && !kernelPath.contains("/./")
                && !kernelPath.endsWith("/.");
        Path root = Path.of("/sys/devices");
        if (!clean || !path.startsWith(root) || path.equals(root)) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "kernel device path \"" + kernelPath
                    + "\" must be absolute and begin with /sys/devices/");
        }
        return path;
    }

    /** The interfaces of PCI function {@code pci}, sorted, from {@code net/} or {@code virtio*}/net/. */
    List<String> byPci(String pci) throws CniException {
        Path device = sysBusPci.resolve(pci);
        Path net = device.resolve("net");
        if (!Files.exists(net, LinkOption.NOFOLLOW_LINKS)) {
            net = null;
            try (DirectoryStream<Path> children = Files.newDirectoryStream(device, "virtio*")) {
                List<Path> virtio = new ArrayList<>();
                for (Path child : children) {
                    if (Files.isDirectory(child.resolve("net"))) {
                        virtio.add(child.resolve("net"));
                    }
                }
                Collections.sort(virtio);
                net = virtio.isEmpty() ? null : virtio.get(0);
            } catch (IOException e) {
                net = null;
            }
            if (net == null) {
                throw new CniException(CniError.INTERNAL, "no net directory under pci device " + pci);
            }
        }
        List<String> names = names(net, "failed to read net directory " + net);
        if (names.isEmpty()) {
            throw new CniException(CniError.INTERNAL, "failed to find device name for pci address " + pci);
        }
        return names;
    }

    /** Whether PCI function {@code pci} is bound to a user-space (DPDK) driver. */
    boolean isDpdk(String pci) throws CniException {
        Path driver = sysBusPci.resolve(pci).resolve("driver");
        try {
            Path target = Files.readSymbolicLink(driver);
            return USERSPACE_DRIVERS.contains(target.getFileName().toString());
        } catch (NoSuchFileException e) {
            if (!Files.isDirectory(sysBusPci.resolve(pci))) {
                throw new CniException(CniError.INTERNAL, "error with host device: no PCI device " + pci,
                        sysBusPci.resolve(pci) + " does not exist");
            }
            return false;
        } catch (IOException e) {
            throw new CniException(CniError.INTERNAL, "error with host device: cannot read " + driver + ": "
                    + IoText.reason(e));
        } catch (UnsupportedOperationException e) {
            throw new CniException(CniError.INTERNAL, "error with host device: cannot read " + driver + ": "
                    + e.getMessage());
        }
    }

    private static List<String> names(Path dir, String failure) throws CniException {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> children = Files.newDirectoryStream(dir)) {
            for (Path child : children) {
                names.add(child.getFileName().toString());
            }
        } catch (IOException e) {
            throw new CniException(CniError.INTERNAL, failure, dir + ": " + IoText.reason(e));
        }
        Collections.sort(names);
        return names;
    }
}
