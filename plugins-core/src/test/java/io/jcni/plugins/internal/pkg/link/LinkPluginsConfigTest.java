package io.jcni.plugins.internal.pkg.link;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.testing.PluginCall;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Configuration errors of macvlan, ipvlan, vlan, dummy and host-device, with their codes. Every case is refused before
 * the plugin opens CNI_NETNS, which names a namespace that does not exist: reaching it would be code 8 instead.
 */
public class LinkPluginsConfigTest {

    public static CniError addError(String type, String fields) throws CniException {
        return addError(type, fields, null);
    }

    public static CniError addError(String type, String fields, String cniArgs) throws CniException {
        String conf = "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"type\":\"" + type + "\"" + fields + "}";
        return PluginCall.of("ADD").args(cniArgs).stdin(conf).run(PluginRegistry.skel(type)).error();
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', textBlock = """
        macvlan|,"mode":"bridged"|7|unknown macvlan mode: "bridged"
        macvlan|,"mode":"source"|7|unknown macvlan mode: "source"
        macvlan|,"mtu":-1|7|invalid MTU -1, must be [0, master MTU]
        macvlan|,"mtu":"9000"|6|mtu: expected integer, got string
        macvlan|,"mac":"zz:zz:zz:zz:zz:zz"|7|mac: invalid MAC address "zz:zz:zz:zz:zz:zz"
        macvlan|,"mac":"01:00:00:00:00:01"|7|mac: "01:00:00:00:00:01" is a multicast address
        macvlan|,"runtimeConfig":{"mac":"12:34"}|7|mac: invalid MAC address "12:34"
        macvlan|,"bcqueuelen":100|7|bcqueuelen: not supported by jcni's macvlan
        macvlan|,"linkInContainer":"yes"|6|linkInContainer: expected boolean, got string
        macvlan|,"master":5|6|master: expected string, got number
        ipvlan|,"mode":"l4","ipam":{"type":"static"}|7|unknown ipvlan mode: "l4"
        ipvlan|,"mtu":-5,"ipam":{"type":"static"}|7|
        ipvlan||7|ipam.type: missing plugin type
        vlan|,"vlanId":5,"ipam":{"type":"static"}|7|"master" field is required. It specifies the host interface name to create the VLAN for.
        vlan|,"master":"eth0","vlanId":4095,"ipam":{"type":"static"}|7|invalid VLAN ID 4095 (must be between 0 and 4094 inclusive)
        vlan|,"master":"eth0","vlanId":-1,"ipam":{"type":"static"}|7|invalid VLAN ID -1 (must be between 0 and 4094 inclusive)
        vlan|,"master":"eth0","vlanId":"5","ipam":{"type":"static"}|6|vlanId: expected integer, got string
        vlan|,"master":"eth0","vlanId":5,"mtu":-2,"ipam":{"type":"static"}|7|invalid MTU -2, must be [0, master MTU]
        vlan|,"master":"eth0","vlanId":5|7|ipam.type: missing plugin type
        dummy||7|dummy interface requires an IPAM configuration
        host-device||7|specify either "device", "hwaddr", "kernelpath" or "pciBusID"
        host-device|,"hwaddr":"nope"|7|hwaddr: invalid MAC address "nope"
        host-device|,"kernelpath":"/sys/class/net/eth0"|7|kernel device path "/sys/class/net/eth0" must be absolute and begin with /sys/devices/
        host-device|,"kernelpath":"sys/devices/x"|7|kernel device path "sys/devices/x" must be absolute and begin with /sys/devices/
        host-device|,"kernelpath":"/sys/devices/../class/net"|7|kernel device path "/sys/devices/../class/net" must be absolute and begin with /sys/devices/
        host-device|,"pciBusID":"../../../devices/virtual"|7|pciBusID: invalid PCI address "../../../devices/virtual"
        host-device|,"pciBusID":"0000:00:19.8"|7|pciBusID: invalid PCI address "0000:00:19.8"
        host-device|,"device":"x","runtimeConfig":{"deviceID":"mlx5_core.sf.4"}|7|runtimeConfig.deviceID: invalid PCI address "mlx5_core.sf.4"
        """)
    void refusedBeforeTheNamespaceIsOpened(String type, String fields, int code, String message) throws Exception {
        CniError error = addError(type, fields == null ? "" : fields);
        assertThat(error.code()).as(error.toString()).isEqualTo(code);
        if (message != null) {
            assertThat(error.msg()).isEqualTo(message);
        }
    }
}
