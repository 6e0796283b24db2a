/**
 * The CNI data model: configurations, results of every version and their conversions, errors, versions, CNI_ARGS,
 * naming rules, and the JSON codec (its own reader and writer: no JSON library on the exec path; see the package
 * documentation of io.jcni.spec).
 *
 * <p>jackson-core and jackson-databind serve only the optional databind adapters ({@code io.jcni.spec.databind}), so
 * both are {@code requires static}: nothing of Jackson is needed at run time, and the plugins' jlink image holds none
 * of it. A runtime that registers {@code CniJacksonModule} brings jackson-databind itself (which requires
 * jackson-core) and reads it from its own module.
 */
module io.jcni.spec {
    exports io.jcni.spec;
    /** Optional: Jackson databind serializers/deserializers (needs jackson-databind at run time). */
    exports io.jcni.spec.databind;

    requires static com.fasterxml.jackson.core;
    requires static com.fasterxml.jackson.databind;
}
