/** rtnetlink, network namespaces and sysctl over the Foreign Function &amp; Memory API. The only jcni module that
 *  touches java.lang.foreign, and only in its internal native package. */
module io.jcni.netlink {
}
