/**
 * jcni's integration tests. There is no main code: the tests and their support classes (package
 * {@code io.jcni.it.support}) live in src/test and are patched into this module by the build, so the modules they
 * exercise are required here; test-scoped libraries (JUnit, AssertJ, Jackson databind) are read from the class path.
 * The Go peers the tests drive are built from src/test/go by scripts/build-go-tools.sh.
 */
module io.jcni.it {
    requires io.jcni.plugins;
    requires io.jcni.netlink;
}
