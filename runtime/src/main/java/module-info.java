/** The library container runtimes link (Java's libcni) and the jcni CLI. */
module io.jcni.runtime {
    requires transitive io.jcni.spec;
}
