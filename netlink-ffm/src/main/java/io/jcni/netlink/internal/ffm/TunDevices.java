package io.jcni.netlink.internal.ffm;

import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.internal.wire.Errno;
import io.jcni.netlink.internal.wire.IfTunH;
import io.jcni.netlink.internal.wire.LibcH;
import io.jcni.netlink.internal.wire.Offsets;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Persistent TUN/TAP devices through {@code /dev/net/tun} ({@code <linux/if_tun.h>}), each ioctl through the module's
 * one {@code syscall(2)} downcall. The device is created in the network namespace of the calling thread (the kernel
 * takes the namespace of the thread that opens {@code /dev/net/tun}); callers switch with {@code NetNs.call}.
 */
public final class TunDevices {
    private TunDevices() {}

    private static final String TUN = "/dev/net/tun";

    /**
     * Opens {@code /dev/net/tun}, attaches it to a new device ({@code TUNSETIFF} with {@code flags}), sets owner and
     * group when not -1, makes it persistent and closes the file; returns the device's name as the kernel gave it.
     * Until {@code TUNSETPERSIST} the device lives only as long as the file, so a failure before it leaves nothing.
     */
    public static String create(String name, int flags, int owner, int group) {
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        if (bytes.length >= Offsets.IFR_FLAGS) {
            throw new IllegalArgumentException("interface name too long: " + name);
        }
        int fd = Syscalls.open(TUN, LibcH.O_RDWR, 0);
        try (Arena arena = NativeMemory.confined()) {
            MemorySegment ifreq = arena.allocate(Offsets.IFREQ_SIZE, 8);
            ByteBuffer view = NativeMemory.view(ifreq);
            view.put(Offsets.IFR_NAME, bytes, 0, bytes.length);
            view.putShort(Offsets.IFR_FLAGS, (short) flags);
            MemorySegment state = arena.allocate(NativeAccess.stateSize());
            long r = NativeAccess.syscall(state, Sysno.ioctl, fd, IfTunH.TUNSETIFF, ifreq.address(), 0, 0, 0);
            if (r < 0) {
                int errno = NativeAccess.errno(state);
                if (errno == Errno.EBUSY && (flags & IfTunH.IFF_TUN_EXCL) != 0) {
                    throw new NetlinkException("TUNSETIFF " + name, Errno.EEXIST, "a link named " + name
                            + " exists", null);
                }
                throw new NetlinkException("TUNSETIFF " + name, errno, null);
            }
            byte[] actual = new byte[Offsets.IFR_FLAGS];
            view.get(Offsets.IFR_NAME, actual);
            int length = 0;
            while (length < actual.length && actual[length] != 0) {
                length++;
            }
            String created = new String(actual, 0, length, StandardCharsets.UTF_8);
            if (owner >= 0) {
                ioctl(state, fd, IfTunH.TUNSETOWNER, owner, "TUNSETOWNER " + created + " " + owner);
            }
            if (group >= 0) {
                ioctl(state, fd, IfTunH.TUNSETGROUP, group, "TUNSETGROUP " + created + " " + group);
            }
            ioctl(state, fd, IfTunH.TUNSETPERSIST, 1, "TUNSETPERSIST " + created);
            return created;
        } finally {
            Syscalls.close(fd);
        }
    }

    private static void ioctl(MemorySegment state, int fd, int request, long value, String what) {
        long r = NativeAccess.syscall(state, Sysno.ioctl, fd, request, value, 0, 0, 0);
        if (r < 0) {
            throw new NetlinkException(what, NativeAccess.errno(state), null);
        }
    }
}
