package io.jcni.plugins.internal.pkg.ipam.ranges;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.spec.CniException;
import io.jcni.spec.Dns;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResolvConfTest {
    @Test
    void readsWhatGoHostLocalReads() {
        Dns dns = ResolvConf.parse("""
                # comment
                ; other comment
                nameserver 10.1.2.3
                nameserver\t2001:db8::53   # trailing text after the address is ignored
                domain example.com
                domain last.example.com
                search a.example  b.example\r
                options ndots:2 edns0
                options rotate
                sortlist 10.0.0.0/8
                nameserver
                   \s
                """);
        assertThat(dns).isEqualTo(new Dns(List.of("10.1.2.3", "2001:db8::53"), "last.example.com",
                List.of("a.example", "b.example"), List.of("ndots:2", "edns0", "rotate")));
    }

    @Test
    void aMissingFileIsCode5NamingIt(@TempDir Path dir) {
        assertThatThrownBy(() -> ResolvConf.read(dir.resolve("nope").toString()))
                .isInstanceOfSatisfying(CniException.class, e -> {
                    assertThat(e.code()).isEqualTo(5);
                    assertThat(e.getMessage()).contains("nope");
                });
    }

    @Test
    void readsAFile(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("resolv.conf"), "nameserver 192.0.2.53\n");
        assertThat(ResolvConf.read(file.toString()).nameservers()).containsExactly("192.0.2.53");
    }
}
