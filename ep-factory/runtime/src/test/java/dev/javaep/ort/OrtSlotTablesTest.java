package dev.javaep.ort;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The generated ABI (tools/gen_slots.py) is up to date with the tables in docs/reference/ it is generated from:
 * every slot and struct member with its name, place, since-version and C signature. Edit a table without
 * rerunning the generator and this fails.
 */
class OrtSlotTablesTest {

    private static List<String[]> rows(String file) throws IOException {
        Path reference = Path.of("").toAbsolutePath();
        while (!Files.isDirectory(reference.resolve("docs/reference"))) {
            reference = reference.getParent();
            assertTrue(reference != null, "no docs/reference above " + Path.of("").toAbsolutePath());
        }
        return Files.readAllLines(reference.resolve("docs/reference").resolve(file)).stream()
                .map(line -> line.split("\t")).toList();
    }

    // ---- the slot enums: index, since, C signature of each slot javaep binds ----

    static Stream<Arguments> slotTables() {
        return Stream.of(
                Arguments.of("ortapi-slots.tsv", List.of(OrtApiSlot.values()), OrtApiSlot.tableLength()),
                Arguments.of("ortepapi-slots.tsv", List.of(OrtEpApiSlot.values()), OrtEpApiSlot.tableLength()),
                Arguments.of("ortinteropapi-slots.tsv", List.of(OrtInteropApiSlot.values()), OrtInteropApiSlot.tableLength()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("slotTables")
    void slotEnumMatchesItsTable(String file, List<FunctionSlot> slots, int tableLength) throws IOException {
        Map<String, String[]> byName = new HashMap<>();
        for (String[] row : rows(file)) {
            byName.put(row[1], row);
        }
        int highest = -1;
        for (FunctionSlot slot : slots) {
            String[] row = byName.get(slot.name());
            assertTrue(row != null, file + " has no " + slot.name());
            assertEquals(Integer.parseInt(row[0]), slot.index(), slot.name());
            assertEquals(shape(slot.name(), row[2]), GeneratedDeclaration.shape(slot.descriptor()), slot.name() + ": " + row[2]);
            assertEquals(row[2].startsWith("OrtStatus*"), CTypes.returnsStatus(slot.descriptor()), slot.name() + " returns a status");
            assertTrue(slot.since() >= 1 && slot.since() <= OrtApi.COMPILED_API_VERSION + 1, slot.name());
            highest = Math.max(highest, slot.index());
        }
        assertEquals(highest + 1, tableLength, file + ": table length");
    }

    @Test
    void ortApiTableHasTheAnchorsOrtAsserts() throws IOException {
        assertEquals(426, rows("ortapi-slots.tsv").size(), "API-30 OrtApi has 426 slots");
        // Anchors ORT itself asserts (static_assert offsetof(OrtApi, X) / sizeof(void*) == N).
        assertEquals(93, OrtApiSlot.ReleaseStatus.index());
        assertEquals(317, OrtApiSlot.GetEpApi.index());
        assertEquals(395, OrtApiSlot.GetInteropApi.index());
        assertEquals(413, OrtApiSlot.RunOptionsSetSyncStream.index());
        assertEquals(16, OrtEpApiSlot.CreateHardwareDevice.index());
    }

    // ---- the callback-struct enums: every member of every struct the EP fills ----

    /** callback-structs.tsv by struct: its rows (struct, byte offset, since, C signature) in order. */
    static Stream<Arguments> callbackStructs() throws IOException {
        Map<String, List<String[]>> byStruct = new LinkedHashMap<>();
        for (String[] row : rows("callback-structs.tsv")) {
            byStruct.computeIfAbsent(row[0], s -> new ArrayList<>()).add(row);
        }
        return byStruct.entrySet().stream().map(e -> Arguments.of(e.getKey(), e.getValue()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("callbackStructs")
    void callbackStructEnumMatchesItsTable(String struct, List<String[]> rows) throws ReflectiveOperationException {
        Class<?> generated = Class.forName("dev.javaep.ort." + struct + "Struct");
        List<CallbackSlot> members = new ArrayList<>();
        for (Object constant : generated.getEnumConstants()) {
            members.add((CallbackSlot) constant);
        }
        assertEquals(rows.stream().map(row -> memberName(row[3])).toList(), members.stream().map(CallbackSlot::name).toList(),
                struct + ": members in table order");
        for (int i = 0; i < rows.size(); i++) {
            String[] row = rows.get(i);
            CallbackSlot member = members.get(i);
            String what = struct + "." + member.name();
            assertEquals(Long.parseLong(row[1]), member.byteOffset(), what + " offset");
            assertEquals(Integer.parseInt(row[2]), member.since(), what + " since");
            assertEquals(shape(member.name(), row[3]), GeneratedDeclaration.shape(member.descriptor()), what + ": " + row[3]);
            assertEquals(row[3].startsWith("OrtStatus*"), member.returnsStatus(), what + " returns a status");
            if (i > 0) {
                // Members are appended, each one pointer after the last.
                assertEquals(members.get(i - 1).byteOffset() + 8, member.byteOffset(), what + " follows the previous member");
                assertTrue(member.since() >= members.get(i - 1).since(), what + ": members are appended in version order");
            }
        }
        assertEquals(members.getLast().byteOffset() + 8, generated.getField("SIZE").getLong(null), struct + ".SIZE");
    }

    @Test
    void statusReturnsAreTellableFromPointerReturns() {
        assertTrue(OrtEpFactoryStruct.GetSupportedDevices.returnsStatus());
        assertTrue(!OrtEpFactoryStruct.GetName.returnsStatus(), "GetName returns const char*, not a status");
        assertTrue(!OrtAllocatorStruct.Alloc.returnsStatus());
        assertTrue(OrtEpStruct.Compile.returnsStatus());
        assertEquals(FunctionDescriptor.of(CTypes.STATUS, CTypes.POINTER, CTypes.POINTER, CTypes.POINTER),
                OrtEpStruct.GetCapability.descriptor());
    }

    // ---- C signatures ----

    private static final Pattern SIGNATURE = Pattern.compile("^(.*?)\\s*\\b(\\w+)\\((.*)\\)$");

    private static String memberName(String signature) {
        Matcher m = SIGNATURE.matcher(signature);
        assertTrue(m.matches(), "cannot read " + signature);
        return m.group(2);
    }

    /**
     * The shape of a C signature in {@link GeneratedDeclaration#shape}'s letters, read independently of the
     * generator: return type then each parameter (a parameter's name is its last word).
     */
    static String shape(String name, String signature) {
        Matcher m = SIGNATURE.matcher(signature);
        assertTrue(m.matches() && m.group(2).equals(name), "cannot read the signature of " + name + ": " + signature);
        StringBuilder shape = new StringBuilder(letter(m.group(1)));
        String parameters = m.group(3).trim();
        if (!parameters.isEmpty() && !parameters.equals("void")) {
            int depth = 0;
            int start = 0;
            for (int i = 0; i <= parameters.length(); i++) {
                char c = i < parameters.length() ? parameters.charAt(i) : ',';
                depth += c == '(' ? 1 : c == ')' ? -1 : 0;
                if (c == ',' && depth == 0) {
                    String parameter = parameters.substring(start, i).trim().replaceAll("\\[\\s*\\w*\\s*\\]$", "*");
                    shape.append(letter(parameter.replaceAll("\\s*\\b\\w+$", "")));
                    start = i + 1;
                }
            }
        }
        return shape.toString();
    }

    private static String letter(String cType) {
        String type = cType.replace("const ", "").replace("enum ", "").trim();
        if (type.contains("*") || type.contains("(")) {
            return "P";
        }
        return switch (type) {
            case "void" -> "V";
            case "size_t", "int64_t", "uint64_t" -> "J";
            case "int", "int32_t", "uint32_t" -> "I";
            case "bool" -> "Z";
            case "float" -> "F";
            // A function-pointer typedef is a pointer; any other named type by value is a C enum (an int).
            default -> type.endsWith("Fn") || type.endsWith("Func") || type.equals("OrtLoggingFunction") ? "P" : "I";
        };
    }
}
