package io.jcni.netlink.sys;

/**
 * Who is at the other end of a Unix socket, as the kernel recorded it when the connection was made
 * ({@code SO_PEERCRED}, {@code struct ucred}): it cannot be forged by the peer.
 *
 * @param pid the peer's process id (in this process's PID namespace; 0 if it is not visible there)
 * @param uid its effective user id
 * @param gid its effective group id
 */
public record PeerCredentials(int pid, int uid, int gid) {
    @Override
    public String toString() {
        return "pid " + pid + ", uid " + uid + ", gid " + gid;
    }
}
