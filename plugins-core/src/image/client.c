/*
 * jcni's plugin client: dist/cni/bin/<type>, the program every exec of a jcni plugin runs. Keep it short.
 *
 * A runtime execs it as any CNI plugin. It hands the call to jcni's resident plugin service (`jcni serve`) over a Unix
 * socket and prints the service's answer. When no service of this very build answers, it execs the JVM launcher
 * (dist/cni/jvm/<type>), which runs the plugin in a JVM of its own, as jcni did before the service existed.
 *
 * Protocol (the Java side is io.jcni.plugins.internal.service.Protocol; integers in host byte order):
 *   request  header (REQ_HEADER bytes, below), build id, type, environment (NUL-terminated entries), stdin; the
 *            first bytes carry SCM_RIGHTS: this process's network namespace, its /sys (sysfs shows the devices of
 *            the namespace it was mounted for), its mount namespace and /proc/self/mountinfo, its root and working
 *            directories (a chroot sees other files; relative paths resolve in the working directory), then
 *            CNI_NETNS if it could be opened.
 *   replies  'M' u16 n, n bytes   another build (its id): nothing was run, use the JVM launcher
 *            'E' u16 n, n bytes   the call must run elsewhere (why): this process sees other files than the
 *                                 service, or the call may need more memory than the service sets aside; nothing
 *                                 was run, use the JVM launcher (it sees what this process sees, in a JVM of its own)
 *            'A'                  accepted: the service runs the call now
 *            'R' u32 status, u32 stdout length, u32 stderr length, stdout, stderr: the answer
 *
 * Guarantees:
 *   - Nothing is written to stdout before the whole answer arrived: if the service dies during the call, the runtime
 *     gets an error JSON with code 11 (try again later) and exit status 1, never part of a result.
 *   - The JVM launcher runs only when the service cannot have run the call: no connection, a service that is neither
 *     root nor this user, another build, another view of the file system (a private mount namespace with its own
 *     /var/lib/cni, say: the plugin must write its state where its caller looks; a chroot), a configuration too
 *     large for the service's heap, or a connection that ended before 'A' (the service sends 'A' before the call
 *     starts and runs nothing if it cannot).
 *   - stdin is read before the request only for the commands whose plugins read it; if the call then goes to the
 *     JVM launcher after all, those bytes are its stdin (a memfd).
 *
 * Environment: JCNI_SERVICE_SOCKET, the service's socket (default /run/jcni/plugins.sock; a value that is not an
 * absolute path, e.g. "off", skips the service); JCNI_DEBUG=1 makes the client say on stderr why it uses the JVM.
 *
 * Built by build-dist.sh once per plugin type, with JCNI_TYPE, JCNI_VERSION, JCNI_BUILD_ID and JCNI_DIST defined.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#if !defined(JCNI_TYPE) || !defined(JCNI_VERSION) || !defined(JCNI_BUILD_ID) || !defined(JCNI_DIST)
#error "build with -DJCNI_TYPE=... -DJCNI_VERSION=... -DJCNI_BUILD_ID=... -DJCNI_DIST=... (see build-dist.sh)"
#endif

extern char **environ;

/* The runtime recognizes jcni's launchers by this line in a file's first 4 KiB (io.jcni.runtime.JcniLaunchers), to
 * run jcni delegates in-process. An ELF note, placed by the linker right after the program headers. */
#define MARKER "\n# jcni-launcher: plugin=" JCNI_TYPE " version=" JCNI_VERSION "\n"
static const struct {
    uint32_t namesz, descsz, type;
    char name[8];
    char desc[(sizeof(MARKER) + 3) & ~3u];
} note __attribute__((used, section(".note.jcni"), aligned(4))) = {5, sizeof(MARKER), 1, "jcni", MARKER};

#define DEFAULT_SOCKET "/run/jcni/plugins.sock"
#define PROTOCOL 2
#define REQ_HEADER 24
#define MAX_STDIN ((4u << 20) + 1)   /* the plugins' config limit and one byte, as the JVM's skel reads it */
#define MAX_ENV (1u << 20)
#define MAX_STDOUT ((4u << 20) + 4096)
#define MAX_STDERR ((1u << 20) + 4096)
enum { NETNS_NONE, NETNS_DESCRIPTOR, NETNS_ABSENT, NETNS_UNOPENED };
enum { FLAG_OWN_NETNS = 1, FLAG_STDIN = 2, FLAG_SYSFS = 4, FLAG_MOUNTS = 8, FLAG_ROOT = 16, FLAG_CWD = 32 };

static int debug;
static char **args;                    /* main's argv, for the JVM launcher */
static char *input;                    /* stdin as read, if it was */
static size_t input_len;
static int input_read;

static void say(const char *what, const char *why) {
    if (debug) {
        dprintf(2, "jcni client (%s): %s%s%s; running the JVM launcher\n", JCNI_TYPE, what, why ? ": " : "",
                why ? why : "");
    }
}

static int write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w, n -= (size_t)w;
    }
    return 0;
}

/* Reads exactly n bytes; -1 on error or end of stream. */
static int read_all(int fd, char *p, size_t n) {
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r, n -= (size_t)r;
    }
    return 0;
}

/* No answer after all: what the runtime sees when the service ended during the call. Exits 1. */
static void try_again(const char *msg) {
    dprintf(1, "{\n    \"code\": 11,\n    \"msg\": \"%s\",\n    \"details\": \"the jcni plugin service (%s) did "
               "not answer in full; the call may have been partly done, and a DEL cleans it up\"\n}", msg, JCNI_TYPE);
    exit(1);
}

/* Execs the JVM launcher found from this file's real location: next to it as in dist/ (cni/bin/../jvm), else in the
 * jcni directory beside it, as the release tarball and a copy of its contents into /opt/cni/bin lay it out
 * (bin/jcni/cni/jvm); else the one of the dist this client was built in. With whatever stdin was already read as its
 * stdin. Never returns. */
static void jvm(void) {
    char self[4096], path[4096 + 64];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    path[0] = 0;
    if (n > 0) {
        self[n] = 0;
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = 0;
            snprintf(path, sizeof path, "%s/../jvm/%s", self, JCNI_TYPE);
            if (access(path, X_OK) != 0) snprintf(path, sizeof path, "%s/jcni/cni/jvm/%s", self, JCNI_TYPE);
        }
    }
    if (!path[0] || access(path, X_OK) != 0) snprintf(path, sizeof path, "%s", JCNI_DIST "/cni/jvm/" JCNI_TYPE);
    if (input_read) {
        int m = memfd_create("jcni-stdin", MFD_CLOEXEC);
        if (m < 0 || write_all(m, input, input_len) < 0 || lseek(m, 0, SEEK_SET) != 0 || dup2(m, 0) < 0)
            try_again("the jcni client could not hand its stdin to the JVM launcher");
    }
    args[0] = path;
    execv(path, args);
    dprintf(1, "{\n    \"code\": 999,\n    \"msg\": \"jcni client: cannot exec the JVM launcher %s: %s\"\n}", path,
            strerror(errno));
    exit(1);
}

static int needs_stdin(const char *cmd) {
    return cmd && (!strcmp(cmd, "ADD") || !strcmp(cmd, "DEL") || !strcmp(cmd, "CHECK") || !strcmp(cmd, "GC")
                   || !strcmp(cmd, "STATUS"));
}

/* stdin up to MAX_STDIN bytes; 0, or -1 if it cannot be read (the JVM launcher then reports it). */
static int read_stdin(void) {
    size_t cap = 0;
    for (;;) {
        if (input_len == cap) {
            cap = cap ? cap * 2 : 16384;
            if (cap > MAX_STDIN) cap = MAX_STDIN;
            if (input_len == cap) break;
            char *grown = realloc(input, cap);
            if (!grown) return -1;
            input = grown;
        }
        ssize_t r = read(0, input + input_len, cap - input_len);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) break;
        input_len += (size_t)r;
    }
    input_read = 1;
    return 0;
}

static void put16(char *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(char *p, uint32_t v) { memcpy(p, &v, 4); }
static uint32_t get32(const char *p) { uint32_t v; memcpy(&v, p, 4); return v; }

int main(int argc, char **argv) {
    args = argv;
    const char *d = getenv("JCNI_DEBUG");
    debug = d && (!strcmp(d, "1") || !strcasecmp(d, "true"));
    if (argc > 1) { say("called with arguments", NULL); jvm(); }
    const char *sock = getenv("JCNI_SERVICE_SOCKET");
    if (!sock) sock = DEFAULT_SOCKET;
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (sock[0] != '/' || strlen(sock) >= sizeof addr.sun_path) { say("JCNI_SERVICE_SOCKET", sock); jvm(); }
    strcpy(addr.sun_path, sock);

    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0 || connect(s, (struct sockaddr *)&addr, sizeof addr) != 0) { say(sock, strerror(errno)); jvm(); }
    struct ucred peer;
    socklen_t len = sizeof peer;
    if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0 || (peer.uid != 0 && peer.uid != geteuid())) {
        say(sock, "the service runs as neither root nor this user"); jvm();
    }

    if (needs_stdin(getenv("CNI_COMMAND")) && read_stdin() != 0) { say("stdin", strerror(errno)); jvm(); }
    int fds[7], nfds = 0, netns_state = NETNS_NONE, flags = FLAG_OWN_NETNS;
    /* The namespace this process runs in is the plugin's "host" side; the service runs the call there. */
    if ((fds[nfds] = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) < 0) { say("/proc/self/ns/net", strerror(errno)); jvm(); }
    nfds++;
    /* This process's /sys, where host-device finds devices: `ip netns exec` mounts one for the namespace. */
    if ((fds[nfds] = open("/sys", O_PATH | O_DIRECTORY | O_CLOEXEC)) >= 0) nfds++, flags |= FLAG_SYSFS;
    /* The files this process sees: the service runs the call only if it sees the same (see 'E' above). */
    if ((fds[nfds] = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC)) < 0) { say("/proc/self/ns/mnt", strerror(errno)); jvm(); }
    nfds++;
    if ((fds[nfds] = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC)) < 0) { say("/proc/self/mountinfo", strerror(errno)); jvm(); }
    nfds++, flags |= FLAG_MOUNTS;
    /* Where "/" and relative paths lead for this process: a chroot's files are not the service's. */
    if ((fds[nfds] = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) { say("/", strerror(errno)); jvm(); }
    nfds++, flags |= FLAG_ROOT;
    if ((fds[nfds] = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC)) >= 0) nfds++, flags |= FLAG_CWD;
    const char *netns = getenv("CNI_NETNS");
    if (netns && netns[0]) {
        /* O_PATH: resolved here, in the runtime's mount namespace, without opening the file (a FIFO cannot block);
         * the service checks that it is a network namespace, as the plugin checks a path. */
        int ns = open(netns, O_PATH | O_CLOEXEC);
        if (ns >= 0) fds[nfds++] = ns, netns_state = NETNS_DESCRIPTOR;
        else netns_state = errno == ENOENT ? NETNS_ABSENT : NETNS_UNOPENED;
    }

    size_t env_len = 0;
    for (char **e = environ; *e; e++) env_len += strlen(*e) + 1;
    size_t id_len = strlen(JCNI_BUILD_ID), type_len = strlen(JCNI_TYPE);
    if (env_len > MAX_ENV) { say("environment", "larger than the service accepts"); jvm(); }
    size_t head_len = REQ_HEADER + id_len + type_len + env_len;
    char *head = malloc(head_len);
    if (!head) { say("request", strerror(errno)); jvm(); }
    memcpy(head, "JCNI", 4);
    put16(head + 4, PROTOCOL);
    head[6] = (char)netns_state;
    head[7] = (char)(flags | (input_read ? FLAG_STDIN : 0));
    put16(head + 8, (uint16_t)id_len);
    put16(head + 10, (uint16_t)type_len);
    put32(head + 12, (uint32_t)env_len);
    put32(head + 16, (uint32_t)input_len);
    put32(head + 20, 0);
    char *p = head + REQ_HEADER;
    memcpy(p, JCNI_BUILD_ID, id_len), p += id_len;
    memcpy(p, JCNI_TYPE, type_len), p += type_len;
    for (char **e = environ; *e; e++) {
        size_t n = strlen(*e) + 1;
        memcpy(p, *e, n), p += n;
    }

    /* Send the request: the descriptors ride on the first sendmsg; the rest follows as the socket takes it. */
    union { char buf[CMSG_SPACE(sizeof fds)]; struct cmsghdr align; } control;
    memset(&control, 0, sizeof control);
    struct iovec iov[2] = {{head, head_len}, {input, input_len}};
    struct msghdr msg = {.msg_iov = iov, .msg_iovlen = input_len ? 2 : 1, .msg_control = control.buf,
                         .msg_controllen = CMSG_SPACE(nfds * sizeof(int))};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    cm->cmsg_level = SOL_SOCKET, cm->cmsg_type = SCM_RIGHTS, cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
    memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
    int sent_all = 1;
    while (msg.msg_iovlen > 0) {
        ssize_t w = sendmsg(s, &msg, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) { sent_all = 0; break; }   /* the service went away; it may still have said why (below) */
        msg.msg_control = NULL, msg.msg_controllen = 0;
        while (msg.msg_iovlen > 0 && (size_t)w >= msg.msg_iov->iov_len) w -= (ssize_t)msg.msg_iov->iov_len, msg.msg_iov++, msg.msg_iovlen--;
        if (msg.msg_iovlen > 0) msg.msg_iov->iov_base = (char *)msg.msg_iov->iov_base + w, msg.msg_iov->iov_len -= (size_t)w;
    }
    for (int i = 0; i < nfds; i++) close(fds[i]);
    free(head);

    char type;
    if (read_all(s, &type, 1) != 0) { say(sock, sent_all ? "no answer" : "the request was not taken"); jvm(); }
    if (type == 'M') { say(sock, "a service of another jcni build"); jvm(); }
    if (type == 'E') {
        char why[258] = "";
        uint16_t n = 0;
        if (read_all(s, (char *)&n, 2) == 0 && n < sizeof why && read_all(s, why, n) == 0) why[n] = 0;
        say("the service sends this call to the JVM launcher", why); jvm();
    }
    int accepted = type == 'A';
    if (accepted && read_all(s, &type, 1) != 0) try_again("the jcni plugin service ended during the call");
    char hdr[12];
    if (type != 'R' || read_all(s, hdr, sizeof hdr) != 0) try_again("the jcni plugin service ended during the call");
    uint32_t status = get32(hdr), out_len = get32(hdr + 4), err_len = get32(hdr + 8);
    if (out_len > MAX_STDOUT || err_len > MAX_STDERR) try_again("the jcni plugin service answered garbage");
    char *answer = malloc((size_t)out_len + err_len + 1);
    if (!answer || read_all(s, answer, (size_t)out_len + err_len) != 0)
        try_again("the jcni plugin service ended during the call");
    /* The whole answer is here: stderr first (log lines), then the result. */
    if (err_len) write_all(2, answer + out_len, err_len);
    if (out_len && write_all(1, answer, out_len) != 0) return 1;
    return (int)(status & 0xff);
}
