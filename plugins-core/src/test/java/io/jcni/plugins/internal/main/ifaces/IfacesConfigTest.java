package io.jcni.plugins.internal.main.ifaces;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.testing.PluginCall;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Configuration errors of macvlan, ipvlan, vlan, dummy and host-device, with their codes. Every case is refused before
 * the plugin opens CNI_NETNS, which names a namespace that does not exist: reaching it would be code 8 instead.
 */
class IfacesConfigTest {

    @TempDir
    Path tmp;

    static CniError addError(String type, String fields) throws CniException {
        return addError(type, fields, null);
    }

    static CniError addError(String type, String fields, String cniArgs) throws CniException {
        String conf = "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"type\":\"" + type + "\"" + fields + "}";
        return PluginCall.of("ADD").args(cniArgs).stdin(conf).run(PluginRegistry.skel(type)).error();
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        "macvlan|,\"mode\":\"bridged\"|7|unknown macvlan mode: \"bridged\"",
        "macvlan|,\"mode\":\"source\"|7|unknown macvlan mode: \"source\"",
        "macvlan|,\"mtu\":-1|7|invalid MTU -1, must be [0, master MTU]",
        "macvlan|,\"mtu\":\"9000\"|6|mtu: expected integer, got string",
        "macvlan|,\"mac\":\"zz:zz:zz:zz:zz:zz\"|7|mac: invalid MAC address \"zz:zz:zz:zz:zz:zz\"",
        "macvlan|,\"mac\":\"01:00:00:00:00:01\"|7|mac: \"01:00:00:00:00:01\" is a multicast address",
        "macvlan|,\"runtimeConfig\":{\"mac\":\"12:34\"}|7|mac: invalid MAC address \"12:34\"",
        "macvlan|,\"bcqueuelen\":100|7|bcqueuelen: not supported by jcni's macvlan",
        "macvlan|,\"linkInContainer\":\"yes\"|6|linkInContainer: expected boolean, got string",
        "macvlan|,\"master\":5|6|master: expected string, got number",
        "ipvlan|,\"mode\":\"l4\",\"ipam\":{\"type\":\"static\"}|7|unknown ipvlan mode: \"l4\"",
        "ipvlan|,\"mtu\":-5,\"ipam\":{\"type\":\"static\"}|7|",
        "ipvlan||7|ipam.type: missing plugin type",
        "vlan|,\"vlanId\":5,\"ipam\":{\"type\":\"static\"}|7|\"master\" field is required. It specifies the host interface name to create the VLAN for.",
        "vlan|,\"master\":\"eth0\",\"vlanId\":4095,\"ipam\":{\"type\":\"static\"}|7|invalid VLAN ID 4095 (must be between 0 and 4094 inclusive)",
        "vlan|,\"master\":\"eth0\",\"vlanId\":-1,\"ipam\":{\"type\":\"static\"}|7|invalid VLAN ID -1 (must be between 0 and 4094 inclusive)",
        "vlan|,\"master\":\"eth0\",\"vlanId\":\"5\",\"ipam\":{\"type\":\"static\"}|6|vlanId: expected integer, got string",
        "vlan|,\"master\":\"eth0\",\"vlanId\":5,\"mtu\":-2,\"ipam\":{\"type\":\"static\"}|7|invalid MTU -2, must be [0, master MTU]",
        "vlan|,\"master\":\"eth0\",\"vlanId\":5|7|ipam.type: missing plugin type",
        "dummy||7|dummy interface requires an IPAM configuration",
        "host-device||7|specify either \"device\", \"hwaddr\", \"kernelpath\" or \"pciBusID\"",
        "host-device|,\"hwaddr\":\"nope\"|7|hwaddr: invalid MAC address \"nope\"",
        "host-device|,\"kernelpath\":\"/sys/class/net/eth0\"|7|kernel device path \"/sys/class/net/eth0\" must be absolute and begin with /sys/devices/",
        "host-device|,\"kernelpath\":\"sys/devices/x\"|7|kernel device path \"sys/devices/x\" must be absolute and begin with /sys/devices/",
        "host-device|,\"kernelpath\":\"/sys/devices/../class/net\"|7|kernel device path \"/sys/devices/../class/net\" must be absolute and begin with /sys/devices/",
        "host-device|,\"pciBusID\":\"../../../devices/virtual\"|7|pciBusID: invalid PCI address \"../../../devices/virtual\"",
        "host-device|,\"pciBusID\":\"0000:00:19.8\"|7|pciBusID: invalid PCI address \"0000:00:19.8\"",
        "host-device|,\"device\":\"x\",\"runtimeConfig\":{\"deviceID\":\"mlx5_core.sf.4\"}|7|runtimeConfig.deviceID: invalid PCI address \"mlx5_core.sf.4\"",
    })
    void refusedBeforeTheNamespaceIsOpened(String type, String fields, int code, String message) throws Exception {
        CniError error = addError(type, fields == null ? "" : fields);
        assertThat(error.code()).as(error.toString()).isEqualTo(code);
        if (message != null) {
            assertThat(error.msg()).isEqualTo(message);
        }
    }

    @Test
    void macvlanTakesOnlyMacFromCniArgs() throws Exception {
        assertThat(addError("macvlan", "", "FOO=1").code()).isEqualTo(CniError.INVALID_ENVIRONMENT_VARIABLES);
        assertThat(addError("macvlan", "", "IgnoreUnknown=1;FOO=1;MAC=xx").msg())
                .isEqualTo("mac: invalid MAC address \"xx\"");
        assertThat(addError("macvlan", "", "IgnoreUnknown=1;FOO=1").code()).as("then the missing namespace")
                .isEqualTo(CniError.INVALID_NETNS);
    }

    static java.util.Optional<io.jcni.spec.Result> prev(String interfaces) throws CniException {
        return java.util.Optional.of(io.jcni.spec.Result.from(io.jcni.spec.CniJson.decodeResult(
                ("{\"cniVersion\":\"1.0.0\",\"interfaces\":" + interfaces + "}")
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8))));
    }

    @Test
    void ipvlanChainedTakesTheSingleNamedInterfaceOfThePrevResultAsMaster() throws Exception {
        IpvlanPlugin.Config defaulted = new IpvlanPlugin.Config("", io.jcni.netlink.IpvlanMode.L2, 0, false,
                io.jcni.spec.Dns.EMPTY);
        assertThat(IpvlanPlugin.masterName(defaulted, prev("[{\"name\":\"ens3\",\"sandbox\":\"/n\"}]"), null))
                .isEqualTo("ens3");
        IpvlanPlugin.Config configured = new IpvlanPlugin.Config("eth1", io.jcni.netlink.IpvlanMode.L3, 0, false,
                io.jcni.spec.Dns.EMPTY);
        assertThat(IpvlanPlugin.masterName(configured, prev("[{\"name\":\"a\"},{\"name\":\"b\"}]"), null))
                .isEqualTo("eth1");
        for (String interfaces : new String[] {"[{\"name\":\"a\"},{\"name\":\"b\"}]", "[]"}) {
            assertThatThrownBy(() -> IpvlanPlugin.masterName(defaulted, prev(interfaces), null))
                    .isInstanceOfSatisfying(CniException.class, e -> {
                        assertThat(e.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
                        assertThat(e.error().msg())
                                .isEqualTo("chained master failure. PrevResult lacks a single named interface");
                    });
        }
    }

    @ParameterizedTest
    @CsvSource({"'',L2", "l2,L2", "l3,L3", "l3s,L3S"})
    void ipvlanModes(String text, io.jcni.netlink.IpvlanMode mode) throws CniException {
        assertThat(IpvlanPlugin.mode(text)).isEqualTo(mode);
    }

    @ParameterizedTest
    @CsvSource({"'',BRIDGE", "bridge,BRIDGE", "private,PRIVATE", "vepa,VEPA", "passthru,PASSTHRU"})
    void macvlanModes(String text, io.jcni.netlink.MacvlanMode mode) throws CniException {
        assertThat(MacvlanPlugin.mode(text)).isEqualTo(mode);
    }

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
