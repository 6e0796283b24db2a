package io.jcni.it.support;

/**
 * One route of the main table as {@code ip -j route show} reports it.
 *
 * @param family {@code inet} or {@code inet6}
 * @param dst {@code default} or a prefix; {@code ip} prints a host route without {@code /32} or {@code /128}
 * @param gateway null for a direct route
 * @param protocol null when {@code ip} omits it ({@code boot}, which is what a route added without a protocol gets)
 */
public record IpRoute(String family, String dst, String gateway, String dev, String protocol, String scope,
        String prefsrc) {

    public boolean isDefault() {
        return dst.equals("default");
    }
}
