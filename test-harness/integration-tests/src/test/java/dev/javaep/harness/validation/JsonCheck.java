package dev.javaep.harness.validation;

/** A strict JSON syntax check (RFC 8259), enough to say a trace file parses: throws where it does not. */
final class JsonCheck {
    private final String text;
    private int at;

    private JsonCheck(String text) {
        this.text = text;
    }

    static void requireValid(String text) {
        JsonCheck check = new JsonCheck(text);
        check.value();
        check.space();
        if (check.at != text.length()) {
            throw check.error("text after the value");
        }
    }

    private void value() {
        space();
        if (at >= text.length()) {
            throw error("a value expected");
        }
        char c = text.charAt(at);
        switch (c) {
            case '{' -> members('}', true);
            case '[' -> members(']', false);
            case '"' -> string();
            case 't' -> literal("true");
            case 'f' -> literal("false");
            case 'n' -> literal("null");
            default -> number();
        }
    }

    private void members(char close, boolean object) {
        at++;
        space();
        if (peek() == close) {
            at++;
            return;
        }
        while (true) {
            if (object) {
                space();
                string();
                space();
                expect(':');
            }
            value();
            space();
            if (peek() == ',') {
                at++;
            } else {
                expect(close);
                return;
            }
        }
    }

    private void string() {
        expect('"');
        while (at < text.length() && text.charAt(at) != '"') {
            char c = text.charAt(at++);
            if (c < 0x20) {
                throw error("a control character in a string");
            }
            if (c == '\\') {
                at++;
            }
        }
        expect('"');
    }

    private void number() {
        int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
        if (!text.substring(start, at).matches("-?(0|[1-9]\\d*)(\\.\\d+)?([eE][+-]?\\d+)?")) {
            throw error("a malformed number");
        }
    }

    private void literal(String word) {
        if (!text.startsWith(word, at)) {
            throw error(word + " expected");
        }
        at += word.length();
    }

    private void expect(char c) {
        if (peek() != c) {
            throw error("'" + c + "' expected");
        }
        at++;
    }

    private char peek() {
        return at < text.length() ? text.charAt(at) : '\0';
    }

    private void space() {
        while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("not JSON: " + what + " at character " + at);
    }
}
