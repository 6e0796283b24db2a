/**
 * The CNI data model: configurations ({@link io.jcni.spec.PluginConfig}, {@link io.jcni.spec.NetworkConfigList}),
 * results of every version and their conversions, errors, versions, CNI_ARGS, naming rules, and the JSON codec
 * ({@link io.jcni.spec.CniJson}) over the value model {@link io.jcni.spec.Json}.
 *
 * <h2>The JSON codec has no library underneath (measured; see docs/ARCHITECTURE.md, "The start-up budget")</h2>
 * The codec began on jackson-core's streaming parser and generator. It now has its own strict reader and writer
 * instead ({@code io.jcni.spec.internal.JsonReader} and {@code JsonWriter}, about 600 lines), because the
 * codec runs in every plugin exec and jackson-core's class initialization was the largest single cost of decoding a
 * plugin's stdin: its parser base class holds {@code BigDecimal} and {@code BigInteger} constants, whose first touch
 * initializes {@code BigInteger}'s parallel-multiplication support and with it {@code ForkJoinPool} (10-15 ms with C1
 * on JDK 25, 48 ms interpreted), and the generator and its factory add more. Measured on the shipped image (jlink + AOT
 * cache, 2 shared cores, interleaved with Go's static plugin, medians of 30 runs): a static-IPAM ADD exec went from
 * 46 ms to 31 ms wall and from 46 ms to 32 ms CPU; VERSION, which never touched Jackson, stayed at 27 ms.
 *
 * <p>What did not change: the documents accepted (RFC 8259 exactly: no comments, trailing commas, leading zeros,
 * {@code NaN}, single quotes or raw control characters), the value model (key order, verbatim number literals, the
 * last of repeated keys wins at the first one's position), the limits and their messages with the JSON path, the
 * error codes, and the bytes written (compact, or Go's {@code MarshalIndent} layout; escaping as jackson-core did).
 * {@code CodecMatchesJacksonTest} holds all of that against jackson-core itself, on the test resources, the fuzz corpus,
 * thousands of generated documents and every single-byte corruption of some. What did: syntax-error messages are the
 * codec's own ({@code invalid JSON at line 1, column 8: unexpected character '}', expected a string key after ','}),
 * with the same line and column; bytes that are not UTF-8 become U+FFFD one per byte as in Go's {@code encoding/json};
 * an escaped lone surrogate in a key is read as U+FFFD (as Go does) where jackson-core rejected the document; and only
 * UTF-8 input is read (jackson-core also detected UTF-16 and UTF-32, which no CNI runtime sends and Go rejects).
 *
 * <p>jackson-core remains a dependency of this module for {@link io.jcni.spec.databind.CniJacksonModule} only, whose
 * serializers and deserializers read and write through the caller's {@code ObjectMapper} streams as before.
 */
package io.jcni.spec;
