package io.jcni.spec.internal;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.PrettyPrinter;
import java.io.IOException;

/**
 * The layout of Go's {@code json.MarshalIndent(v, "", "    ")}, which libcni uses to print results and errors: four
 * spaces per level, {@code "key": value}, and empty containers as {@code {}} / {@code []}. Stateful: one per
 * generator.
 */
final class GoIndentPrinter implements PrettyPrinter {
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
