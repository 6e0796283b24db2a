/*
 * jcni-launch-helper: a pre-started process that execs one plugin for io.jcni.runtime's WarmSpawner
 * (CniRuntime.Options.withLaunchHelpers(n, this program)). The JVM starts it ahead of time with the runtime's
 * environment, through the JDK's spawn helper (an extra exec this takes off a plugin call's critical path); it waits on
 * its stdin. To run a plugin, the runtime writes a header to that stdin, then the plugin's config:
 *
 *     8 decimal digits, '\n'        the length N of what follows
 *     N bytes                       nonce '\n' executable '\n' then NAME=value '\n' per variable to set
 *
 * The helper reads exactly 9 + N bytes (so the config stays in the pipe for the plugin), sets the variables and execs
 * the executable in place: same pid, same pipes, so stdout, stderr, exit status, timeout and kill are those of a direct
 * spawn. If the exec fails, it prints the nonce on stderr and exits 127: the runtime then knows the plugin never ran and
 * spawns it directly, which reports the failure as usual. What dash did in this role (WarmSpawner's other helper), in
 * three read calls instead of one per byte, and without a shell's variables (IFS, PWD, ...) in the plugin's way.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int read_exactly(char *p, size_t n) {
    while (n > 0) {
        ssize_t r = read(0, p, n);
        if (r <= 0) return -1;
        p += r, n -= (size_t)r;
    }
    return 0;
}

int main(void) {
    char len_text[10] = {0};
    if (read_exactly(len_text, 9) != 0 || len_text[8] != '\n') return 125;
    char *end;
    long n = strtol(len_text, &end, 10);
    if (end != len_text + 8 || n <= 0 || n > (1 << 20)) return 125;
    char *header = malloc((size_t)n + 1);
    if (!header || read_exactly(header, (size_t)n) != 0) return 125;
    header[n] = 0;
    char *nonce = header, *path = strchr(nonce, '\n');
    if (!path) return 125;
    *path++ = 0;
    char *line = strchr(path, '\n');
    if (!line) return 125;
    *line++ = 0;
    while (*line) {
        char *next = strchr(line, '\n'), *eq = strchr(line, '=');
        if (!next || !eq || eq > next) return 125;
        *next = 0, *eq = 0;
        if (setenv(line, eq + 1, 1) != 0) return 125;
        line = next + 1;
    }
    char *argv[] = {path, NULL};
    execv(path, argv);
    /* The plugin never ran: tell the runtime, which spawns it directly and reports why. */
    if (write(2, nonce, strlen(nonce)) < 0) return 127;
    return 127;
}
