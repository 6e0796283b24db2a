/**
 * jcni's integration tests. The tests and nearly all of their support (package {@code io.jcni.it.support}) live in
 * src/test and are patched into this module by the build, so the modules they exercise are required here; test-scoped
 * libraries (JUnit, AssertJ, Jackson databind) are read from the class path. The Go peers the tests drive are built
 * from src/test/go by scripts/build-go-tools.sh.
 *
 * <p>Main code is only what lets the support package be exported: {@code Processes} and {@code ProcessResult}, which
 * need nothing but the JDK. The export exists for the suite's host-state guard: JUnit finds auto-registered extensions
 * with {@link java.util.ServiceLoader}, which ignores class-path providers that sit in a named module, so the provider
 * is a class on the class path outside this module (see {@code HostStateGuardRegistration} in src/test) and reaches
 * {@code io.jcni.it.support.HostStateGuard} through this export.
 */
module io.jcni.it {
    requires io.jcni.plugins;
    requires io.jcni.netlink;

    exports io.jcni.it.support;
}
