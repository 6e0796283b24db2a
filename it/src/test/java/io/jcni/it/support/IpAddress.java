package io.jcni.it.support;

/**
 * One address as {@code ip -j addr show} reports it.
 *
 * @param family {@code inet} or {@code inet6}
 * @param scope {@code global}, {@code link} or {@code host}
 */
public record IpAddress(String ifname, String family, String local, int prefixLength, String scope) {

    /** {@code local/prefixLength}, the form CNI results use ({@code 10.1.2.3/24}). */
    public String cidr() {
        return local + "/" + prefixLength;
    }
}
