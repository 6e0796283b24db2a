package io.jcni.it.tooling;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.Locations;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleReader;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The library's public API, held against a committed snapshot ({@code it/api/jcni-api.txt}), so that no change to it
 * goes unannounced. The API is what the four library modules export to everyone ({@code module-info}; qualified
 * exports such as runtime's {@code internal.files} to {@code io.jcni.plugins} are not API): every public or protected
 * type of those packages whose enclosing types are accessible too, with its modifiers, type parameters, supertypes
 * and permitted subtypes, and every public or protected constructor, method and field it declares, generically typed,
 * {@code @Deprecated(forRemoval = true)} marked. Read by reflection from the modules this JVM runs, without
 * initializing any class.
 *
 * <p>A difference fails with the lines that went and came, and how to record the change: name each changed type in
 * CHANGELOG.md's "Unreleased" section, then regenerate the snapshot with {@code -Djcni.api.update=true}, which refuses
 * to write while a changed type is not named there. A public method goes only after a release in which it was
 * {@code @Deprecated(forRemoval = true)} (CHANGELOG.md, "Policy").
 */
class ApiSnapshotTest {
    static final List<String> MODULES = List.of("io.jcni.spec", "io.jcni.netlink", "io.jcni.runtime",
            "io.jcni.plugins");
    static final String UPDATE = "jcni.api.update";

    static Path snapshotFile() {
        return Locations.dist().getParent().resolve("it/api/jcni-api.txt");
    }

    static Path changelog() {
        return Locations.dist().getParent().resolve("CHANGELOG.md");
    }

    @Test
    void theExportedApiIsTheCommittedSnapshot() throws IOException {
        String actual = snapshot();
        Path file = snapshotFile();
        String expected = Files.exists(file) ? Files.readString(file) : "";
        if (actual.equals(expected)) {
            return;
        }
        Diff diff = Diff.of(expected, actual);
        Set<String> unannounced = unannounced(diff.changedTypes(), Files.readString(changelog()));
        if (Boolean.getBoolean(UPDATE)) {
            // The first snapshot is the baseline: nothing to announce against.
            assertThat(expected.isEmpty() ? Set.of() : unannounced).as("changed types that CHANGELOG.md's "
                    + "\"Unreleased\" section does not name: announce them there first").isEmpty();
            Files.createDirectories(file.getParent());
            Files.writeString(file, actual);
            System.out.println("ApiSnapshotTest: wrote " + file + " (" + diff.summary() + ")");
            return;
        }
        throw new AssertionError("The library's exported API differs from " + file + " (" + diff.summary() + "):\n"
                + diff.text() + "\nIf this change is intended: name each changed type in CHANGELOG.md under "
                + "\"## Unreleased\" (Added / Changed / Deprecated / Removed; a public method goes only after a "
                + "release in which it was @Deprecated(forRemoval = true)), then regenerate the snapshot:\n"
                + "  ./mvnw -B -o verify -pl it -Dtest=ApiSnapshotTest -Dsurefire.failIfNoSpecifiedTests=false "
                + "-D" + UPDATE + "=true\nand commit both files."
                + (unannounced.isEmpty() ? "" : "\nNot named in CHANGELOG.md's \"Unreleased\" yet: " + unannounced));
    }

    /** The regeneration refuses an unannounced type, so a snapshot change comes with its changelog line. */
    @Test
    void aChangedTypeCountsAsAnnouncedOnlyWhenTheUnreleasedSectionNamesIt() {
        String changelog = """
                # Changelog
                ## Unreleased
                ### Added
                - `SandboxNetworks`: the go-cni-level API.
                ## 0.0.1
                - `CniRuntime` got a method.
                """;
        assertThat(unannounced(Set.of("io.jcni.runtime.SandboxNetworks", "io.jcni.runtime.SandboxNetworks$Config",
                "io.jcni.runtime.CniRuntime"), changelog)).containsExactly("io.jcni.runtime.CniRuntime");
        Diff diff = Diff.of("io.jcni.a.A: public class io.jcni.a.A\n  public void io.jcni.a.A.m()\n",
                "io.jcni.a.A: public class io.jcni.a.A\n  public void io.jcni.a.A.m(int)\n"
                        + "io.jcni.a.B: public class io.jcni.a.B\n");
        assertThat(diff.changedTypes()).containsExactly("io.jcni.a.A", "io.jcni.a.B");
        assertThat(diff.text()).isEqualTo("- io.jcni.a.A:   public void io.jcni.a.A.m()\n"
                + "+ io.jcni.a.A:   public void io.jcni.a.A.m(int)\n+ io.jcni.a.B: public class io.jcni.a.B\n");
    }

    /** The snapshot sees the API it should: the types the README names are in it, internal packages are not. */
    @Test
    void theSnapshotCoversTheExportedPackagesAndNothingElse() {
        String snapshot = snapshot();
        assertThat(snapshot).contains("io.jcni.runtime.CniRuntime: public abstract interface",
                "io.jcni.runtime.SandboxNetworks: public final class", "io.jcni.spec.IpText: public final class",
                "io.jcni.plugins.Plugins: ", "io.jcni.netlink.NetNs: ",
                "public static io.jcni.runtime.CniRuntime$Options "
                        + "io.jcni.runtime.CniRuntime$Options.fromEnvironment()");
        assertThat(snapshot).doesNotContain(".internal.", "RuntimeImpl", "io.jcni.runtime.internal.files");
    }

    // ------------------------------------------------------------------------------------------ the snapshot

    /** One line per type ({@code NAME: DECLARATION}) followed by its members, indented; types sorted by name. */
    static String snapshot() {
        Map<String, List<String>> types = new TreeMap<>();
        for (String name : MODULES) {
            Module module = ModuleLayer.boot().findModule(name)
                    .orElseThrow(() -> new AssertionError("module " + name + " is not in this JVM's boot layer"));
            Set<String> exported = new TreeSet<>();
            for (ModuleDescriptor.Exports export : module.getDescriptor().exports()) {
                if (!export.isQualified()) {
                    exported.add(export.source());
                }
            }
            for (String className : classes(name, exported)) {
                Class<?> type;
                try {
                    type = Class.forName(className, false, module.getClassLoader());
                } catch (ClassNotFoundException e) {
                    throw new AssertionError(className, e);
                }
                if (isApi(type)) {
                    types.put(type.getName(), describe(type));
                }
            }
        }
        StringBuilder out = new StringBuilder("# jcni's public API: every exported type and member (ApiSnapshotTest"
                + " writes this file; see CHANGELOG.md)\n");
        for (Map.Entry<String, List<String>> type : types.entrySet()) {
            out.append(type.getKey()).append(": ").append(type.getValue().getFirst()).append('\n');
            for (String member : type.getValue().subList(1, type.getValue().size())) {
                out.append("  ").append(member).append('\n');
            }
        }
        return out.toString();
    }

    /** The binary names of the classes of {@code packages} in module {@code name}, from the module's contents. */
    private static List<String> classes(String name, Set<String> packages) {
        List<String> names = new ArrayList<>();
        try (ModuleReader reader = ModuleLayer.boot().configuration().findModule(name).orElseThrow().reference()
                .open(); Stream<String> entries = reader.list()) {
            entries.filter(e -> e.endsWith(".class") && !e.endsWith("module-info.class")).forEach(e -> {
                String binary = e.substring(0, e.length() - ".class".length()).replace('/', '.');
                int dot = binary.lastIndexOf('.');
                if (dot > 0 && packages.contains(binary.substring(0, dot))) {
                    names.add(binary);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(names).as("classes of " + name).isNotEmpty();
        return names;
    }

    /** Public or protected, as are all its enclosing types; not anonymous, local or synthetic. */
    private static boolean isApi(Class<?> type) {
        for (Class<?> t = type; t != null; t = t.getDeclaringClass()) {
            if (t.isAnonymousClass() || t.isLocalClass() || t.isSynthetic() || !visible(t.getModifiers())) {
                return false;
            }
        }
        return true;
    }

    private static boolean visible(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static List<String> describe(Class<?> type) {
        StringBuilder head = new StringBuilder(deprecation(type)).append(type.toGenericString());
        Type superclass = type.getGenericSuperclass();
        if (superclass != null && superclass != Object.class && superclass != Record.class
                && !(type.isEnum() && type.getSuperclass() == Enum.class)) {
            head.append(" extends ").append(superclass.getTypeName());
        }
        Type[] interfaces = type.getGenericInterfaces();
        if (interfaces.length > 0) {
            head.append(type.isInterface() ? " extends " : " implements ");
            for (int i = 0; i < interfaces.length; i++) {
                head.append(i == 0 ? "" : ", ").append(interfaces[i].getTypeName());
            }
        }
        if (type.isSealed()) {
            Set<String> permitted = new TreeSet<>();
            for (Class<?> sub : type.getPermittedSubclasses()) {
                permitted.add(sub.getName());
            }
            head.append(" permits ").append(String.join(", ", permitted));
        }
        Set<String> members = new TreeSet<>();
        for (Constructor<?> c : type.getDeclaredConstructors()) {
            add(members, c, c.toGenericString());
        }
        for (Method m : type.getDeclaredMethods()) {
            if (!m.isBridge()) {
                add(members, m, m.toGenericString());
            }
        }
        for (Field f : type.getDeclaredFields()) {
            add(members, f, f.toGenericString());
        }
        List<String> lines = new ArrayList<>();
        lines.add(head.toString());
        lines.addAll(members);
        return lines;
    }

    private static <T extends AnnotatedElement & Member> void add(Set<String> members, T member, String text) {
        if (!member.isSynthetic() && visible(member.getModifiers())) {
            members.add(deprecation(member) + text);
        }
    }

    private static String deprecation(AnnotatedElement element) {
        Deprecated deprecated = element.getAnnotation(Deprecated.class);
        if (deprecated == null) {
            return "";
        }
        return deprecated.forRemoval() ? "@Deprecated(forRemoval=true) " : "@Deprecated ";
    }

    // ------------------------------------------------------------------------------------------ comparing

    /** The lines that went and came between two snapshots, each tagged with its type. */
    record Diff(List<String> removed, List<String> added) {
        static Diff of(String before, String after) {
            Set<String> old = tagged(before);
            Set<String> now = tagged(after);
            List<String> removed = new ArrayList<>();
            List<String> added = new ArrayList<>();
            for (String line : old) {
                if (!now.contains(line)) {
                    removed.add(line);
                }
            }
            for (String line : now) {
                if (!old.contains(line)) {
                    added.add(line);
                }
            }
            return new Diff(removed, added);
        }

        /** Every line as {@code TYPE: LINE}: member lines carry their type's name. */
        private static Set<String> tagged(String snapshot) {
            Set<String> lines = new LinkedHashSet<>();
            String type = "";
            for (String line : snapshot.split("\n")) {
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                if (line.startsWith("  ")) {
                    lines.add(type + ": " + line);
                } else {
                    type = line.substring(0, line.indexOf(':'));
                    lines.add(line);
                }
            }
            return lines;
        }

        Set<String> changedTypes() {
            Set<String> types = new TreeSet<>();
            for (List<String> lines : List.of(removed, added)) {
                for (String line : lines) {
                    types.add(line.substring(0, line.indexOf(':')));
                }
            }
            return types;
        }

        String text() {
            StringBuilder out = new StringBuilder();
            for (String line : removed) {
                out.append("- ").append(line).append('\n');
            }
            for (String line : added) {
                out.append("+ ").append(line).append('\n');
            }
            return out.toString();
        }

        String summary() {
            return removed.size() + " lines removed, " + added.size() + " added, types " + changedTypes();
        }
    }

    /**
     * The types of {@code changed} that the "Unreleased" section of {@code changelog} does not name: a type counts as
     * named when its simple name, or that of the top-level type it is nested in, appears there as a word.
     */
    static Set<String> unannounced(Set<String> changed, String changelog) {
        Matcher section = Pattern.compile("(?ms)^## Unreleased\\b[^\n]*$(.*?)(?=^## |\\z)").matcher(changelog);
        String unreleased = section.find() ? section.group(1) : "";
        Set<String> missing = new TreeSet<>();
        for (String type : changed) {
            String simple = type.substring(type.lastIndexOf('.') + 1);
            String outer = simple.contains("$") ? simple.substring(0, simple.indexOf('$')) : simple;
            if (!Pattern.compile("\\b" + Pattern.quote(outer) + "\\b").matcher(unreleased).find()) {
                missing.add(type);
            }
        }
        return missing;
    }
}
