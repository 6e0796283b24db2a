package io.jcni.netlink.internal.wire;

/** Constants from {@code <fcntl.h>}, {@code <sys/file.h>}, {@code <sched.h>}, {@code <linux/nsfs.h>},
 *  {@code <linux/magic.h>}, {@code <sys/mman.h>}, {@code <sys/resource.h>}: open(2), fcntl(2), flock(2),
 *  setns(2)/unshare(2), nsfs ioctl, fstatfs(2), mmap(2) and setpriority(2) constants.
 *  Names and values as in C; {@code HeadersMatchTest} compiles them against the installed headers. */
public final class LibcH {
    private LibcH() {}

    /** The header(s) these constants mirror, for the generated C check. */
    public static final String HEADER = "fcntl.h sys/file.h sched.h linux/nsfs.h linux/magic.h sys/vfs.h sys/mman.h "
            + "sys/resource.h";

    public static final int O_RDONLY = 0;
    public static final int O_WRONLY = 1;
    public static final int O_RDWR = 2;
    public static final int O_CREAT = 64;
    public static final int O_CLOEXEC = 524288;
    public static final int O_NOCTTY = 256;
    public static final int O_NOFOLLOW = 131072;
    public static final int O_NONBLOCK = 2048;
    /** Resolves a path to a descriptor without opening the file itself: no FIFO, device or socket is touched. */
    public static final int O_PATH = 2097152;
    public static final int AT_FDCWD = -100;
    public static final int F_GETFD = 1;
    public static final int F_SETFD = 2;
    public static final int FD_CLOEXEC = 1;
    public static final int LOCK_SH = 1;
    public static final int LOCK_EX = 2;
    public static final int LOCK_NB = 4;
    public static final int LOCK_UN = 8;
    public static final int CLONE_NEWNET = 1073741824;
    /** sched.h: the filesystem information (root, working directory, umask) of a thread. */
    public static final int CLONE_FS = 512;
    public static final int NS_GET_NSTYPE = 46851;
    /** {@code f_type} of a file on nsfs, where namespace files ({@code /proc/PID/ns/net}, their bind mounts) live. */
    public static final int NSFS_MAGIC = 0x6e736673;
    /** linux/magic.h: procfs. */
    public static final int PROC_SUPER_MAGIC = 0x9fa0;
    /** linux/magic.h: sysfs. */
    public static final int SYSFS_MAGIC = 0x62656572;
    /** sys/mman.h: mmap(2)'s protection and flags for a private anonymous mapping (a buffer). */
    public static final int PROT_READ = 1;
    public static final int PROT_WRITE = 2;
    public static final int MAP_PRIVATE = 2;
    public static final int MAP_ANONYMOUS = 32;
    /** sys/resource.h: {@code setpriority(2)}'s "which" for one process or, given a thread id, one thread. */
    public static final int PRIO_PROCESS = 0;
}
