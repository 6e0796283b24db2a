package io.jcni.spec;

import java.util.List;

/**
 * DNS settings, in configurations ({@code dns}) and results. Entries are kept as strings, as libcni keeps them: the
 * spec asks for IP addresses in {@code nameservers} but neither libcni nor the reference plugins check.
 *
 * @param nameservers priority-ordered nameserver addresses
 * @param domain      the local domain for short-name lookups, or ""
 * @param search      priority-ordered search domains
 * @param options     resolver options
 */
public record Dns(List<String> nameservers, String domain, List<String> search, List<String> options) {
    public static final Dns EMPTY = new Dns(List.of(), "", List.of(), List.of());

    public Dns {
        nameservers = nameservers == null ? List.of() : List.copyOf(nameservers);
        domain = domain == null ? "" : domain;
        search = search == null ? List.of() : List.copyOf(search);
        options = options == null ? List.of() : List.copyOf(options);
    }

    /** True if nothing is set (libcni's {@code DNS.IsEmpty}). */
    public boolean isEmpty() {
        return nameservers.isEmpty() && domain.isEmpty() && search.isEmpty() && options.isEmpty();
    }
}
