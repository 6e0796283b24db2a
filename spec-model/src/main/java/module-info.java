/** The CNI data model: configurations, results of every version and their conversions, errors, versions, CNI_ARGS,
 *  naming rules, and the JSON codec (jackson-core streaming, no databind on the exec path). */
module io.jcni.spec {
    exports io.jcni.spec;
    /** Optional: Jackson databind serializers/deserializers (needs jackson-databind at run time). */
    exports io.jcni.spec.databind;

    requires com.fasterxml.jackson.core;
    requires static com.fasterxml.jackson.databind;
}
