package io.jcni.spec.databind;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.PrettyPrinter;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The codec's own reader and writer (since they replaced jackson-core on the exec path) against jackson-core configured
 * as the codec had it: the same documents accepted and rejected, the same values, and byte-identical output, compact
 * and in Go's indented layout. Inputs: every JSON file of this module's test resources and the fuzz corpus, seeded
 * random documents (escapes, astral and lone surrogates, control characters, big and exponent numbers, whitespace),
 * and every single-byte corruption of a few of them. Byte sequences that are not valid UTF-8 are left out of the
 * value comparison: there the codec follows Go (U+FFFD per bad byte) where Jackson rejects or substitutes otherwise.
 */
class CodecMatchesJacksonTest {
    private static final JsonFactory JACKSON = JsonFactory.builder()
            .disable(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES)
            .disable(StreamReadFeature.AUTO_CLOSE_SOURCE)
            .disable(StreamWriteFeature.AUTO_CLOSE_TARGET)
            .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
            .build();

    /** Jackson's verdict: a value, or the message of its rejection. */
    private record Verdict(Json value, String error) {
    }

    private static Verdict jacksonParse(byte[] input) {
        try (JsonParser parser = JACKSON.createParser(input)) {
            Json value = JacksonStreams.read(parser);
            return parser.nextToken() == null ? new Verdict(value, null) : new Verdict(null, "trailing content");
        } catch (CniException | IOException e) {
            return new Verdict(null, e.getMessage());
        }
    }

    private static byte[] jacksonWrite(Json value, boolean indented) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JACKSON.createGenerator(out)) {
            if (indented) {
                g.setPrettyPrinter(new GoIndent());
            }
            JacksonStreams.write(g, value);
        }
        return out.toByteArray();
    }

    private static boolean validUtf8(byte[] bytes) {
        return UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes), java.nio.CharBuffer.allocate(bytes.length),
                true).isUnderflow();
    }

    /** The input with control characters made visible. */
    private static String show(byte[] input) {
        StringBuilder text = new StringBuilder();
        for (char c : new String(input, UTF_8).toCharArray()) {
            text.append(c < 0x20 ? String.format("<%02x>", (int) c) : String.valueOf(c));
        }
        return text.toString();
    }

    private int accepted;
    private int rejected;

    private int lowSurrogateKeys;
    private String lastRejection;

    private void compare(byte[] input) throws IOException {
        if (!validUtf8(input)) {
            return;
        }
        Verdict expected = jacksonParse(input);
        Json actual;
        try {
            actual = CniJson.parse(input);
        } catch (CniException e) {
            assertThat(expected.value()).as("rejected (%s) but Jackson accepts: %s", e.getMessage(), show(input))
                    .isNull();
            rejected++;
            lastRejection = e.getMessage() + " for " + show(input);
            return;
        }
        accepted++;
        if (expected.error() != null && expected.error().contains("surrogate") && expected.error().contains("in field name")) {
            // Jackson refuses escaped lone surrogates in keys; the codec reads them as U+FFFD, as Go does.
            lowSurrogateKeys++;
            return;
        }
        assertThat(expected.value()).as("accepted but Jackson rejects (%s): %s", expected.error(), show(input))
                .isNotNull();
        assertThat(actual).isEqualTo(expected.value());
        assertThat(new String(CniJson.encode(actual), UTF_8)).isEqualTo(new String(jacksonWrite(actual, false), UTF_8));
        assertThat(new String(CniJson.encodeIndented(actual), UTF_8))
                .isEqualTo(new String(jacksonWrite(actual, true), UTF_8));
    }

    @Test
    void resourcesAndFuzzCorpusDecodeAndEncodeAsWithJackson() throws Exception {
        Path root = Path.of(CodecMatchesJacksonTest.class.getResource("/io/jcni/spec").toURI());
        List<Path> files;
        try (Stream<Path> walk = Files.walk(root)) {
            files = walk.filter(Files::isRegularFile).filter(f -> !f.toString().endsWith(".md")).toList();
        }
        assertThat(files).hasSizeGreaterThan(10);
        for (Path file : files) {
            compare(Files.readAllBytes(file));
        }
        assertThat(accepted).isGreaterThan(5);
    }

    @Test
    void randomDocumentsAndTheirCorruptionsDecodeAndEncodeAsWithJackson() throws IOException {
        Random random = new Random(20261121);
        List<byte[]> documents = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            StringBuilder text = new StringBuilder();
            document(random, text, 0);
            documents.add(text.toString().getBytes(UTF_8));
        }
        for (byte[] document : documents) {
            compare(document);
        }
        assertThat(accepted).as("generated documents are valid JSON; rejected: %s", lastRejection)
                .isEqualTo(documents.size());
        assertThat(lowSurrogateKeys).as("Jackson's refusals are rare").isLessThan(documents.size() / 10);
        for (byte[] document : documents.subList(0, 40)) {
            for (int i = 0; i < document.length; i++) {
                byte[] deleted = new byte[document.length - 1];
                System.arraycopy(document, 0, deleted, 0, i);
                System.arraycopy(document, i + 1, deleted, i, document.length - i - 1);
                compare(deleted);
                for (byte b : new byte[] {'"', '{', '[', ']', '}', ',', ':', '0', '-', 'e', '.', '\\', 'u', ' ', 1}) {
                    byte[] replaced = document.clone();
                    replaced[i] = b;
                    compare(replaced);
                }
            }
        }
        assertThat(rejected).as("the corruptions must hit errors").isGreaterThan(10_000);
    }

    @Test
    void byteOrderMarkIsSkippedAsJacksonDid() throws IOException {
        compare(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '{', '}'});
        assertThat(accepted).isEqualTo(1);
    }

    // ---------------------------------------------------------------------------------------------- generator

    private static void document(Random random, StringBuilder out, int depth) {
        whitespace(random, out);
        int kind = depth > 5 ? 2 + random.nextInt(4) : random.nextInt(6);
        switch (kind) {
            case 0 -> {
                out.append('{');
                int n = random.nextInt(5);
                for (int i = 0; i < n; i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    whitespace(random, out);
                    string(random, out);
                    whitespace(random, out);
                    out.append(':');
                    document(random, out, depth + 1);
                }
                whitespace(random, out);
                out.append('}');
            }
            case 1 -> {
                out.append('[');
                int n = random.nextInt(5);
                for (int i = 0; i < n; i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    document(random, out, depth + 1);
                }
                whitespace(random, out);
                out.append(']');
            }
            case 2, 3 -> string(random, out);
            case 4 -> number(random, out);
            default -> out.append(List.of("true", "false", "null").get(random.nextInt(3)));
        }
        whitespace(random, out);
    }

    private static void whitespace(Random random, StringBuilder out) {
        while (random.nextInt(4) == 0) {
            out.append(" \t\r\n".charAt(random.nextInt(4)));
        }
    }

    private static final String[] PIECES = {"a", "eth0", "10.1.0.0/16", " ", "é", "日本", "😀", "\u007f", "\u2028", "/",
            "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u0000", "\\u001f", "\\u00e9", "\\uD83D\\uDE00",
            "\\ud800", "\\udc00x", "\\uDBFF\\uDFFF", "\\uFFFF", "\\u0041"};

    private static void string(Random random, StringBuilder out) {
        out.append('"');
        int n = random.nextInt(6);
        for (int i = 0; i < n; i++) {
            out.append(PIECES[random.nextInt(PIECES.length)]);
        }
        out.append('"');
    }

    private static void number(Random random, StringBuilder out) {
        if (random.nextBoolean()) {
            out.append('-');
        }
        out.append(random.nextInt(3) == 0 ? "0" : Long.toString(1 + (random.nextLong() >>> 1 + random.nextInt(63))));
        if (random.nextBoolean()) {
            out.append('.').append(random.nextInt(1000));
        }
        if (random.nextInt(3) == 0) {
            out.append(random.nextBoolean() ? 'e' : 'E').append(List.of("", "+", "-").get(random.nextInt(3)))
                    .append(random.nextInt(400));
        }
    }

    // ---------------------------------------------------------------------------------------------- Go's layout

    /** The PrettyPrinter the codec used with jackson-core for Go's MarshalIndent layout (four spaces). */
    private static final class GoIndent implements PrettyPrinter {
        private int depth;

        private void newline(JsonGenerator g) throws IOException {
            g.writeRaw('\n');
            for (int i = 0; i < depth; i++) {
                g.writeRaw("    ");
            }
        }

        @Override
        public void writeRootValueSeparator(JsonGenerator g) throws IOException {
            g.writeRaw('\n');
        }

        @Override
        public void writeStartObject(JsonGenerator g) throws IOException {
            g.writeRaw('{');
            depth++;
        }

        @Override
        public void beforeObjectEntries(JsonGenerator g) throws IOException {
            newline(g);
        }

        @Override
        public void writeObjectFieldValueSeparator(JsonGenerator g) throws IOException {
            g.writeRaw(": ");
        }

        @Override
        public void writeObjectEntrySeparator(JsonGenerator g) throws IOException {
            g.writeRaw(',');
            newline(g);
        }

        @Override
        public void writeEndObject(JsonGenerator g, int entries) throws IOException {
            depth--;
            if (entries > 0) {
                newline(g);
            }
            g.writeRaw('}');
        }

        @Override
        public void writeStartArray(JsonGenerator g) throws IOException {
            g.writeRaw('[');
            depth++;
        }

        @Override
        public void beforeArrayValues(JsonGenerator g) throws IOException {
            newline(g);
        }

        @Override
        public void writeArrayValueSeparator(JsonGenerator g) throws IOException {
            g.writeRaw(',');
            newline(g);
        }

        @Override
        public void writeEndArray(JsonGenerator g, int values) throws IOException {
            depth--;
            if (values > 0) {
                newline(g);
            }
            g.writeRaw(']');
        }
    }
}
