package dev.javaep.ort;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.AddressLayout;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.OptionalInt;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A declaration of ORT's C headers that nobody here wrote: the JavaCPP classes that
 * {@code org.bytedeco:onnxruntime:1.28.0-1.5.14} generated from {@code onnxruntime_c_api.h} and
 * {@code onnxruntime_ep_c_api.h} (ORT 1.28, API 28). Its sources jar is on ep-factory's test class path; this
 * reads it as text, nothing of it is compiled or run.
 *
 * <p>What JavaCPP writes, and what is read from it: one class per C struct, its members in declaration order.
 * A data field is a getter plus a setter ({@code int version(); OrtAllocator version(int setter);}); a
 * function pointer is either a nested {@code FunctionPointer} class (whose {@code call} has the C parameters)
 * plus a getter/setter pair, or a native method with the C parameters (one or more overloads that differ
 * only in the Java types of pointers). C enums are {@code public static final int} lists in
 * {@code global/onnxruntime.java}, each after a {@code /** enum Name *}{@code /} comment. Doc comments keep
 * ORT's {@code @since Version 1.N}.
 */
final class GeneratedDeclaration {
    /** ORT 1.28.0: the API version the generated declaration describes. */
    static final int API_VERSION = 28;

    private static final String PACKAGE = "org/bytedeco/onnxruntime/";
    private static final Pattern ANNOTATION = Pattern.compile("@\\w+(\\s*\\((?:[^()\"]|\"(?:[^\"\\\\]|\\\\.)*\")*\\))?");
    private static final Pattern DECLARATION =
            Pattern.compile("^public native (?:static )?(\\S+)\\s+(\\w+)\\s*\\((.*)\\)$", Pattern.DOTALL);
    private static final Pattern NESTED_FUNCTION_POINTER =
            Pattern.compile("public static class (\\w+) extends FunctionPointer$");
    private static final Pattern SINCE = Pattern.compile("(?:@since|\\\\since)\\s+(?:Version\\s+)?1\\.(\\d+)");
    private static final Pattern ENUM_MARKER = Pattern.compile("/\\*\\*\\s*enum (\\w+)\\s*\\*/");

    private static final Map<String, Struct> STRUCTS = new HashMap<>();
    private static Map<String, String> enums;
    /** C enums JavaCPP declared as Java enums (OrtSparseIndicesFormat): passed as int like the others. */
    private static Set<String> javaEnums;

    private GeneratedDeclaration() {}

    enum Kind { FIELD, FUNCTION }

    /**
     * One struct member.
     *
     * @param shape for a function: the return type then each parameter, one letter each (V void, P pointer,
     *              I 32-bit int or enum, J 64-bit int or size_t, Z bool, F float, D double, B 8-bit, S 16-bit);
     *              for a field: its one letter, or the struct's name when embedded by value
     * @param since the {@code @since Version 1.N} of its doc comment, when it has one
     */
    record Member(String name, Kind kind, String shape, OptionalInt since, long offset, long size) {
        int parameterCount() {
            if (kind != Kind.FUNCTION) {
                throw new IllegalStateException(name + " is a data field");
            }
            return shape.length() - 1;
        }

        @Override
        public String toString() {
            return kind == Kind.FUNCTION ? name + "/" + parameterCount() + " " + shape : name + ":" + shape;
        }
    }

    /** A C struct as declared: members in order, offsets and size as the LP64/LLP64 C compilers lay them out. */
    record Struct(String name, List<Member> members, long size, long alignment) {
        List<Member> functions() {
            return members.stream().filter(m -> m.kind() == Kind.FUNCTION).toList();
        }

        Member member(String memberName) {
            return members.stream().filter(m -> m.name().equals(memberName)).findFirst()
                    .orElseThrow(() -> new NoSuchElementException(name + " has no member " + memberName));
        }
    }

    /** The struct {@code name} (e.g. "OrtApi", "OrtEpFactory") as the generated class declares it. */
    static synchronized Struct struct(String name) {
        Struct known = STRUCTS.get(name);
        if (known == null) {
            known = parseStruct(name, read(PACKAGE + name + ".java"));
            STRUCTS.put(name, known);
        }
        return known;
    }

    /** A function-pointer typedef (e.g. "OrtKernelCreateFunc"): its shape, return type first. */
    static String typedefShape(String name) {
        ClassBody body = ClassBody.of(read(PACKAGE + name + ".java"), name);
        for (Chunk chunk : body.chunks()) {
            Declaration declaration = Declaration.parse(chunk.text());
            if (declaration != null && declaration.name().equals("call")) {
                return declaration.shape();
            }
        }
        throw new IllegalStateException(name + ".java declares no call(...)");
    }

    /** The C enum {@code name}: constant → value, in declaration order; aliases of an earlier constant left out. */
    static synchronized Map<String, Integer> enumeration(String name) {
        readGlobals();
        String list = enums.get(name);
        if (list == null) {
            throw new NoSuchElementException("the generated declaration has no enum " + name);
        }
        return evaluate(name, list);
    }

    private static synchronized void readGlobals() {
        if (enums == null) {
            String global = read(PACKAGE + "global/onnxruntime.java");
            enums = parseEnums(global);
            javaEnums = Pattern.compile("public (?:static )?enum (\\w+)").matcher(global).results()
                    .map(m -> m.group(1)).collect(java.util.stream.Collectors.toUnmodifiableSet());
        }
    }

    /** The letter of a Java type JavaCPP uses for a C parameter, return value or field. */
    private static String cLetter(String javaType) {
        readGlobals();
        return javaEnums.contains(javaType) ? "I" : javaLetter(javaType);
    }

    /** The shape of a descriptor of ours, in the letters {@link Member#shape()} uses. */
    static String shape(FunctionDescriptor descriptor) {
        StringBuilder shape = new StringBuilder(descriptor.returnLayout().map(GeneratedDeclaration::letter).orElse("V"));
        descriptor.argumentLayouts().forEach(layout -> shape.append(letter(layout)));
        return shape.toString();
    }

    private static String letter(MemoryLayout layout) {
        if (layout instanceof AddressLayout) {
            return "P";
        }
        if (layout instanceof ValueLayout value) {
            return javaLetter(value.carrier().getName());
        }
        return "{" + layout + "}";
    }

    private static String javaLetter(String javaType) {
        return switch (javaType) {
            case "void" -> "V";
            case "int" -> "I";
            case "long" -> "J";
            case "boolean" -> "Z";
            case "float" -> "F";
            case "double" -> "D";
            case "byte" -> "B";
            case "short" -> "S";
            case "char" -> "C";
            default -> "P"; // every class type and array JavaCPP uses for a C parameter is a pointer
        };
    }

    private static long sizeOf(String letter) {
        return switch (letter) {
            case "I", "F" -> 4;
            case "J", "D", "P" -> 8;
            case "Z", "B" -> 1;
            case "S", "C" -> 2;
            default -> throw new IllegalArgumentException("no size for " + letter);
        };
    }

    private static String read(String resource) {
        try (InputStream in = GeneratedDeclaration.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is not on the test class path: ep-factory/pom.xml declares"
                        + " org.bytedeco:onnxruntime:1.28.0-1.5.14:sources as a test dependency");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- structs ----

    private static Struct parseStruct(String name, String source) {
        ClassBody body = ClassBody.of(source, name);
        Map<String, String> nestedShapes = new HashMap<>();
        Map<String, OptionalInt> nestedSince = new HashMap<>();
        Map<String, List<Declaration>> byName = new LinkedHashMap<>();
        Map<String, OptionalInt> sinceByName = new HashMap<>();
        for (Chunk chunk : body.chunks()) {
            if (chunk.block() != null) {
                Matcher nested = NESTED_FUNCTION_POINTER.matcher(chunk.text());
                if (nested.find()) {
                    String callShape = null;
                    for (Chunk inner : ClassBody.split(chunk.block())) {
                        Declaration call = Declaration.parse(inner.text());
                        if (call != null && call.name().equals("call")) {
                            callShape = call.shape();
                        }
                    }
                    nestedShapes.put(nested.group(1), callShape);
                    nestedSince.put(nested.group(1), chunk.since());
                }
                continue; // constructors, position(), getPointer(), static initialisers
            }
            Declaration declaration = Declaration.parse(chunk.text());
            if (declaration == null) {
                continue;
            }
            byName.computeIfAbsent(declaration.name(), n -> new ArrayList<>()).add(declaration);
            sinceByName.putIfAbsent(declaration.name(), chunk.since());
        }
        List<Member> members = new ArrayList<>();
        long offset = 0;
        long alignment = 1;
        for (var entry : byName.entrySet()) {
            String memberName = entry.getKey();
            List<Declaration> declarations = entry.getValue();
            Declaration first = declarations.getFirst();
            Kind kind;
            String shape;
            OptionalInt since = sinceByName.get(memberName);
            long size;
            long memberAlignment;
            if (first.parameters().isEmpty() && nestedShapes.containsKey(first.type())) {
                kind = Kind.FUNCTION;
                shape = nestedShapes.get(first.type());
                since = since.isPresent() ? since : nestedSince.get(first.type());
                size = memberAlignment = 8;
            } else if (isField(name, declarations)) {
                kind = Kind.FIELD;
                if (first.byValue()) {
                    Struct embedded = struct(first.type());
                    shape = embedded.name();
                    size = embedded.size();
                    memberAlignment = embedded.alignment();
                } else {
                    shape = cLetter(first.type());
                    size = memberAlignment = sizeOf(shape);
                }
            } else {
                kind = Kind.FUNCTION;
                shape = first.shape();
                for (Declaration overload : declarations) {
                    if (!overload.shape().equals(shape)) {
                        throw new IllegalStateException(name + "." + memberName + ": overloads disagree, " + shape
                                + " vs " + overload.shape());
                    }
                }
                size = memberAlignment = 8;
            }
            offset = align(offset, memberAlignment);
            members.add(new Member(memberName, kind, shape, since, offset, size));
            offset += size;
            alignment = Math.max(alignment, memberAlignment);
        }
        return new Struct(name, List.copyOf(members), align(offset, alignment), alignment);
    }

    /** A getter without parameters and a setter {@code Owner name(T setter)}: a data field. */
    private static boolean isField(String owner, List<Declaration> declarations) {
        return declarations.size() == 2
                && declarations.get(0).parameters().isEmpty()
                && declarations.get(1).type().equals(owner)
                && declarations.get(1).parameters().size() == 1
                && declarations.get(1).parameters().getFirst().endsWith(" setter");
    }

    private static long align(long offset, long alignment) {
        return (offset + alignment - 1) / alignment * alignment;
    }

    /** One {@code public native} declaration, annotations removed. */
    private record Declaration(String type, String name, List<String> parameters, boolean byValue) {
        static Declaration parse(String statement) {
            String text = statement.replaceAll("\\s+", " ").trim();
            int nativeAt = text.indexOf("public native ");
            if (nativeAt < 0) {
                return null;
            }
            text = text.substring(nativeAt);
            // @ByRef/@ByVal on the return type: a field embedded by value. Parameters never carry them in C headers.
            String plain = ANNOTATION.matcher(text).replaceAll(a -> a.group().startsWith("@ByRef") || a.group().startsWith("@ByVal")
                    ? " BY_VALUE " : " ").replaceAll("\\s+", " ");
            int open = plain.indexOf('(');
            boolean byValue = open > 0 && plain.substring(0, open).contains(" BY_VALUE ");
            plain = plain.replace(" BY_VALUE ", " ").replaceAll("\\s+", " ");
            Matcher m = DECLARATION.matcher(plain.trim());
            if (!m.matches()) {
                return null;
            }
            List<String> parameters = new ArrayList<>();
            for (String parameter : m.group(3).split(",")) {
                if (!parameter.isBlank()) {
                    parameters.add(parameter.trim());
                }
            }
            return new Declaration(m.group(1), m.group(2), List.copyOf(parameters), byValue);
        }

        String shape() {
            StringBuilder shape = new StringBuilder(cLetter(type));
            for (String parameter : parameters) {
                String[] words = parameter.split(" ");
                shape.append(cLetter(words[words.length - 2]));
            }
            return shape.toString();
        }
    }

    /** A statement (no block) or a block with its header, and the {@code @since} of the comments before it. */
    private record Chunk(String text, String block, OptionalInt since) {}

    /** The top-level class body of a generated file, cut into statements and blocks; comments dropped. */
    private record ClassBody(List<Chunk> chunks) {
        static ClassBody of(String source, String className) {
            Matcher header = Pattern.compile("public class " + className + " extends \\w+\\s*\\{").matcher(source);
            if (!header.find()) {
                throw new IllegalStateException("no class " + className);
            }
            return new ClassBody(split(source.substring(header.end())));
        }

        /** Cuts {@code body} (after its opening brace) at depth 0 until the closing brace. */
        static List<Chunk> split(String body) {
            List<Chunk> chunks = new ArrayList<>();
            StringBuilder text = new StringBuilder();
            OptionalInt since = OptionalInt.empty();
            int parens = 0;
            int i = 0;
            while (i < body.length()) {
                char c = body.charAt(i);
                if (body.startsWith("//", i) || body.startsWith("/*", i)) {
                    int end = body.startsWith("//", i) ? body.indexOf('\n', i) : body.indexOf("*/", i + 2) + 2;
                    end = end <= 0 ? body.length() : end;
                    Matcher s = SINCE.matcher(body.substring(i, end));
                    while (s.find()) {
                        since = OptionalInt.of(Integer.parseInt(s.group(1)));
                    }
                    text.append(' ');
                    i = end;
                } else if (c == '"') {
                    int end = skipString(body, i);
                    text.append(body, i, end);
                    i = end;
                } else if (c == '(') {
                    parens++;
                    text.append(c);
                    i++;
                } else if (c == ')') {
                    parens--;
                    text.append(c);
                    i++;
                } else if (c == ';' && parens == 0) {
                    chunks.add(new Chunk(text.toString().trim(), null, since));
                    text.setLength(0);
                    since = OptionalInt.empty();
                    i++;
                } else if (c == '{' && parens == 0) {
                    int end = matchingBrace(body, i);
                    chunks.add(new Chunk(text.toString().trim(), body.substring(i + 1, end), since));
                    text.setLength(0);
                    since = OptionalInt.empty();
                    i = end + 1;
                } else if (c == '}' && parens == 0) {
                    break;
                } else {
                    text.append(c);
                    i++;
                }
            }
            return chunks;
        }

        private static int skipString(String s, int quote) {
            int i = quote + 1;
            while (s.charAt(i) != '"') {
                i += s.charAt(i) == '\\' ? 2 : 1;
            }
            return i + 1;
        }

        private static int matchingBrace(String s, int open) {
            int depth = 0;
            int i = open;
            while (true) {
                char c = s.charAt(i);
                if (s.startsWith("//", i)) {
                    i = s.indexOf('\n', i);
                } else if (s.startsWith("/*", i)) {
                    i = s.indexOf("*/", i + 2) + 2;
                } else if (c == '"') {
                    i = skipString(s, i);
                } else {
                    if (c == '{') {
                        depth++;
                    } else if (c == '}' && --depth == 0) {
                        return i;
                    }
                    i++;
                }
            }
        }
    }

    // ---- enums ----

    /** Enum name → the text of its constant list, comments dropped. */
    private static Map<String, String> parseEnums(String source) {
        Map<String, String> all = new HashMap<>();
        Matcher marker = ENUM_MARKER.matcher(source);
        List<Integer> ends = new ArrayList<>();
        List<String> names = new ArrayList<>();
        while (marker.find()) {
            ends.add(marker.end());
            names.add(marker.group(1));
        }
        for (int e = 0; e < names.size(); e++) {
            int start = source.indexOf("public static final int", ends.get(e));
            int limit = e + 1 < ends.size() ? ends.get(e + 1) : source.length();
            if (start < 0 || start > limit) {
                continue; // declared as a Java enum, not as int constants
            }
            // The list runs to the first ';' outside comments.
            StringBuilder list = new StringBuilder();
            int i = start + "public static final int".length();
            while (source.charAt(i) != ';') {
                if (source.startsWith("//", i)) {
                    i = source.indexOf('\n', i);
                } else if (source.startsWith("/*", i)) {
                    i = source.indexOf("*/", i + 2) + 2;
                } else {
                    list.append(source.charAt(i++));
                }
            }
            all.put(names.get(e), list.toString());
        }
        return all;
    }

    /** Evaluates decimal and hex literals and aliases; JavaCPP writes every value out, so no implicit ones occur. */
    private static Map<String, Integer> evaluate(String name, String list) {
        Map<String, Integer> constants = new LinkedHashMap<>();
        int next = 0;
        for (String entry : list.split(",")) {
            String[] parts = entry.split("=", 2);
            String constant = parts[0].trim();
            if (parts.length == 1) {
                constants.put(constant, next++);
                continue;
            }
            String value = parts[1].trim();
            if (value.matches("-?\\d+")) {
                next = Integer.parseInt(value);
            } else if (value.matches("-?0[xX][0-9a-fA-F]+")) {
                next = (value.startsWith("-") ? -1 : 1) * Integer.parseInt(value.replaceFirst("-?0[xX]", ""), 16);
            } else if (constants.containsKey(value)) {
                continue; // an alias (OrtMemTypeCPU = OrtMemTypeCPUOutput): not a value of its own
            } else {
                throw new IllegalStateException("enum " + name + ": cannot evaluate '" + entry.trim() + "'");
            }
            constants.put(constant, next++);
        }
        return constants;
    }
}
