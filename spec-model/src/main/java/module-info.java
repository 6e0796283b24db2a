/** The CNI data model: configurations, results of every version and their conversions, errors, versions, CNI_ARGS,
 *  naming rules, and the JSON codec (its own reader and writer: no JSON library on the exec path; see the package
 *  documentation of io.jcni.spec). jackson-core and jackson-databind serve only the optional databind adapters. */
module io.jcni.spec {
    exports io.jcni.spec;
    /** Optional: Jackson databind serializers/deserializers (needs jackson-databind at run time). */
    exports io.jcni.spec.databind;

    requires com.fasterxml.jackson.core;
    requires static com.fasterxml.jackson.databind;
}
