/**
 * rtnetlink, nf_tables, network namespaces, sysctl and flock(2) over the Foreign Function &amp; Memory API. The only
 * jcni module that touches {@code java.lang.foreign}, and only in {@code io.jcni.netlink.internal.ffm}. Needs
 * {@code --enable-native-access=io.jcni.netlink}.
 */
module io.jcni.netlink {
    exports io.jcni.netlink;
    exports io.jcni.netlink.nft;
    exports io.jcni.netlink.sys;
}
