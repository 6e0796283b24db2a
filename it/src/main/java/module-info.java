/** Test support for integration tests in real network namespaces (the tests themselves live in src/test). */
module io.jcni.it {
    requires io.jcni.plugins;
}
