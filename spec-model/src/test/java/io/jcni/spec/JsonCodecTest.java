package io.jcni.spec;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JsonCodecTest {

    private static String roundTrip(String json) throws CniException {
        return new String(CniJson.encode(Json.parse(json)), UTF_8);
    }

    private static CniException decodeFailure(byte[] input) {
        try {
            CniJson.parse(input);
        } catch (CniException e) {
            return e;
        }
        throw new AssertionError("decoded: " + new String(input, UTF_8));
    }

    private static CniException decodeFailure(String input) {
        return decodeFailure(input.getBytes(UTF_8));
    }

    @Test
    void keepsKeyOrderUnknownFieldsAndNumberLiterals() throws CniException {
        String json = """
                {"zeta":1.50,"alpha":1e3,"big":100000000000000000000001,"neg":-0.0,\
                "nested":{"b":[true,false,null],"a":"x"},"empty":{},"none":[]}""";
        assertThat(roundTrip(json)).isEqualTo(json);
        JsonObject object = (JsonObject) Json.parse(json);
        assertThat(object.keys()).containsExactly("zeta", "alpha", "big", "neg", "nested", "empty", "none");
        assertThat(object.get("zeta")).contains(new JsonNumber("1.50"));
        assertThat(object.get("big").map(Json::toString)).contains("100000000000000000000001");
    }

    @Test
    void whitespaceIsNormalizedButValuesAreNot() throws CniException {
        assertThat(roundTrip(" {\n  \"a\" : [ 1 , 2 ] ,\t\"b\":\"\\u00e9\\n\\\"\" }\n"))
                .isEqualTo("{\"a\":[1,2],\"b\":\"é\\n\\\"\"}");
    }

    @Test
    void repeatedKeyKeepsLastValueAtLastPositionLikeGo() throws CniException {
        JsonObject object = (JsonObject) Json.parse("{\"type\":\"bridge\",\"x\":1,\"type\":\"ptp\"}");
        assertThat(object.keys()).containsExactly("x", "type");
        assertThat(object.get("type")).contains(Json.of("ptp"));
    }

    @Test
    void unicodeRoundTripsAndLoneSurrogatesBecomeReplacementCharacterLikeGo() throws CniException {
        assertThat(roundTrip("{\"k\":\"日本 \\ud83d\\ude00 😀\"}")).isEqualTo("{\"k\":\"日本 😀 😀\"}");
        assertThat(roundTrip("[\"a\\ud800b\",\"\\udc00\"]")).isEqualTo("[\"a\uFFFDb\",\"\uFFFD\"]");
        assertThat(new JsonString("x\uD800").value()).isEqualTo("x\uFFFD");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
        {|invalid JSON at line 1, column 2: unexpected end of input, expected a string key or '}'
        {"a":1,}|invalid JSON at line 1, column 8: unexpected character '}', expected a string key after ','
        {"a" 1}|invalid JSON at line 1, column 6: unexpected character '1', expected ':' after the key
        [1,2]]|invalid JSON at line 1, column 6: unexpected content after the top-level value
        {} {}|invalid JSON at line 1, column 4: unexpected content after the top-level value
        {"a":01}|invalid JSON at line 1, column 7: invalid number: leading zeros are not allowed
        {"a":-}|invalid JSON at line 1, column 7: invalid number: unexpected character '}', expected a digit after '-'
        [1.]|invalid JSON at line 1, column 4: invalid number: unexpected character ']', expected a digit after the decimal point
        [1e+]|invalid JSON at line 1, column 5: invalid number: unexpected character ']', expected a digit in the exponent
        {"a":NaN}|invalid JSON at line 1, column 6: unexpected character 'N', expected a value
        /* c */ {}|invalid JSON at line 1, column 1: unexpected character '/', expected a value (JSON has no comments)
        {'a':1}|invalid JSON at line 1, column 2: unexpected character ''', expected a string key or '}' (JSON strings take double quotes)
        tru|invalid JSON at line 1, column 1: invalid literal, expected 'true'
        [nul]|invalid JSON at line 1, column 2: invalid literal, expected 'null'
        [1 2]|invalid JSON at line 1, column 4: unexpected character '2', expected ',' or ']' in an array
        {"a":1 "b":2}|invalid JSON at line 1, column 8: unexpected character '"', expected ',' or '}' in an object
        [1,]|invalid JSON at line 1, column 4: unexpected character ']', expected a value
        ["a|invalid JSON at line 1, column 4: unexpected end of input in a string
        ["\\x"]|invalid JSON at line 1, column 3: invalid escape '\\x' in a string
        ["\\u12G4"]|invalid JSON at line 1, column 3: invalid \\u escape: expected four hexadecimal digits
        ["a\tb"]|invalid JSON at line 1, column 4: control character U+0009 in a string must be escaped
        ["é" x]|invalid JSON at line 1, column 6: unexpected character 'x', expected ',' or ']' in an array
        """)
    void malformedJsonIsCodeSixWithLineAndColumn(String input, String message) {
        CniException e = decodeFailure(input);
        assertThat(e.code()).isEqualTo(CniError.DECODING_FAILURE);
        assertThat(e.getMessage()).isEqualTo(message);
    }

    @Test
    void emptyAndNullInputAreCodeSix() {
        assertThat(decodeFailure("").getMessage()).isEqualTo("invalid JSON: empty input");
        assertThat(decodeFailure("   ").getMessage()).isEqualTo("invalid JSON: empty input");
        assertThatThrownBy(() -> CniJson.parse(null)).isInstanceOf(CniException.class);
    }

    @Test
    void invalidUtf8BecomesReplacementCharacterLikeGo() throws CniException {
        assertThat(CniJson.parse(new byte[] {'"', (byte) 0xC3, (byte) 0x28, '"'})).isEqualTo(Json.of("\uFFFD("));
    }

    @Test
    void everyByteOfAnInvalidUtf8SequenceBecomesOneReplacementCharacterLikeGo() throws CniException {
        // Go's utf8.DecodeRune: overlong forms, encoded surrogates, truncated sequences and bytes past U+10FFFF are
        // one U+FFFD per byte; decoding resumes at the next byte.
        assertThat(stringOf(0xC0, 0x80)).isEqualTo("\uFFFD\uFFFD");
        assertThat(stringOf(0xED, 0xA0, 0x80)).isEqualTo("\uFFFD\uFFFD\uFFFD");
        assertThat(stringOf(0xF0, 0x9F, 0x98)).isEqualTo("\uFFFD\uFFFD\uFFFD");
        assertThat(stringOf(0xF4, 0x90, 0x80, 0x80)).isEqualTo("\uFFFD".repeat(4));
        assertThat(stringOf(0xF5, 'a', 0xFF)).isEqualTo("\uFFFDa\uFFFD");
        assertThat(stringOf(0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80)).isEqualTo("€😀");
        CniException outside = decodeFailure(new byte[] {'[', (byte) 0xC3, (byte) 0xA9, ']'});
        assertThat(outside.getMessage())
                .isEqualTo("invalid JSON at line 1, column 2: unexpected byte 0xC3 (JSON syntax is ASCII), expected a value");
    }

    private static String stringOf(int... bytes) throws CniException {
        byte[] json = new byte[bytes.length + 2];
        json[0] = '"';
        for (int i = 0; i < bytes.length; i++) {
            json[i + 1] = (byte) bytes[i];
        }
        json[json.length - 1] = '"';
        return ((JsonString) CniJson.parse(json)).value();
    }

    @Test
    void escapedLoneSurrogatesInKeysBecomeReplacementCharacterLikeGo() throws CniException {
        JsonObject object = (JsonObject) Json.parse("{\"a\\udc00\":1,\"\\ud83d\\ude00\":2}");
        assertThat(object.keys()).containsExactly("a\uFFFD", "😀");
        assertThat(new String(CniJson.encode(object), UTF_8)).isEqualTo("{\"a\uFFFD\":1,\"😀\":2}");
    }

    @Test
    void aByteOrderMarkBeforeTheDocumentIsSkipped() throws CniException {
        assertThat(CniJson.parse(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '[', '1', ']'}))
                .isEqualTo(Json.array(Json.of(1)));
        assertThat(decodeFailure(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, ' '}).getMessage())
                .isEqualTo("invalid JSON: empty input");
    }

    @Test
    void controlCharactersAreEscapedOnOutputAsBefore() throws CniException {
        assertThat(roundTrip("[\"\\u0000\\u001f\\b\\f\\n\\r\\t\\/\\u007f\\u2028\"]"))
                .isEqualTo("[\"\\u0000\\u001F\\b\\f\\n\\r\\t/\u007f\u2028\"]");
    }

    @Test
    void commentsAreNotJson() {
        CniException e = decodeFailure("{\n  // comment\n  \"a\": 1\n}");
        assertThat(e.code()).isEqualTo(6);
        assertThat(e.getMessage()).isEqualTo("invalid JSON at line 2, column 3: unexpected character '/', "
                + "expected a string key or '}' (JSON has no comments)");
    }

    @Test
    void nestingDeeperThanTheLimitIsRejectedNamingThePlace() throws CniException {
        String ok = "[".repeat(CniJson.MAX_DEPTH) + "]".repeat(CniJson.MAX_DEPTH);
        assertThat(Json.parse(ok)).isInstanceOf(JsonArray.class);
        String deep = "{\"a\":" + "[".repeat(CniJson.MAX_DEPTH) + "]".repeat(CniJson.MAX_DEPTH) + "}";
        CniException e = decodeFailure(deep);
        assertThat(e.code()).isEqualTo(6);
        assertThat(e.getMessage()).isEqualTo("a" + "[0]".repeat(CniJson.MAX_DEPTH - 1)
                + ": JSON nested deeper than 128 levels");
        CniException veryDeep = decodeFailure("[".repeat(100_000));
        assertThat(veryDeep.code()).isEqualTo(6);
    }

    @Test
    void oversizedDocumentStringAndNumberAreRejected() {
        byte[] huge = new byte[CniJson.MAX_DOCUMENT_BYTES + 1];
        java.util.Arrays.fill(huge, (byte) ' ');
        assertThat(decodeFailure(huge).getMessage())
                .isEqualTo("JSON document too large: 4194305 bytes, limit 4194304");
        String longString = "{\"k\":[\"" + "x".repeat(CniJson.MAX_STRING_CHARS + 1) + "\"]}";
        assertThat(decodeFailure(longString).getMessage())
                .isEqualTo("k[0]: string too long (1048577 chars, limit 1048576)");
        String longKey = "{\"" + "k".repeat(CniJson.MAX_STRING_CHARS + 1) + "\":1}";
        assertThat(decodeFailure(longKey).getMessage())
                .isEqualTo("JSON document: string too long (1048577 chars, limit 1048576)");
        String longNumber = "{\"n\":" + "9".repeat(CniJson.MAX_NUMBER_CHARS + 1) + "}";
        assertThat(decodeFailure(longNumber).getMessage())
                .isEqualTo("n: number literal too long (257 chars, limit 256)");
    }

    @Test
    void indentedOutputMatchesGoMarshalIndentWithFourSpaces() throws CniException {
        Json json = Json.parse("""
                {"cniVersion":"1.0.0","interfaces":[{"name":"eth0"}],"ips":[],\
                "dns":{},"n":[1,[2]]}""");
        assertThat(new String(CniJson.encodeIndented(json), UTF_8)).isEqualTo("""
                {
                    "cniVersion": "1.0.0",
                    "interfaces": [
                        {
                            "name": "eth0"
                        }
                    ],
                    "ips": [],
                    "dns": {},
                    "n": [
                        1,
                        [
                            2
                        ]
                    ]
                }""");
    }

    @Test
    void objectsAreImmutableAndWithersKeepPositions() {
        JsonObject object = JsonObject.of("a", Json.of(1), "b", Json.of("x"));
        JsonObject replaced = object.with("a", Json.of(true)).with("c", Json.NULL);
        assertThat(replaced.toString()).isEqualTo("{\"a\":true,\"b\":\"x\",\"c\":null}");
        assertThat(object.toString()).isEqualTo("{\"a\":1,\"b\":\"x\"}");
        assertThat(replaced.without("a").keys()).containsExactly("b", "c");
        assertThat(object.without("zz")).isSameAs(object);
        LinkedHashMap<String, Json> source = new LinkedHashMap<>();
        source.put("k", Json.of(1));
        JsonObject copy = JsonObject.of(source);
        source.put("k2", Json.of(2));
        assertThat(copy.keys()).containsExactly("k");
        assertThatThrownBy(() -> copy.members().put("x", Json.NULL)).isInstanceOf(UnsupportedOperationException.class);
        assertThat(JsonObject.of("a", Json.of(1), "b", Json.of(2)))
                .isEqualTo(JsonObject.of("b", Json.of(2), "a", Json.of(1)));
    }

    @Test
    void numbersKeepLiteralsAndConvertLikeGoIntFields() {
        assertThat(new JsonNumber("1500").toLong()).hasValue(1500);
        assertThat(new JsonNumber("1.0").toLong()).isEmpty();
        assertThat(new JsonNumber("1e2").toLong()).isEmpty();
        assertThat(new JsonNumber("99999999999999999999").toLong()).isEmpty();
        assertThat(new JsonNumber("1e2").decimal()).isEqualByComparingTo("100");
        assertThat(new JsonNumber("1.50")).isNotEqualTo(new JsonNumber("1.5"));
        assertThatThrownBy(() -> new JsonNumber("01")).isInstanceOf(IllegalArgumentException.class);
        assertThat(JsonNumber.of(new java.math.BigDecimal("1E+3")).literal()).isEqualTo("1e3");
        assertThat(Json.array(Json.of(1), Json.of("a"), Json.NULL).elements()).hasSize(3);
        assertThat(List.of(Json.NULL.typeName(), Json.of(true).typeName(), Json.of(1).typeName(),
                Json.of("").typeName(), JsonArray.EMPTY.typeName(), JsonObject.EMPTY.typeName()))
                .containsExactly("null", "boolean", "number", "string", "array", "object");
    }
}
