package io.jcni.netlink.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jcni.netlink.internal.ffm.Structs;
import io.jcni.netlink.internal.ffm.Sysno;
import io.jcni.netlink.internal.wire.Errno;
import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.StructLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compiles C programs generated from the Java side (every constants class that declares a {@code HEADER}, every layout
 * of {@link Structs#ALL}, the errno table, the system call numbers) with {@code gcc -std=c11 -Wall -Werror} against the
 * installed headers, runs them, and compares every value, size and offset. Nothing is listed by hand here, so a
 * constant or layout added on the Java side is checked without touching this test.
 */
class HeadersMatchTest {
    @TempDir
    Path dir;

    /** name → expected value, in generation order. */
    private final Map<String, String> expected = new LinkedHashMap<>();

    @Test
    void everyConstantLayoutAndErrnoMatchesTheInstalledHeaders() throws Exception {
        assumeTrue(gccAvailable(), "gcc is not installed");
        List<Class<?>> constantClasses = constantClasses();
        assertThat(constantClasses).extracting(Class::getSimpleName)
                .contains("NetlinkH", "RtnetlinkH", "IfLinkH", "IfAddrH", "NeighbourH", "LibcH", "Errno", "PktSchedH",
                        "PktClsH", "TcMirredH", "FibRulesH", "IfTunH", "IfEtherH", "NfTablesH", "NfnetlinkH", "NetfilterH",
                        "NfConntrackH", "NfNatH", "InH");

        Set<String> headers = new LinkedHashSet<>(List.of("stdio.h", "stddef.h", "string.h", "errno.h",
                "sys/socket.h", "sys/time.h", "sys/syscall.h"));
        StringBuilder body = new StringBuilder();
        for (Class<?> c : constantClasses) {
            headers.addAll(List.of(((String) c.getField("HEADER").get(null)).split(" ")));
            for (Field f : c.getFields()) {
                if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
                    String name = f.getName();
                    expect("const " + name, Integer.toString(f.getInt(null)));
                    body.append("printf(\"const ").append(name).append(" %lld\\n\", (long long)(int)(")
                            .append(name).append("));\n");
                }
            }
        }
        for (int errno : Errno.known()) {
            String name = Errno.name(errno);
            expect("errno " + name, errno + " " + Errno.message(errno));
            body.append("printf(\"errno ").append(name).append(" %d %s\\n\", ").append(name).append(", strerror(")
                    .append(name).append("));\n");
        }
        for (StructLayout s : Structs.ALL) {
            String tag = s.name().orElseThrow();
            String struct = "struct " + tag;
            expect("sizeof " + tag, Long.toString(s.byteSize()));
            body.append("printf(\"sizeof ").append(tag).append(" %zu\\n\", sizeof(").append(struct).append("));\n");
            for (MemoryLayout m : s.memberLayouts()) {
                if (m instanceof PaddingLayout) {
                    continue;
                }
                String member = m.name().orElseThrow();
                expect("member " + tag + "." + member, s.byteOffset(MemoryLayout.PathElement.groupElement(member))
                        + " " + m.byteSize());
                body.append("printf(\"member ").append(tag).append('.').append(member)
                        .append(" %zu %zu\\n\", offsetof(").append(struct).append(", ").append(member)
                        .append("), sizeof(((").append(struct).append(" *)0)->").append(member).append("));\n");
                if (m instanceof GroupLayout g) {
                    assertThat(Structs.ALL).as("nested %s is checked as a struct of its own", member)
                            .anyMatch(other -> other.memberLayouts().equals(g.memberLayouts()));
                }
            }
        }
        boolean x8664 = System.getProperty("os.arch").equals("amd64");
        if (x8664) {
            for (Sysno nr : Sysno.values()) {
                expect("sys " + nr.name(), Integer.toString(nr.x8664()));
                body.append("printf(\"sys ").append(nr.name()).append(" %ld\\n\", (long)SYS_").append(nr.name())
                        .append(");\n");
            }
        }
        Map<String, String> actual = run("headers", headers, body.toString());

        // aarch64 (and riscv64) use the generic table: check it from its own header, whatever the build machine.
        StringBuilder generic = new StringBuilder();
        for (Sysno nr : Sysno.values()) {
            expect("generic " + nr.name(), Integer.toString(nr.generic()));
            generic.append("printf(\"generic ").append(nr.name()).append(" %ld\\n\", (long)__NR_").append(nr.name())
                    .append(");\n");
        }
        actual.putAll(run("generic", new LinkedHashSet<>(List.of("stdio.h", "asm-generic/unistd.h")),
                generic.toString()));

        List<String> mismatches = new ArrayList<>();
        expected.forEach((key, value) -> {
            if (!value.equals(actual.get(key))) {
                mismatches.add(key + ": Java " + value + ", C " + actual.get(key));
            }
        });
        assertThat(mismatches).as("values that differ from the headers").isEmpty();
        assertThat(expected).as("checks generated").hasSizeGreaterThan(450);
        assertThat(actual.keySet()).containsAll(expected.keySet());
    }

    private void expect(String key, String value) {
        assertThat(expected.put(key, value)).as("generated twice: %s", key).isNull();
    }

    private Map<String, String> run(String name, Set<String> headers, String body) throws Exception {
        StringBuilder c = new StringBuilder("#define _GNU_SOURCE\n");
        headers.forEach(h -> c.append("#include <").append(h).append(">\n"));
        c.append("int main(void) {\n").append(body).append("return 0;\n}\n");
        Path source = dir.resolve(name + ".c");
        Path binary = dir.resolve(name);
        Files.writeString(source, c);
        String compile = exec(List.of("gcc", "-std=c11", "-Wall", "-Werror", "-o", binary.toString(),
                source.toString()));
        assertThat(Files.isExecutable(binary)).as("gcc output:\n%s\nsource:\n%s", compile, c).isTrue();
        Map<String, String> values = new LinkedHashMap<>();
        for (String line : exec(List.of(binary.toString())).split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] parts = line.split(" ", 3);
            String key = parts[0] + " " + parts[1];
            values.put(key, parts[2]);
        }
        return values;
    }

    private static String exec(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return out;
    }

    private static boolean gccAvailable() {
        try {
            return new ProcessBuilder("gcc", "--version").start().waitFor() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /** Every class under the internal packages of the main output that declares a {@code HEADER} constant. */
    private static List<Class<?>> constantClasses() throws IOException, URISyntaxException {
        Path classes = Path.of(Structs.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path internal = classes.resolve("io/jcni/netlink/internal");
        List<Class<?>> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(internal)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".class") && !p.toString().contains("$")).toList()) {
                String name = classes.relativize(f).toString().replace('/', '.').replaceAll("\\.class$", "");
                try {
                    Class<?> c = Class.forName(name, false, HeadersMatchTest.class.getClassLoader());
                    c.getField("HEADER");
                    found.add(c);
                } catch (NoSuchFieldException | ClassNotFoundException e) {
                    // not a constants class
                }
            }
        }
        return found;
    }
}
