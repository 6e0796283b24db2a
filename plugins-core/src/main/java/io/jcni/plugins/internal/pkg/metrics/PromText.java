package io.jcni.plugins.internal.pkg.metrics;

/** Lines of Prometheus' text exposition format 0.0.4, appended to a {@link StringBuilder}. */
public final class PromText {
    private PromText() {
    }

    /** {@code # HELP name help} and {@code # TYPE name type} ({@code counter}, {@code gauge}, {@code histogram}). */
    public static void header(StringBuilder out, String name, String type, String help) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    /** A gauge without labels: its header and its one sample. */
    public static void gauge(StringBuilder out, String name, String help, long value) {
        header(out, name, "gauge", help);
        out.append(name).append(' ').append(value).append('\n');
    }

    /** One sample with one label, {@code name{label="value"} count}; {@code value} is written as it is. */
    public static void sample(StringBuilder out, String name, String label, String value, long count) {
        out.append(name).append('{').append(label).append("=\"").append(value).append("\"} ").append(count)
                .append('\n');
    }

    /** A label value as the text format wants it: backslash, double quote and line feed escaped. */
    public static String escape(String value) {
        StringBuilder b = null;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            String replacement = c == '\\' ? "\\\\" : c == '"' ? "\\\"" : c == '\n' ? "\\n" : null;
            if (replacement != null && b == null) {
                b = new StringBuilder(value.length() + 8).append(value, 0, i);
            }
            if (b != null) {
                if (replacement != null) {
                    b.append(replacement);
                } else {
                    b.append(c);
                }
            }
        }
        return b == null ? value : b.toString();
    }
}
