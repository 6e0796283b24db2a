package io.jcni.netlink.internal.ffm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.internal.wire.Errno;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import org.junit.jupiter.api.Test;

/** The single downcall: errno capture, and the member-walking offset agrees with the JDK's layout paths. */
class NativeAccessTest {

    @Test
    void errnoOffsetFoundByWalkingMembersEqualsTheLayoutPath() {
        assertThat(NativeAccess.offsetOf(Linker.Option.captureStateLayout(), "errno")).isEqualTo(
                Linker.Option.captureStateLayout().byteOffset(MemoryLayout.PathElement.groupElement("errno")));
        assertThat(NativeAccess.offsetOf(Structs.NLMSGHDR, "nlmsg_seq")).isEqualTo(8);
    }

    @Test
    void aFailingSystemCallReportsItsErrno() {
        NativeAccess.check();
        assertThat(catchThrowableOfType(NetlinkException.class, () -> Syscalls.close(-1)).errno())
                .isEqualTo(Errno.EBADF);
        assertThat(catchThrowableOfType(NetlinkException.class, () -> Syscalls.open("/nonexistent/jcni", 0, 0))
                .getMessage()).isEqualTo("open /nonexistent/jcni: ENOENT (No such file or directory)");
    }
}
