package io.jcni.it.tooling;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.Maven;
import io.jcni.it.support.ProcessResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The POMs pass what a public repository (Maven Central's rules) asks of a published module, read where it counts: in
 * each module's effective POM, as Maven computes it ({@code help:effective-pom} of the whole reactor), since
 * inheritance decides what a consumer sees. Published are the parent and the four library modules (what
 * {@code -Djcni.library} installs); benchmarks and it skip deploy.
 *
 * <p>Inheritance is the trap this catches: a module without a description of its own inherits the parent's, and Maven
 * appends each module's artifactId to an inherited {@code url} and {@code scm} (giving addresses that do not exist)
 * unless the parent says not to.
 */
class PomMetadataTest {
    static final List<String> PUBLISHED = List.of("jcni-parent", "jcni-spec-model", "jcni-netlink-ffm",
            "jcni-runtime", "jcni-plugins-core");
    static final List<String> NOT_PUBLISHED = List.of("jcni-benchmarks", "jcni-it");

    @TempDir
    static Path tmp;

    static Map<String, Element> effective = new LinkedHashMap<>();

    @BeforeAll
    static void effectivePoms() throws Exception {
        Path out = tmp.resolve("effective-pom.xml");
        String plugin = "org.apache.maven.plugins:maven-help-plugin:"
                + System.getProperty("jcni.it.helpPluginVersion", "3.5.1") + ":effective-pom";
        ProcessResult run = Maven.run(Maven.checkout(), null, List.of("-q", plugin, "-Doutput=" + out),
                Duration.ofMinutes(5));
        assertThat(run.succeeded()).as(run.describe()).isTrue();
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        Document doc = factory.newDocumentBuilder().parse(out.toFile());
        for (Element project : children(doc.getDocumentElement(), "project")) {
            effective.put(text(project, "artifactId"), project);
        }
        assertThat(effective.keySet()).as("the reactor's modules").containsAll(PUBLISHED).containsAll(NOT_PUBLISHED);
    }

    @Test
    void everyPublishedModuleHasNameDescriptionUrlLicensesDevelopersAndScmOfItsOwn() {
        String parentDescription = text(effective.get("jcni-parent"), "description");
        List<String> problems = new ArrayList<>();
        for (String artifact : PUBLISHED) {
            Element pom = effective.get(artifact);
            for (String field : List.of("name", "description", "url")) {
                if (text(pom, field).isBlank()) {
                    problems.add(artifact + ": no " + field);
                }
            }
            if (!artifact.equals("jcni-parent") && text(pom, "description").equals(parentDescription)) {
                problems.add(artifact + ": the parent's description, inherited: it needs its own");
            }
            List<Element> licenses = children(child(pom, "licenses"), "license");
            if (licenses.isEmpty() || licenses.stream().anyMatch(l -> text(l, "name").isBlank()
                    || !text(l, "url").startsWith("https://"))) {
                problems.add(artifact + ": licenses need a name and an https url: " + licenses.size());
            }
            List<Element> developers = children(child(pom, "developers"), "developer");
            if (developers.isEmpty() || developers.stream().anyMatch(d -> text(d, "name").isBlank())) {
                problems.add(artifact + ": developers need a name");
            }
            Element scm = child(pom, "scm");
            for (String field : List.of("connection", "developerConnection", "url")) {
                if (scm == null || text(scm, field).isBlank()) {
                    problems.add(artifact + ": no scm " + field);
                }
            }
            // One project, one address: inherited as it is, not with the module's artifactId appended.
            Element parent = effective.get("jcni-parent");
            if (!text(pom, "url").equals(text(parent, "url"))) {
                problems.add(artifact + ": url " + text(pom, "url") + " is not the project's " + text(parent, "url"));
            }
            if (scm != null) {
                for (String field : List.of("connection", "developerConnection", "url")) {
                    if (!text(scm, field).equals(text(child(parent, "scm"), field))) {
                        problems.add(artifact + ": scm " + field + " " + text(scm, field) + " is not the project's");
                    }
                }
            }
        }
        assertThat(problems).isEmpty();
        assertThat(text(child(child(effective.get("jcni-runtime"), "licenses"), "license"), "name"))
                .as("an SPDX identifier").isEqualTo("Apache-2.0");
    }

    @Test
    void theModulesThatAreNotLibrariesAreNotDeployed() {
        for (String artifact : NOT_PUBLISHED) {
            assertThat(text(child(effective.get(artifact), "properties"), "maven.deploy.skip")).as(artifact)
                    .isEqualTo("true");
        }
        for (String artifact : PUBLISHED) {
            assertThat(text(child(effective.get(artifact), "properties"), "maven.deploy.skip")).as(artifact)
                    .isNotEqualTo("true");
        }
    }

    // ------------------------------------------------------------------------------------------ XML

    private static List<Element> children(Element parent, String name) {
        List<Element> out = new ArrayList<>();
        if (parent == null) {
            return out;
        }
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && name.equals(e.getLocalName())) {
                out.add(e);
            }
        }
        return out;
    }

    private static Element child(Element parent, String name) {
        List<Element> found = children(parent, name);
        return found.isEmpty() ? null : found.getFirst();
    }

    private static String text(Element parent, String name) {
        Element e = child(parent, name);
        return e == null ? "" : e.getTextContent().strip();
    }
}
