/*
 * rss-probe: runs a command and prints its peak RSS (ru_maxrss, KiB) on the last line of stderr.
 *
 *   rss-probe PROGRAM [ARGS...]    stdin, stdout and the environment pass through; the exit status is the program's
 *
 * Why not measure.py's own wait4: Python spawns with vfork, and the kernel records the RSS of the address space an
 * exec replaces into the child's ru_maxrss, so every child looks at least as large as the Python interpreter
 * (~13 MiB). This program is static and small: a child forked from it starts from a few hundred KiB, which is then
 * the floor of what it can report. Built by compare.sh (gcc -static).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: rss-probe PROGRAM [ARGS...]\n");
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) {
        execv(argv[1], argv + 1);
        _exit(127);
    }
    int status;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) < 0) return 2;
    fprintf(stderr, "rss-probe maxrss_kb %ld\n", usage.ru_maxrss);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
