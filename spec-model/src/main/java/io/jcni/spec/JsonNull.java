package io.jcni.spec;

/** JSON {@code null}. Typed accessors treat it as an absent field, as Go's encoding/json does. */
public enum JsonNull implements Json {
    INSTANCE;

    @Override
    public String typeName() {
        return "null";
    }

    @Override
    public String toString() {
        return "null";
    }
}
