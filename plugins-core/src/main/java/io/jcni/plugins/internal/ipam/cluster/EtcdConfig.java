package io.jcni.plugins.internal.ipam.cluster;

import io.jcni.plugins.sdk.CallerPath;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.ConfigNode;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code ipam.etcd} object: where the cluster's etcd is and how to reach it.
 *
 * <pre>
 * "etcd": {
 *   "endpoints": ["https://10.0.0.1:2379", "https://10.0.0.2:2379"],   required, http or https
 *   "dialTimeoutSeconds": 2,          connect timeout per endpoint (default 2)
 *   "requestTimeoutSeconds": 10,      deadline of all etcd work of one plugin call (default 10)
 *   "certFile": "...", "keyFile": "...", "trustedCAFile": "...",       PEM files, as etcdctl's --cert/--key/--cacert
 *   "credentialsFile": "...",         a file whose first line is "user:password" (etcd's user auth)
 *   "prefix": "/jcni/ipam"            every key of this plugin lives under it (default /jcni/ipam)
 * }
 * </pre>
 */
record EtcdConfig(List<Endpoint> endpoints, int dialTimeoutSeconds, int requestTimeoutSeconds, Path certFile,
        Path keyFile, Path trustedCaFile, Path credentialsFile, String prefix) {

    static final String DEFAULT_PREFIX = "/jcni/ipam";

    /** One endpoint: {@code http(s)://host:port}. */
    record Endpoint(boolean tls, String host, int port) {
        @Override
        public String toString() {
            return (tls ? "https://" : "http://") + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
        }

        // Written out: a record's generated methods bootstrap ObjectMethods on first call (start-up cost).
        @Override
        public boolean equals(Object o) {
            return o instanceof Endpoint other && tls == other.tls && host.equals(other.host) && port == other.port;
        }

        @Override
        public int hashCode() {
            return (host.hashCode() * 31 + port) * 2 + (tls ? 1 : 0);
        }
    }

    static EtcdConfig load(ConfigNode ipam) throws CniException {
        Optional<ConfigNode> node = ipam.object("etcd");
        if (node.isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "cluster-ipam: ipam.etcd is missing",
                    "ipam.etcd.endpoints must list the etcd cluster's client URLs");
        }
        ConfigNode etcd = node.get();
        List<Endpoint> endpoints = new ArrayList<>();
        List<String> urls = etcd.stringList("endpoints");
        for (int i = 0; i < urls.size(); i++) {
            endpoints.add(endpoint(urls.get(i), etcd.path() + ".endpoints[" + i + "]"));
        }
        if (endpoints.isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "cluster-ipam: no etcd endpoints",
                    etcd.path() + ".endpoints must list at least one client URL, e.g. https://10.0.0.1:2379");
        }
        int dial = etcd.integer("dialTimeoutSeconds", 1, 3600).orElse(2L).intValue();
        int request = etcd.integer("requestTimeoutSeconds", 1, 3600).orElse(10L).intValue();
        Path cert = path(etcd, "certFile");
        Path key = path(etcd, "keyFile");
        if ((cert == null) != (key == null)) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG,
                    "cluster-ipam: " + etcd.path() + ".certFile and keyFile go together");
        }
        String prefix = etcd.string("prefix").orElse(DEFAULT_PREFIX);
        if (prefix.isEmpty() || !prefix.startsWith("/") || prefix.endsWith("/")) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "cluster-ipam: " + etcd.path()
                    + ".prefix \"" + prefix + "\" must start with / and not end with /");
        }
        return new EtcdConfig(List.copyOf(endpoints), dial, request, cert, key, path(etcd, "trustedCAFile"),
                path(etcd, "credentialsFile"), prefix);
    }

    private static Endpoint endpoint(String text, String field) throws CniException {
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw bad(field, text, e.getReason());
        }
        String scheme = uri.getScheme();
        boolean tls;
        if ("https".equalsIgnoreCase(scheme)) {
            tls = true;
        } else if ("http".equalsIgnoreCase(scheme)) {
            tls = false;
        } else {
            throw bad(field, text, "the scheme must be http or https");
        }
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            throw bad(field, text, "no host");
        }
        if (host.startsWith("[")) {
            host = host.substring(1, host.length() - 1);
        }
        String path = uri.getRawPath();
        if (uri.getRawQuery() != null || (path != null && !path.isEmpty() && !path.equals("/"))) {
            throw bad(field, text, "an endpoint is scheme://host:port, without a path");
        }
        int port = uri.getPort() < 0 ? 2379 : uri.getPort();
        return new Endpoint(tls, host, port);
    }

    private static CniException bad(String field, String text, String why) {
        return new CniException(CniError.INVALID_NETWORK_CONFIG,
                "cluster-ipam: " + field + ": invalid endpoint \"" + text + "\": " + why);
    }

    private static Path path(ConfigNode etcd, String key) throws CniException {
        Optional<String> text = etcd.string(key);
        if (text.isEmpty() || text.get().isEmpty()) {
            return null;
        }
        try {
            return CallerPath.of(text.get());
        } catch (InvalidPathException e) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG,
                    "cluster-ipam: " + etcd.path() + "." + key + ": invalid path \"" + text.get() + "\"");
        }
    }

    boolean usesTls() {
        for (Endpoint e : endpoints) {
            if (e.tls()) {
                return true;
            }
        }
        return false;
    }
}
