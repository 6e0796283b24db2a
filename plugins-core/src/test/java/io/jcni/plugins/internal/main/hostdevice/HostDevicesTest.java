package io.jcni.plugins.internal.main.hostdevice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.spec.CniException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** host-device's sysfs lookups: PCI addresses, a fake sysfs, and the machine's own (read-only). */
class HostDevicesTest {
    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"0000:00:19.0", "0000:3b:00.7", "ffff:ff:1f.0"})
    void pciAddressesInSysfsForm(String pci) throws CniException {
        assertThat(HostDevices.requirePciAddress(pci, "pciBusID")).isEqualTo(pci);
    }

    @Test
    void devicesFoundThroughAFakeSysfs() throws Exception {
        Path devices = Files.createDirectories(tmp.resolve("devices"));
        Path bus = Files.createDirectories(tmp.resolve("bus"));
        Files.createDirectories(devices.resolve("pci0000:00/0000:00:19.0/net/enp0s25"));
        Files.createDirectories(devices.resolve("pci0000:00/0000:00:03.0/virtio2/net/eth0"));
        Files.createDirectories(devices.resolve("pci0000:00/0000:00:04.0"));
        Files.createSymbolicLink(bus.resolve("0000:00:19.0"), devices.resolve("pci0000:00/0000:00:19.0"));
        Files.createSymbolicLink(bus.resolve("0000:00:03.0"), devices.resolve("pci0000:00/0000:00:03.0"));
        Files.createSymbolicLink(bus.resolve("0000:00:04.0"), devices.resolve("pci0000:00/0000:00:04.0"));
        Files.createDirectories(tmp.resolve("drivers/vfio-pci"));
        Files.createSymbolicLink(devices.resolve("pci0000:00/0000:00:04.0/driver"), tmp.resolve("drivers/vfio-pci"));
        Files.createDirectories(tmp.resolve("drivers/e1000e"));
        Files.createSymbolicLink(devices.resolve("pci0000:00/0000:00:19.0/driver"), tmp.resolve("drivers/e1000e"));
        HostDevices sysfs = new HostDevices(devices, bus);

        assertThat(sysfs.byKernelPath("/sys/devices/pci0000:00/0000:00:19.0")).containsExactly("enp0s25");
        assertThat(sysfs.byPci("0000:00:19.0")).containsExactly("enp0s25");
        assertThat(sysfs.byPci("0000:00:03.0")).as("virtio: one level down").containsExactly("eth0");
        assertThat(sysfs.isDpdk("0000:00:19.0")).isFalse();
        assertThat(sysfs.isDpdk("0000:00:04.0")).isTrue();
        assertThatThrownBy(() -> sysfs.byPci("0000:00:04.0")).isInstanceOfSatisfying(CniException.class,
                e -> assertThat(e.error().msg()).isEqualTo("no net directory under pci device 0000:00:04.0"));
        assertThatThrownBy(() -> sysfs.isDpdk("0000:00:05.0")).isInstanceOfSatisfying(CniException.class,
                e -> assertThat(e.error().msg()).isEqualTo("error with host device: no PCI device 0000:00:05.0"));
    }

    @Test
    void theMachinesOwnVirtioNicResolvesReadOnly() throws Exception {
        Path bus = HostDevices.SYS_BUS_PCI;
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(bus), "no PCI bus in sysfs");
        int checked = 0;
        try (var entries = Files.newDirectoryStream(bus)) {
            for (Path function : entries) {
                String pci = function.getFileName().toString();
                Path net = function.resolve("net");
                boolean hasNet = Files.isDirectory(net);
                try {
                    var names = HostDevices.system().byPci(pci);
                    assertThat(names).isNotEmpty();
                    checked++;
                } catch (CniException e) {
                    assertThat(hasNet).as(pci + ": " + e.getMessage()).isFalse();
                }
            }
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(checked > 0, "no PCI function with a network interface");
    }
}
