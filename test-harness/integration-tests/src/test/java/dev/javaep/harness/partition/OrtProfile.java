package dev.javaep.harness.partition;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the profile ORT writes with profiling enabled: a JSON array of Chrome-trace events. Node events
 * have {@code "cat":"Node"} and names {@code <node>_kernel_time} (also {@code _fence_before/_after}), with
 * {@code args.op_name} and {@code args.provider}; session events ({@code "cat":"Session"}) include one
 * {@code model_run} per Run.
 */
public final class OrtProfile {
    private OrtProfile() {}

    /** @param args every argument, as text; {@code opName} and {@code provider} are two of them */
    public record Event(String category, String name, String opName, String provider, long durationMicros, long timestampMicros,
                 Map<String, String> args) {
        public boolean isNodeKernelTime() {
            return "Node".equals(category) && name.endsWith("_kernel_time");
        }

        @Override
        public String toString() {
            return category + " " + name + " op=" + opName + " provider=" + provider + " dur=" + durationMicros + "us";
        }
    }

    public static List<Event> read(Path file) throws IOException {
        Object json = new JsonParser(Files.readString(file, StandardCharsets.UTF_8)).document();
        if (!(json instanceof List<?> array)) {
            throw new IOException(file + " is not a JSON array of trace events");
        }
        List<Event> events = new ArrayList<>();
        for (Object element : array) {
            if (element instanceof Map<?, ?> event) {
                Map<?, ?> args = event.get("args") instanceof Map<?, ?> m ? m : Map.of();
                Map<String, String> texts = new LinkedHashMap<>();
                args.forEach((key, value) -> texts.put(string(key), string(value)));
                events.add(new Event(string(event.get("cat")), string(event.get("name")), string(args.get("op_name")),
                        string(args.get("provider")), event.get("dur") instanceof Number n ? n.longValue() : -1,
                        event.get("ts") instanceof Number ts ? ts.longValue() : -1, texts));
            }
        }
        return events;
    }

    private static String string(Object value) {
        return value == null ? "" : value.toString();
    }

    /** Just enough JSON: objects, arrays, strings, numbers, true, false, null. */
    private static final class JsonParser {
        private final String text;
        private int at;

        JsonParser(String text) {
            this.text = text;
        }

        Object document() {
            Object value = value();
            space();
            if (at != text.length()) {
                throw error("trailing text");
            }
            return value;
        }

        private Object value() {
            space();
            if (at >= text.length()) {
                throw error("unexpected end");
            }
            char c = text.charAt(at);
            return switch (c) {
                case '{' -> object();
                case '[' -> array();
                case '"' -> string();
                case 't' -> literal("true", Boolean.TRUE);
                case 'f' -> literal("false", Boolean.FALSE);
                case 'n' -> literal("null", null);
                default -> number();
            };
        }

        private Map<String, Object> object() {
            Map<String, Object> map = new LinkedHashMap<>();
            at++;
            space();
            if (peek('}')) {
                return map;
            }
            do {
                space();
                String key = string();
                space();
                expect(':');
                map.put(key, value());
                space();
            } while (peek(','));
            expect('}');
            return map;
        }

        private List<Object> array() {
            List<Object> list = new ArrayList<>();
            at++;
            space();
            if (peek(']')) {
                return list;
            }
            do {
                list.add(value());
                space();
            } while (peek(','));
            expect(']');
            return list;
        }

        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (true) {
                char c = text.charAt(at++);
                if (c == '"') {
                    return out.toString();
                }
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                char e = text.charAt(at++);
                switch (e) {
                    case 'n' -> out.append('\n');
                    case 't' -> out.append('\t');
                    case 'r' -> out.append('\r');
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'u' -> {
                        out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                        at += 4;
                    }
                    default -> out.append(e);
                }
            }
        }

        private Number number() {
            int start = at;
            while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
                at++;
            }
            if (start == at) {
                throw error("unexpected '" + text.charAt(at) + "'");
            }
            String n = text.substring(start, at);
            return n.contains(".") || n.contains("e") || n.contains("E") ? (Number) Double.parseDouble(n) : (Number) Long.parseLong(n);
        }

        private Object literal(String word, Object value) {
            if (!text.startsWith(word, at)) {
                throw error("expected " + word);
            }
            at += word.length();
            return value;
        }

        private boolean peek(char c) {
            if (at < text.length() && text.charAt(at) == c) {
                at++;
                return true;
            }
            return false;
        }

        private void expect(char c) {
            if (!peek(c)) {
                throw error("expected '" + c + "'");
            }
        }

        private void space() {
            while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
                at++;
            }
        }

        private IllegalArgumentException error(String what) {
            return new IllegalArgumentException("ORT profile JSON: " + what + " at offset " + at);
        }
    }
}
