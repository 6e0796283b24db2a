/* Binds a listening Unix socket at argv[1] as stdin (fd 0), as systemd's StandardInput=socket does, and execs argv[2..]. */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: listen-exec SOCKET COMMAND...\n"); return 2; }
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a; memset(&a, 0, sizeof a); a.sun_family = AF_UNIX;
    strncpy(a.sun_path, argv[1], sizeof a.sun_path - 1);
    if (fd < 0 || bind(fd, (struct sockaddr *) &a, sizeof a) < 0 || listen(fd, 16) < 0) { perror("listen"); return 1; }
    if (dup2(fd, 0) < 0) { perror("dup2"); return 1; }
    if (fd != 0) close(fd);
    execvp(argv[2], argv + 2);
    perror("exec"); return 1;
}
