package io.jcni.plugins.internal.pkg.ns;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.netlink.NetlinkException;
import io.jcni.spec.CniError;
import org.junit.jupiter.api.Test;

/** netlink-ffm's failures as CNI errors at the plugin edge. */
class NetErrorsTest {

    @Test
    void netlinkFailuresBecomeCniErrorsWithTheKernelsWordsAndAHint() {
        var busy = NetErrors.failure("failed to x", new NetlinkException("RTM_NEWLINK br0", 16, "device busy"));
        assertThat(busy.code()).isEqualTo(CniError.TRY_AGAIN_LATER);
        assertThat(busy.error().msg()).isEqualTo("failed to x: RTM_NEWLINK br0: EBUSY (Device or resource busy): "
                + "device busy");
        var denied = NetErrors.failure("failed to y", new NetlinkException("RTM_NEWLINK br0", 1, null));
        assertThat(denied.code()).isEqualTo(CniError.INTERNAL);
        assertThat(denied.error().details()).contains("CAP_NET_ADMIN");
        var unsupported = NetErrors.failure("failed to z", new NetlinkException("RTM_NEWLINK v", 95, "Unknown"));
        assertThat(unsupported.error().msg()).contains("EOPNOTSUPP");
        assertThat(unsupported.error().details()).contains("not built into this kernel");
        var exists = NetErrors.failure("failed", new NetlinkException("RTM_NEWADDR", 17, null));
        assertThat(exists.error().details()).isEmpty();
    }
}
