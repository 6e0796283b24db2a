package io.jcni.netlink.internal.wire;

/** Linux errno values with their C names and glibcs {@code strerror} text, from {@code <errno.h>}
 *  ({@code <asm-generic/errno-base.h>}, {@code <asm-generic/errno.h>}). {@code HeadersMatchTest} compiles every entry and
 *  compares value and text. Aliases ({@code EWOULDBLOCK}, {@code EDEADLOCK}) map to their canonical name. */
public final class Errno {
    private Errno() {}

    /** The header these constants mirror, for the generated C check. */
    public static final String HEADER = "errno.h string.h";

    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int ESRCH = 3;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int ENXIO = 6;
    public static final int E2BIG = 7;
    public static final int ENOEXEC = 8;
    public static final int EBADF = 9;
    public static final int ECHILD = 10;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int ENOTBLK = 15;
    public static final int EBUSY = 16;
    public static final int EEXIST = 17;
    public static final int EXDEV = 18;
    public static final int ENODEV = 19;
    public static final int ENOTDIR = 20;
    public static final int EISDIR = 21;
    public static final int EINVAL = 22;
    public static final int ENFILE = 23;
    public static final int EMFILE = 24;
    public static final int ENOTTY = 25;
    public static final int ETXTBSY = 26;
    public static final int EFBIG = 27;
    public static final int ENOSPC = 28;
    public static final int ESPIPE = 29;
    public static final int EROFS = 30;
    public static final int EMLINK = 31;
    public static final int EPIPE = 32;
    public static final int EDOM = 33;
    public static final int ERANGE = 34;
    public static final int EDEADLK = 35;
    public static final int ENAMETOOLONG = 36;
    public static final int ENOLCK = 37;
    public static final int ENOSYS = 38;
    public static final int ENOTEMPTY = 39;
    public static final int ELOOP = 40;
    public static final int ENOMSG = 42;
    public static final int EIDRM = 43;
    public static final int ECHRNG = 44;
    public static final int EL2NSYNC = 45;
    public static final int EL3HLT = 46;
    public static final int EL3RST = 47;
    public static final int ELNRNG = 48;
    public static final int EUNATCH = 49;
    public static final int ENOCSI = 50;
    public static final int EL2HLT = 51;
    public static final int EBADE = 52;
    public static final int EBADR = 53;
    public static final int EXFULL = 54;
    public static final int ENOANO = 55;
    public static final int EBADRQC = 56;
    public static final int EBADSLT = 57;
    public static final int EBFONT = 59;
    public static final int ENOSTR = 60;
    public static final int ENODATA = 61;
    public static final int ETIME = 62;
    public static final int ENOSR = 63;
    public static final int ENONET = 64;
    public static final int ENOPKG = 65;
    public static final int EREMOTE = 66;
    public static final int ENOLINK = 67;
    public static final int EADV = 68;
    public static final int ESRMNT = 69;
    public static final int ECOMM = 70;
    public static final int EPROTO = 71;
    public static final int EMULTIHOP = 72;
    public static final int EDOTDOT = 73;
    public static final int EBADMSG = 74;
    public static final int EOVERFLOW = 75;
    public static final int ENOTUNIQ = 76;
    public static final int EBADFD = 77;
    public static final int EREMCHG = 78;
    public static final int ELIBACC = 79;
    public static final int ELIBBAD = 80;
    public static final int ELIBSCN = 81;
    public static final int ELIBMAX = 82;
    public static final int ELIBEXEC = 83;
    public static final int EILSEQ = 84;
    public static final int ERESTART = 85;
    public static final int ESTRPIPE = 86;
    public static final int EUSERS = 87;
    public static final int ENOTSOCK = 88;
    public static final int EDESTADDRREQ = 89;
    public static final int EMSGSIZE = 90;
    public static final int EPROTOTYPE = 91;
    public static final int ENOPROTOOPT = 92;
    public static final int EPROTONOSUPPORT = 93;
    public static final int ESOCKTNOSUPPORT = 94;
    public static final int EOPNOTSUPP = 95;
    public static final int EPFNOSUPPORT = 96;
    public static final int EAFNOSUPPORT = 97;
    public static final int EADDRINUSE = 98;
    public static final int EADDRNOTAVAIL = 99;
    public static final int ENETDOWN = 100;
    public static final int ENETUNREACH = 101;
    public static final int ENETRESET = 102;
    public static final int ECONNABORTED = 103;
    public static final int ECONNRESET = 104;
    public static final int ENOBUFS = 105;
    public static final int EISCONN = 106;
    public static final int ENOTCONN = 107;
    public static final int ESHUTDOWN = 108;
    public static final int ETOOMANYREFS = 109;
    public static final int ETIMEDOUT = 110;
    public static final int ECONNREFUSED = 111;
    public static final int EHOSTDOWN = 112;
    public static final int EHOSTUNREACH = 113;
    public static final int EALREADY = 114;
    public static final int EINPROGRESS = 115;
    public static final int ESTALE = 116;
    public static final int EUCLEAN = 117;
    public static final int ENOTNAM = 118;
    public static final int ENAVAIL = 119;
    public static final int EISNAM = 120;
    public static final int EREMOTEIO = 121;
    public static final int EDQUOT = 122;
    public static final int ENOMEDIUM = 123;
    public static final int EMEDIUMTYPE = 124;
    public static final int ECANCELED = 125;
    public static final int ENOKEY = 126;
    public static final int EKEYEXPIRED = 127;
    public static final int EKEYREVOKED = 128;
    public static final int EKEYREJECTED = 129;
    public static final int EOWNERDEAD = 130;
    public static final int ENOTRECOVERABLE = 131;
    public static final int ERFKILL = 132;
    public static final int EHWPOISON = 133;

    private static final String[] NAMES = new String[134];
    private static final String[] MESSAGES = new String[134];

    static {
        put(EPERM, "EPERM", "Operation not permitted");
        put(ENOENT, "ENOENT", "No such file or directory");
        put(ESRCH, "ESRCH", "No such process");
        put(EINTR, "EINTR", "Interrupted system call");
        put(EIO, "EIO", "Input/output error");
        put(ENXIO, "ENXIO", "No such device or address");
        put(E2BIG, "E2BIG", "Argument list too long");
        put(ENOEXEC, "ENOEXEC", "Exec format error");
        put(EBADF, "EBADF", "Bad file descriptor");
        put(ECHILD, "ECHILD", "No child processes");
        put(EAGAIN, "EAGAIN", "Resource temporarily unavailable");
        put(ENOMEM, "ENOMEM", "Cannot allocate memory");
        put(EACCES, "EACCES", "Permission denied");
        put(EFAULT, "EFAULT", "Bad address");
        put(ENOTBLK, "ENOTBLK", "Block device required");
        put(EBUSY, "EBUSY", "Device or resource busy");
        put(EEXIST, "EEXIST", "File exists");
        put(EXDEV, "EXDEV", "Invalid cross-device link");
        put(ENODEV, "ENODEV", "No such device");
        put(ENOTDIR, "ENOTDIR", "Not a directory");
        put(EISDIR, "EISDIR", "Is a directory");
        put(EINVAL, "EINVAL", "Invalid argument");
        put(ENFILE, "ENFILE", "Too many open files in system");
        put(EMFILE, "EMFILE", "Too many open files");
        put(ENOTTY, "ENOTTY", "Inappropriate ioctl for device");
        put(ETXTBSY, "ETXTBSY", "Text file busy");
        put(EFBIG, "EFBIG", "File too large");
        put(ENOSPC, "ENOSPC", "No space left on device");
        put(ESPIPE, "ESPIPE", "Illegal seek");
        put(EROFS, "EROFS", "Read-only file system");
        put(EMLINK, "EMLINK", "Too many links");
        put(EPIPE, "EPIPE", "Broken pipe");
        put(EDOM, "EDOM", "Numerical argument out of domain");
        put(ERANGE, "ERANGE", "Numerical result out of range");
        put(EDEADLK, "EDEADLK", "Resource deadlock avoided");
        put(ENAMETOOLONG, "ENAMETOOLONG", "File name too long");
        put(ENOLCK, "ENOLCK", "No locks available");
        put(ENOSYS, "ENOSYS", "Function not implemented");
        put(ENOTEMPTY, "ENOTEMPTY", "Directory not empty");
        put(ELOOP, "ELOOP", "Too many levels of symbolic links");
        put(ENOMSG, "ENOMSG", "No message of desired type");
        put(EIDRM, "EIDRM", "Identifier removed");
        put(ECHRNG, "ECHRNG", "Channel number out of range");
        put(EL2NSYNC, "EL2NSYNC", "Level 2 not synchronized");
        put(EL3HLT, "EL3HLT", "Level 3 halted");
        put(EL3RST, "EL3RST", "Level 3 reset");
        put(ELNRNG, "ELNRNG", "Link number out of range");
        put(EUNATCH, "EUNATCH", "Protocol driver not attached");
        put(ENOCSI, "ENOCSI", "No CSI structure available");
        put(EL2HLT, "EL2HLT", "Level 2 halted");
        put(EBADE, "EBADE", "Invalid exchange");
        put(EBADR, "EBADR", "Invalid request descriptor");
        put(EXFULL, "EXFULL", "Exchange full");
        put(ENOANO, "ENOANO", "No anode");
        put(EBADRQC, "EBADRQC", "Invalid request code");
        put(EBADSLT, "EBADSLT", "Invalid slot");
        put(EBFONT, "EBFONT", "Bad font file format");
        put(ENOSTR, "ENOSTR", "Device not a stream");
        put(ENODATA, "ENODATA", "No data available");
        put(ETIME, "ETIME", "Timer expired");
        put(ENOSR, "ENOSR", "Out of streams resources");
        put(ENONET, "ENONET", "Machine is not on the network");
        put(ENOPKG, "ENOPKG", "Package not installed");
        put(EREMOTE, "EREMOTE", "Object is remote");
        put(ENOLINK, "ENOLINK", "Link has been severed");
        put(EADV, "EADV", "Advertise error");
        put(ESRMNT, "ESRMNT", "Srmount error");
        put(ECOMM, "ECOMM", "Communication error on send");
        put(EPROTO, "EPROTO", "Protocol error");
        put(EMULTIHOP, "EMULTIHOP", "Multihop attempted");
        put(EDOTDOT, "EDOTDOT", "RFS specific error");
        put(EBADMSG, "EBADMSG", "Bad message");
        put(EOVERFLOW, "EOVERFLOW", "Value too large for defined data type");
        put(ENOTUNIQ, "ENOTUNIQ", "Name not unique on network");
        put(EBADFD, "EBADFD", "File descriptor in bad state");
        put(EREMCHG, "EREMCHG", "Remote address changed");
        put(ELIBACC, "ELIBACC", "Can not access a needed shared library");
        put(ELIBBAD, "ELIBBAD", "Accessing a corrupted shared library");
        put(ELIBSCN, "ELIBSCN", ".lib section in a.out corrupted");
        put(ELIBMAX, "ELIBMAX", "Attempting to link in too many shared libraries");
        put(ELIBEXEC, "ELIBEXEC", "Cannot exec a shared library directly");
        put(EILSEQ, "EILSEQ", "Invalid or incomplete multibyte or wide character");
        put(ERESTART, "ERESTART", "Interrupted system call should be restarted");
        put(ESTRPIPE, "ESTRPIPE", "Streams pipe error");
        put(EUSERS, "EUSERS", "Too many users");
        put(ENOTSOCK, "ENOTSOCK", "Socket operation on non-socket");
        put(EDESTADDRREQ, "EDESTADDRREQ", "Destination address required");
        put(EMSGSIZE, "EMSGSIZE", "Message too long");
        put(EPROTOTYPE, "EPROTOTYPE", "Protocol wrong type for socket");
        put(ENOPROTOOPT, "ENOPROTOOPT", "Protocol not available");
        put(EPROTONOSUPPORT, "EPROTONOSUPPORT", "Protocol not supported");
        put(ESOCKTNOSUPPORT, "ESOCKTNOSUPPORT", "Socket type not supported");
        put(EOPNOTSUPP, "EOPNOTSUPP", "Operation not supported");
        put(EPFNOSUPPORT, "EPFNOSUPPORT", "Protocol family not supported");
        put(EAFNOSUPPORT, "EAFNOSUPPORT", "Address family not supported by protocol");
        put(EADDRINUSE, "EADDRINUSE", "Address already in use");
        put(EADDRNOTAVAIL, "EADDRNOTAVAIL", "Cannot assign requested address");
        put(ENETDOWN, "ENETDOWN", "Network is down");
        put(ENETUNREACH, "ENETUNREACH", "Network is unreachable");
        put(ENETRESET, "ENETRESET", "Network dropped connection on reset");
        put(ECONNABORTED, "ECONNABORTED", "Software caused connection abort");
        put(ECONNRESET, "ECONNRESET", "Connection reset by peer");
        put(ENOBUFS, "ENOBUFS", "No buffer space available");
        put(EISCONN, "EISCONN", "Transport endpoint is already connected");
        put(ENOTCONN, "ENOTCONN", "Transport endpoint is not connected");
        put(ESHUTDOWN, "ESHUTDOWN", "Cannot send after transport endpoint shutdown");
        put(ETOOMANYREFS, "ETOOMANYREFS", "Too many references: cannot splice");
        put(ETIMEDOUT, "ETIMEDOUT", "Connection timed out");
        put(ECONNREFUSED, "ECONNREFUSED", "Connection refused");
        put(EHOSTDOWN, "EHOSTDOWN", "Host is down");
        put(EHOSTUNREACH, "EHOSTUNREACH", "No route to host");
        put(EALREADY, "EALREADY", "Operation already in progress");
        put(EINPROGRESS, "EINPROGRESS", "Operation now in progress");
        put(ESTALE, "ESTALE", "Stale file handle");
        put(EUCLEAN, "EUCLEAN", "Structure needs cleaning");
        put(ENOTNAM, "ENOTNAM", "Not a XENIX named type file");
        put(ENAVAIL, "ENAVAIL", "No XENIX semaphores available");
        put(EISNAM, "EISNAM", "Is a named type file");
        put(EREMOTEIO, "EREMOTEIO", "Remote I/O error");
        put(EDQUOT, "EDQUOT", "Disk quota exceeded");
        put(ENOMEDIUM, "ENOMEDIUM", "No medium found");
        put(EMEDIUMTYPE, "EMEDIUMTYPE", "Wrong medium type");
        put(ECANCELED, "ECANCELED", "Operation canceled");
        put(ENOKEY, "ENOKEY", "Required key not available");
        put(EKEYEXPIRED, "EKEYEXPIRED", "Key has expired");
        put(EKEYREVOKED, "EKEYREVOKED", "Key has been revoked");
        put(EKEYREJECTED, "EKEYREJECTED", "Key was rejected by service");
        put(EOWNERDEAD, "EOWNERDEAD", "Owner died");
        put(ENOTRECOVERABLE, "ENOTRECOVERABLE", "State not recoverable");
        put(ERFKILL, "ERFKILL", "Operation not possible due to RF-kill");
        put(EHWPOISON, "EHWPOISON", "Memory page has hardware error");
    }

    private static void put(int errno, String name, String message) {
        NAMES[errno] = name;
        MESSAGES[errno] = message;
    }

    /** The C name ({@code "EEXIST"}), or {@code "E<n>"} for a number this table does not know. */
    public static String name(int errno) {
        return errno > 0 && errno < NAMES.length && NAMES[errno] != null ? NAMES[errno] : "E" + errno;
    }

    /** glibc's {@code strerror} text ({@code "File exists"}), or {@code "Unknown error <n>"} like glibc. */
    public static String message(int errno) {
        return errno > 0 && errno < MESSAGES.length && MESSAGES[errno] != null ? MESSAGES[errno] : "Unknown error " + errno;
    }

    /**
     * The errno whose {@code strerror} text is {@code message} (how Java's file APIs report an errno), or 0. Java
     * sometimes appends detail after the text; a message that starts with a known text also matches.
     */
    public static int byMessage(String message) {
        if (message == null) {
            return 0;
        }
        for (int i = 1; i < MESSAGES.length; i++) {
            if (MESSAGES[i] != null && (message.equals(MESSAGES[i]) || message.startsWith(MESSAGES[i] + " "))) {
                return i;
            }
        }
        return 0;
    }

    /** Every known errno, for the header check. */
    public static int[] known() {
        int n = 0;
        int[] all = new int[NAMES.length];
        for (int i = 1; i < NAMES.length; i++) {
            if (NAMES[i] != null) {
                all[n++] = i;
            }
        }
        return java.util.Arrays.copyOf(all, n);
    }
}
