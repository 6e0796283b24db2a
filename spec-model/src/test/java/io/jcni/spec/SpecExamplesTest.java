package io.jcni.spec;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every fenced block of the three spec texts (copied verbatim under test resources), classified by an explicit table
 * so that no block is skipped silently: schematic templates (placeholders such as {@code <name>} or {@code ...}) are
 * listed, spec errata (invalid JSON in the spec itself) are listed with the fix, everything else must decode as the
 * kind it is and survive a round trip. The spec annotates examples with {@code //} comments (its 1.0.0 example is
 * marked {@code jsonc}); they are stripped here because CNI JSON, like libcni, has no comments.
 */
class SpecExamplesTest {

    enum Kind { CONFIG, CONFLIST, RESULT, ERROR, VERSION, TEMPLATE, ERRATUM }

    record Block(String file, int line, String text, CniVersion version) {
        @Override
        public String toString() {
            return file + ":" + line;
        }
    }

    /** Blocks that are not plain examples, by "file:line" of the opening fence. */
    private static final Map<String, Kind> SPECIAL = Map.ofEntries(
            Map.entry("SPEC-0.3.1.md:102", Kind.TEMPLATE), Map.entry("SPEC-0.3.1.md:156", Kind.TEMPLATE),
            Map.entry("SPEC-0.3.1.md:210", Kind.ERRATUM), Map.entry("SPEC-0.3.1.md:424", Kind.TEMPLATE),
            Map.entry("SPEC-0.3.1.md:475", Kind.TEMPLATE), Map.entry("SPEC-0.3.1.md:501", Kind.TEMPLATE),
            Map.entry("SPEC-0.3.1.md:517", Kind.TEMPLATE),
            Map.entry("SPEC-0.4.0.ko.md:203", Kind.TEMPLATE), Map.entry("SPEC-0.4.0.ko.md:263", Kind.TEMPLATE),
            Map.entry("SPEC-0.4.0.ko.md:498", Kind.ERRATUM), Map.entry("SPEC-0.4.0.ko.md:695", Kind.TEMPLATE),
            Map.entry("SPEC-0.4.0.ko.md:751", Kind.TEMPLATE), Map.entry("SPEC-0.4.0.ko.md:778", Kind.TEMPLATE),
            Map.entry("SPEC-0.4.0.ko.md:797", Kind.TEMPLATE),
            Map.entry("SPEC-1.0.0.md:426", Kind.TEMPLATE));

    /** Expected kinds per file, so that a broken extractor cannot pass by finding nothing. */
    private static final Map<String, Map<Kind, Integer>> EXPECTED_COUNTS = Map.of(
            "SPEC-0.3.1.md", Map.of(Kind.VERSION, 1, Kind.TEMPLATE, 6, Kind.ERRATUM, 1, Kind.CONFIG, 6,
                    Kind.CONFLIST, 1),
            "SPEC-0.4.0.ko.md", Map.of(Kind.VERSION, 1, Kind.TEMPLATE, 6, Kind.ERRATUM, 1, Kind.CONFIG, 8,
                    Kind.CONFLIST, 1),
            "SPEC-1.0.0.md", Map.of(Kind.CONFLIST, 1, Kind.CONFIG, 10, Kind.TEMPLATE, 1, Kind.ERROR, 1,
                    Kind.VERSION, 1, Kind.RESULT, 3));

    private static final Pattern FENCE = Pattern.compile("^\\s*```");

    static List<Block> blocks() throws IOException {
        List<Block> blocks = new ArrayList<>();
        for (String file : List.of("SPEC-0.3.1.md", "SPEC-0.4.0.ko.md", "SPEC-1.0.0.md")) {
            CniVersion version = switch (file) {
                case "SPEC-0.3.1.md" -> CniVersion.V0_3_1;
                case "SPEC-0.4.0.ko.md" -> CniVersion.V0_4_0;
                default -> CniVersion.V1_0_0;
            };
            String[] lines;
            try (InputStream in = SpecExamplesTest.class.getResourceAsStream("spec/" + file)) {
                lines = new String(in.readAllBytes(), UTF_8).split("\n", -1);
            }
            int start = -1;
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < lines.length; i++) {
                if (FENCE.matcher(lines[i]).find()) {
                    if (start < 0) {
                        start = i + 1;
                        text.setLength(0);
                    } else {
                        blocks.add(new Block(file, start, text.toString(), version));
                        start = -1;
                    }
                } else if (start >= 0) {
                    text.append(lines[i]).append('\n');
                }
            }
            assertThat(start).as("unterminated fence in " + file).isNegative();
        }
        return blocks;
    }

    /** Removes {@code // ...} annotations outside strings. */
    static String stripComments(String text) {
        StringBuilder out = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            boolean inString = false;
            int cut = line.length();
            for (int i = 0; i < line.length(); i++) {
                char c = line.charAt(i);
                if (c == '"' && (i == 0 || line.charAt(i - 1) != '\\')) {
                    inString = !inString;
                } else if (!inString && c == '/' && i + 1 < line.length() && line.charAt(i + 1) == '/') {
                    cut = i;
                    break;
                }
            }
            out.append(line, 0, cut).append('\n');
        }
        return out.toString();
    }

    static Kind kindOf(Block block) throws CniException {
        Kind special = SPECIAL.get(block.toString());
        if (special != null) {
            return special;
        }
        JsonObject json = (JsonObject) Json.parse(stripComments(block.text()));
        if (json.has("supportedVersions")) {
            return Kind.VERSION;
        }
        if (json.has("plugins")) {
            return Kind.CONFLIST;
        }
        if (json.has("type")) {
            return Kind.CONFIG;
        }
        if (json.has("code")) {
            return Kind.ERROR;
        }
        return Kind.RESULT;
    }

    static Stream<Block> examples() throws IOException {
        return blocks().stream();
    }

    @Test
    void everyBlockIsAccountedFor() throws Exception {
        Map<String, Map<Kind, Integer>> counts = new TreeMap<>();
        for (Block block : blocks()) {
            counts.computeIfAbsent(block.file(), f -> new LinkedHashMap<>()).merge(kindOf(block), 1, Integer::sum);
        }
        assertThat(counts).isEqualTo(new TreeMap<>(EXPECTED_COUNTS));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void exampleDecodesAsItsKindAndRoundTrips(Block block) throws Exception {
        Kind kind = kindOf(block);
        String text = stripComments(block.text());
        byte[] bytes = text.getBytes(UTF_8);
        switch (kind) {
            case CONFIG -> {
                PluginConfig config = CniJson.decodePluginConfig(bytes);
                assertThat(config.type()).isNotEmpty();
                assertThat(config.cniVersion())
                        .isEqualTo(config.hasCniVersion() ? block.version() : CniVersion.V0_1_0);
                // Pass-through: the compact encoding equals the document's, key order and unknown fields included.
                assertThat(new String(CniJson.encode(config), UTF_8))
                        .isEqualTo(new String(CniJson.encode(Json.parse(text)), UTF_8));
                if (config.rawPrevResult().isPresent()) {
                    CniResult prev = config.prevResult().orElseThrow();
                    assertThat(prev.cniVersion()).isEqualTo(block.version());
                    assertResultMatchesDocument(prev, config.rawPrevResult().get());
                }
            }
            case CONFLIST -> {
                NetworkConfigList list = CniJson.decodeNetworkConfigList(bytes);
                assertThat(list.name()).isEqualTo("dbnet");
                assertThat(list.cniVersion()).isEqualTo(block.version());
                assertThat(list.bytes()).isEqualTo(bytes);
                assertThat(list.plugins()).isNotEmpty();
                assertThat(list.plugins().getFirst().type()).isEqualTo("bridge");
                assertThat(new String(CniJson.encode(list), UTF_8))
                        .isEqualTo(new String(CniJson.encode(Json.parse(text)), UTF_8));
            }
            case RESULT -> {
                CniResult result = CniJson.decodeResult(bytes, block.version());
                assertResultMatchesDocument(result, (JsonObject) Json.parse(text));
                assertThat(CniJson.decodeResult(CniJson.encode(result), block.version())).isEqualTo(result);
            }
            case ERROR -> {
                CniError error = CniJson.decodeError(bytes);
                assertThat(error).isEqualTo(new CniError("1.0.0", 7, "Invalid Configuration",
                        "Network 192.168.0.0/31 too small to allocate from."));
                assertThat(Json.parse(new String(CniJson.encode(error), UTF_8))).isEqualTo(Json.parse(text));
            }
            case VERSION -> {
                VersionInfo info = CniJson.decodeVersionInfo(bytes);
                assertThat(info.cniVersion()).isEqualTo(block.version().toString());
                assertThat(info.supportedVersions()).startsWith("0.1.0", "0.2.0", "0.3.0").contains(
                        block.version().toString());
                assertThat(CniJson.decodeVersionInfo(CniJson.encode(info))).isEqualTo(info);
            }
            case TEMPLATE -> {
                // A schema sketch, not JSON: it must fail to decode (so it cannot be a mislabelled example).
                CniException e = catchThrowableOfType(CniException.class, () -> Json.parse(text));
                assertThat(e).as("template %s parsed as JSON", block).isNotNull();
                assertThat(e.code()).isEqualTo(6);
                assertThat(text).containsAnyOf("<", "...");
            }
            case ERRATUM -> {
                CniException e = catchThrowableOfType(CniException.class, () -> Json.parse(text));
                assertThat(e).as("erratum %s parsed as JSON", block).isNotNull();
                assertThat(e.code()).isEqualTo(6);
                assertThat(e.getMessage()).startsWith("invalid JSON at line ");
                String fixed = fixErratum(block, text);
                PluginConfig config = CniJson.decodePluginConfig(fixed.getBytes(UTF_8));
                assertThat(config.cniVersion()).isEqualTo(block.version());
            }
        }
    }

    /** The decoded result, printed as libcni prints it, says what the document says (cniVersion aside). */
    private static void assertResultMatchesDocument(CniResult result, JsonObject document) {
        JsonObject printed = CniJson.toJson(result);
        assertThat(printed.get("cniVersion")).contains(Json.of(result.cniVersion().toString()));
        JsonObject withoutVersion = printed.without("cniVersion");
        JsonObject expected = document.without("cniVersion");
        if (!expected.has("dns") && withoutVersion.get("dns").equals(java.util.Optional.of(JsonObject.EMPTY))) {
            withoutVersion = withoutVersion.without("dns");
        }
        assertThat(withoutVersion).isEqualTo(expected);
    }

    /** The spec errata and their one-character fixes. */
    private static String fixErratum(Block block, String text) {
        return switch (block.toString()) {
            // A comma is missing after the "ipam" object, before "args".
            case "SPEC-0.3.1.md:210" -> text.replaceFirst("(\"routes\": \\[[^\\]]*\\]\\s*\\n\\s*\\})", "$1,");
            // A comma is missing after "dns", and three interface objects end with a trailing comma.
            case "SPEC-0.4.0.ko.md:498" -> text.replaceFirst("(\\[ \"10\\.1\\.0\\.1\" \\]\\s*\\n\\s*\\})", "$1,")
                    .replaceAll(",(\\s*\\n\\s*\\})", "$1");
            default -> throw new AssertionError("no fix for " + block);
        };
    }

    @Test
    void errataFixesAreMinimal() throws Exception {
        for (Block block : blocks()) {
            if (SPECIAL.get(block.toString()) == Kind.ERRATUM) {
                String text = stripComments(block.text());
                String fixed = fixErratum(block, text);
                int added = count(fixed, ',') - count(text, ',');
                assertThat(added).as(block.toString()).isBetween(-3, 1);
                assertThat(fixed.replaceAll("[,\\s]", "")).isEqualTo(text.replaceAll("[,\\s]", ""));
            }
        }
    }

    private static int count(String text, char c) {
        return (int) text.chars().filter(x -> x == c).count();
    }
}
