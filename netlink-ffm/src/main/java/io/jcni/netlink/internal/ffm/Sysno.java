package io.jcni.netlink.internal.ffm;

/**
 * System call numbers for the calls this module makes through the single {@code syscall(2)} downcall. x86-64 numbers
 * come from {@code <asm/unistd_64.h>} (via {@code <sys/syscall.h>}); aarch64 uses the generic table of
 * {@code <asm-generic/unistd.h>}. {@code HeadersMatchTest} compiles both against the installed headers.
 */
public enum Sysno {
    read(0, 63),
    write(1, 64),
    close(3, 57),
    mmap(9, 222),
    munmap(11, 215),
    ioctl(16, 29),
    socket(41, 198),
    connect(42, 203),
    sendto(44, 206),
    recvfrom(45, 207),
    sendmsg(46, 211),
    recvmsg(47, 212),
    shutdown(48, 210),
    bind(49, 200),
    listen(50, 201),
    getsockname(51, 204),
    setsockopt(54, 208),
    getsockopt(55, 209),
    fcntl(72, 25),
    fchdir(81, 50),
    flock(73, 32),
    fstatfs(138, 44),
    gettid(186, 178),
    getpriority(140, 141),
    setpriority(141, 140),
    openat(257, 56),
    unshare(272, 97),
    accept4(288, 242),
    setns(308, 268);

    private final int x8664;
    private final int generic;

    Sysno(int x8664, int generic) {
        this.x8664 = x8664;
        this.generic = generic;
    }

    /** The number on x86-64. */
    public int x8664() {
        return x8664;
    }

    /** The number in the generic table (aarch64, riscv64). */
    public int generic() {
        return generic;
    }

    /** The number on the running architecture; {@link NativeAccess#check()} has rejected any other architecture. */
    long number() {
        return NativeAccess.X86_64 ? x8664 : generic;
    }
}
