package io.jcni.it.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The packages the build made in {@code dist/packages} (plugins-core's package-dist.sh). */
final class Packages {
    private Packages() {
    }

    static Path dir() {
        return Locations.dist().resolve("packages");
    }

    /** {@code jcni-cni-plugins-linux-amd64-<version>.tgz}. */
    static Path tarball() {
        return one("jcni-cni-plugins-linux-amd64-", ".tgz");
    }

    /** {@code jcni_<debian version>_amd64.deb}. */
    static Path deb() {
        return one("jcni_", "_amd64.deb");
    }

    /** The project version the packages were built for, from the tarball's name. */
    static String version() {
        String name = tarball().getFileName().toString();
        return name.substring("jcni-cni-plugins-linux-amd64-".length(), name.length() - ".tgz".length());
    }

    /** The plugin types the dist has (dist/cni/bin), which every package must carry. */
    static List<String> types() {
        try (Stream<Path> files = Files.list(Locations.distCniBin())) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path one(String prefix, String suffix) {
        Prerequisites.require(Files.isDirectory(dir()), () -> "jcni's packages in " + dir()
                + " (./mvnw -B package makes them)");
        try (Stream<Path> files = Files.list(dir())) {
            List<Path> found = files.filter(f -> f.getFileName().toString().startsWith(prefix)
                    && f.getFileName().toString().endsWith(suffix)).toList();
            assertThat(found).as(prefix + "*" + suffix + " in " + dir()).hasSize(1);
            return found.getFirst();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
