package io.jcni.spec;

import java.math.BigDecimal;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * A JSON number kept as its literal text, so a configuration passes through unchanged ({@code 1.50}, {@code 1e3} and
 * {@code 100000000000000000000001} are written back as read).
 *
 * @param literal the number as it appears in JSON: {@code -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?}
 */
public record JsonNumber(String literal) implements Json {
    public JsonNumber {
        Objects.requireNonNull(literal, "literal");
        if (!isJsonNumber(literal)) {
            throw new IllegalArgumentException("not a JSON number: " + literal);
        }
    }

    /** The JSON number grammar, by hand (a regex would be compiled at plugin start-up). */
    private static boolean isJsonNumber(String s) {
        int i = 0;
        int n = s.length();
        if (i < n && s.charAt(i) == '-') {
            i++;
        }
        if (i < n && s.charAt(i) == '0') {
            i++;
        } else {
            int start = i;
            while (i < n && isDigit(s.charAt(i))) {
                i++;
            }
            if (i == start) {
                return false;
            }
        }
        if (i < n && s.charAt(i) == '.') {
            int start = ++i;
            while (i < n && isDigit(s.charAt(i))) {
                i++;
            }
            if (i == start) {
                return false;
            }
        }
        if (i < n && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
            i++;
            if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
                i++;
            }
            int start = i;
            while (i < n && isDigit(s.charAt(i))) {
                i++;
            }
            if (i == start) {
                return false;
            }
        }
        return i == n;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    public static JsonNumber of(long value) {
        return new JsonNumber(Long.toString(value));
    }

    public static JsonNumber of(BigDecimal value) {
        return new JsonNumber(value.toString().replace("E+", "e").replace('E', 'e'));
    }

    /** True if the literal is an integer literal (no fraction, no exponent), as Go requires for an int field. */
    public boolean isIntegerLiteral() {
        return literal.indexOf('.') < 0 && literal.indexOf('e') < 0 && literal.indexOf('E') < 0;
    }

    /** The value as a long if the literal is an integer literal within range (Go's rule for int fields). */
    public OptionalLong toLong() {
        if (!isIntegerLiteral() || literal.length() > 20) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(literal));
        } catch (NumberFormatException outOfRange) {
            return OptionalLong.empty();
        }
    }

    /** The exact value. */
    public BigDecimal decimal() {
        return new BigDecimal(literal);
    }

    @Override
    public String typeName() {
        return "number";
    }

    @Override
    public String toString() {
        return literal;
    }
}
