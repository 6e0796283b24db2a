/*
 * jcni-launch-helper: a small resident process that runs plugins for io.jcni.runtime (CniRuntime.Options
 * .withLaunchHelpers(n, this program)), one at a time, for as long as the runtime lives. The JVM starts it once, with
 * the runtime's environment, through the JDK's spawn helper; after that each plugin call costs the runtime one write
 * and one read on this process's pipes, where a spawn through the JDK costs its helper's extra exec and three threads
 * handing the plugin's stdout, stderr and exit status to each other.
 *
 * Request, on stdin:  8 decimal digits, '\n'   the length N of the header
 *                     N bytes                 nonce '\n' executable '\n' stdin length '\n', then NAME=value '\n' per
 *                                             variable set on top of this process's environment
 *                     stdin length bytes      the plugin's stdin
 * Answer, on stdout:  "R <status> <stdout length> <stderr length> <overflow>\n", stdout, stderr
 *                     status: the exit status, or 128 + the signal; overflow 1 if the plugin printed more than
 *                     MAX_STDOUT bytes (it is then killed and its stdout dropped, as the runtime does itself)
 *              or:    "E <errno>\n" if the plugin could not be started: the runtime then spawns it itself, which
 *                     reports the failure with the usual texts (and retries "text file busy")
 * Then the next request. End of stdin (the runtime is gone) ends this process; so does anything malformed (exit 125),
 * after which the runtime starts another.
 *
 * The plugin gets a stdin pipe of its own, its own stdout and stderr pipes, this process's environment plus the
 * request's variables (the runtime started this process with the environment plugins get), argv[0] = the executable.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_HEADER (1 << 20)
#define MAX_STDIN ((4 << 20) + 1)     /* the runtime's config limit and one byte */
#define MAX_STDOUT ((4 << 20) + 1)    /* io.jcni.runtime's ProcessRunner.MAX_STDOUT_BYTES and one byte */
#define MAX_STDERR (1 << 20)          /* ProcessRunner.MAX_STDERR_BYTES: the rest is read and dropped */

extern char **environ;

static int read_exactly(char *p, size_t n) {
    while (n > 0) {
        ssize_t r = read(0, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r, n -= (size_t)r;
    }
    return 0;
}

static int write_all(const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(1, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w, n -= (size_t)w;
    }
    return 0;
}

/* Appends what `fd` has to buf (up to cap; the rest is dropped and *cut set); 0 at EOF, 1 if more may come. */
static int drain(int fd, char *buf, size_t *len, size_t cap, int *cut) {
    char chunk[65536];
    ssize_t r = read(fd, chunk, sizeof chunk);
    if (r < 0) return errno == EINTR || errno == EAGAIN ? 1 : 0;
    if (r == 0) return 0;
    size_t keep = (size_t)r;
    if (*len + keep > cap) keep = cap - *len, *cut = 1;
    memcpy(buf + *len, chunk, keep);
    *len += keep;
    return 1;
}

/* This process's environment with the request's NAME=value lines (NUL-terminated in place) on top. */
static char **environment(char *vars, int count) {
    size_t n = 0;
    for (char **e = environ; *e; e++) n++;
    char **env = malloc((n + (size_t)count + 1) * sizeof *env);
    if (!env) return NULL;
    size_t k = 0;
    for (char **e = environ; *e; e++) {
        int overridden = 0;
        char *v = vars;
        for (int i = 0; i < count && !overridden; i++, v += strlen(v) + 1) {
            size_t name = (size_t)(strchr(v, '=') - v);
            overridden = strncmp(*e, v, name + 1) == 0;
        }
        if (!overridden) env[k++] = *e;
    }
    for (int i = 0; i < count; i++, vars += strlen(vars) + 1) env[k++] = vars;
    env[k] = NULL;
    return env;
}

/*
 * Starts the plugin: vfork, then in the child (which shares this memory until it execs) stdin, stdout and stderr
 * moved in place, every signal back to its default and none blocked, whatever this process had (raw system calls:
 * libc keeps some signals to itself and would leave them ignored), and execve. A failed execve leaves its errno in
 * *failed, which the parent reads once the child is gone.
 */
static pid_t spawn(char *path, char **argv, char **env, int in, int out, int err, volatile int *failed) {
    pid_t pid = vfork();
    if (pid != 0) return pid;
    struct { void *handler; unsigned long flags; void *restorer; unsigned long mask; } dfl = {SIG_DFL, 0, NULL, 0};
    unsigned long none = 0;
    for (int sig = 1; sig <= 64; sig++) {
        if (sig != SIGKILL && sig != SIGSTOP) syscall(SYS_rt_sigaction, sig, &dfl, NULL, sizeof(unsigned long));
    }
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof none);
    if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) {
        *failed = errno;
        _exit(127);
    }
    execve(path, argv, env);
    *failed = errno;
    _exit(127);
}

/* One request; 0 when answered, -1 at end of input or on anything malformed. */
static int serve(char *out_buf, char *err_buf) {
    char len_text[10] = {0};
    if (read_exactly(len_text, 9) != 0 || len_text[8] != '\n') return -1;
    char *end;
    long n = strtol(len_text, &end, 10);
    if (end != len_text + 8 || n <= 0 || n > MAX_HEADER) return -1;
    char *header = malloc((size_t)n + 1);
    if (!header || read_exactly(header, (size_t)n) != 0) return -1;
    header[n] = 0;
    char *path = strchr(header, '\n');    /* after the nonce (which only the dash helper needs) */
    if (!path) return -1;
    *path++ = 0;
    char *length = strchr(path, '\n');
    if (!length) return -1;
    *length++ = 0;
    char *vars = strchr(length, '\n');
    if (!vars) return -1;
    *vars++ = 0;
    long stdin_len = strtol(length, &end, 10);
    if (*end || stdin_len < 0 || stdin_len > MAX_STDIN) return -1;
    int count = 0;
    for (char *v = vars; *v; count++) {
        char *next = strchr(v, '\n'), *eq = strchr(v, '=');
        if (!next || !eq || eq > next || eq == v) return -1;
        *next = 0;
        v = next + 1;
    }
    char *input = malloc((size_t)stdin_len + 1);
    if (!input || read_exactly(input, (size_t)stdin_len) != 0) return -1;
    char **env = environment(vars, count);
    if (!env) return -1;

    int in[2], out[2], err[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return -1;
    char *argv[] = {path, NULL};
    volatile int failed = 0;
    pid_t pid = spawn(path, argv, env, in[0], out[1], err[1], &failed);
    close(in[0]), close(out[1]), close(err[1]);
    if (pid < 0 && !failed) failed = errno;
    if (failed) {
        if (pid > 0) waitpid(pid, NULL, 0);
        close(in[1]), close(out[0]), close(err[0]);
        char e[32];
        int w = snprintf(e, sizeof e, "E %d\n", (int)failed);
        free(header), free(input), free(env);
        return write_all(e, (size_t)w);
    }

    /* Feed stdin and collect stdout and stderr at once: a plugin may write before it has read everything. */
    fcntl(in[1], F_SETFL, O_NONBLOCK);
    size_t fed = 0, out_len = 0, err_len = 0;
    int overflow = 0, err_cut = 0;
    struct pollfd fds[3] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}, {in[1], POLLOUT, 0}};
    if (stdin_len == 0) close(in[1]), fds[2].fd = -1;
    while (fds[0].fd >= 0 || fds[1].fd >= 0) {
        if (poll(fds, 3, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (fds[2].fd >= 0 && fds[2].revents) {
            ssize_t w = write(in[1], input + fed, (size_t)stdin_len - fed);
            if (w > 0) fed += (size_t)w;
            if ((w < 0 && errno != EAGAIN && errno != EINTR) || fed == (size_t)stdin_len) close(in[1]), fds[2].fd = -1;
        }
        if (fds[0].fd >= 0 && fds[0].revents && !drain(out[0], out_buf, &out_len, MAX_STDOUT, &overflow))
            close(out[0]), fds[0].fd = -1;
        if (overflow) kill(pid, SIGKILL);
        if (fds[1].fd >= 0 && fds[1].revents && !drain(err[0], err_buf, &err_len, MAX_STDERR, &err_cut))
            close(err[0]), fds[1].fd = -1;
    }
    if (fds[2].fd >= 0) close(in[1]);
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return -1;
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (overflow) out_len = 0;
    char line[64];
    int w = snprintf(line, sizeof line, "R %d %zu %zu %d\n", code, out_len, err_len, overflow);
    free(header), free(input), free(env);
    return write_all(line, (size_t)w) || write_all(out_buf, out_len) || write_all(err_buf, err_len) ? -1 : 0;
}

int main(void) {
    signal(SIGPIPE, SIG_IGN); /* a plugin that closes its stdin early, or a runtime gone: errors, not death */
    char *out_buf = malloc(MAX_STDOUT), *err_buf = malloc(MAX_STDERR);
    if (!out_buf || !err_buf) return 125;
    while (serve(out_buf, err_buf) == 0) {
    }
    return 0;
}
