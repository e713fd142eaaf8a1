package dev.javaep.ort;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.javaep.ort.GeneratedDeclaration.Kind;
import dev.javaep.ort.GeneratedDeclaration.Member;
import dev.javaep.ort.GeneratedDeclaration.Struct;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.EpLogger;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.spi.ExternalSemaphoreType;
import dev.javaep.spi.HardwareDeviceType;
import dev.javaep.spi.MemoryKind;
import java.io.IOException;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.StructLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The hand-declared ABI against a declaration nobody here wrote: {@link GeneratedDeclaration}, JavaCPP's classes
 * generated from ORT 1.28's headers (API 28). Compared slot by slot: the transcribed tables (every row of
 * docs/reference/*.tsv, not only the slots javaep binds: name and parameter count), the slot enums (name,
 * parameter kinds, since-version), every EP-implemented struct enum (name, byte offset, parameter kinds, size),
 * the interop data layouts, and the C enums javaep declares values of (name, value, order).
 *
 * <p>Each check stops at its first mismatch and names it: table, index, ours vs generated. What is newer than
 * API 28 (slots from the 1.29/1.30 headers) cannot be checked here; it is listed as beyond the generated
 * declaration and must be newer than 28 by our own since-version; the behaviour probes against the real
 * runtime (test-harness, {@code dev.javaep.harness.abi}) cover it. Since-versions are checked against ORT's
 * doc comments where the header has one ({@link #checkSince}).
 */
class GeneratedDeclarationCrossCheckTest {
    private static final int GENERATED = GeneratedDeclaration.API_VERSION;

    /** What each check compared and what it could not, printed once so the coverage shows in the build log. */
    private static final Map<String, String> COVERAGE = new ConcurrentSkipListMap<>();

    @AfterAll
    static void printCoverage() {
        StringBuilder out = new StringBuilder("ABI cross-check against the generated declaration of ORT API " + GENERATED + ":\n");
        COVERAGE.forEach((what, line) -> out.append("  ").append(what).append(": ").append(line).append('\n'));
        System.out.print(out);
    }

    // ---- the transcribed tables, every row ----

    private record TsvRow(int index, String name, int parameterCount) {}

    private static List<TsvRow> transcribed(String file) throws IOException {
        List<TsvRow> rows = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of("..", "..", "docs", "reference", file))) {
            String[] columns = line.split("\t");
            String name = columns[1];
            Matcher signature = Pattern.compile("^(.*?)\\s*\\b" + Pattern.quote(name) + "\\((.*)\\)$").matcher(columns[2]);
            assertTrue(signature.matches(), file + ": cannot read the signature of " + name);
            rows.add(new TsvRow(Integer.parseInt(columns[0]), name, parameterCount(signature.group(2))));
        }
        return rows;
    }

    /** C parameters at depth 0 (a function-pointer parameter has commas of its own). */
    private static int parameterCount(String parameters) {
        String trimmed = parameters.trim();
        if (trimmed.isEmpty() || trimmed.equals("void")) {
            return 0;
        }
        int count = 1;
        int depth = 0;
        for (char c : trimmed.toCharArray()) {
            depth += c == '(' ? 1 : c == ')' ? -1 : 0;
            count += c == ',' && depth == 0 ? 1 : 0;
        }
        return count;
    }

    /** The third column: where our since-tables (tools/gen_slots.py) start API 29, i.e. the API-28 table length. */
    @ParameterizedTest(name = "{1}")
    @CsvSource({"ortapi-slots.tsv, OrtApi, 424", "ortepapi-slots.tsv, OrtEpApi, 73", "ortinteropapi-slots.tsv, OrtInteropApi, 13"})
    void transcribedTableMatchesTheGeneratedDeclaration(String file, String table, int api28Length) throws IOException {
        List<TsvRow> ours = transcribed(file);
        Struct generated = GeneratedDeclaration.struct(table);
        assertTrue(generated.members().stream().allMatch(m -> m.kind() == Kind.FUNCTION), table + " is a table of functions only");
        List<Member> theirs = generated.functions();
        assertEquals(api28Length, theirs.size(), table + ": slots of API " + GENERATED + ", ours vs generated");
        for (int i = 0; i < theirs.size(); i++) {
            Member their = theirs.get(i);
            if (i >= ours.size()) {
                fail(mismatch(table, i, "(none)", their.name() + "/" + their.parameterCount()) + ": docs/reference/" + file + " lacks it");
            }
            TsvRow our = ours.get(i);
            if (our.index() != i || !our.name().equals(their.name()) || our.parameterCount() != their.parameterCount()) {
                fail(mismatch(table, i, our.index() + " " + our.name() + "/" + our.parameterCount(),
                        their.name() + "/" + their.parameterCount()));
            }
        }
        List<String> beyond = ours.subList(theirs.size(), ours.size()).stream().map(r -> r.index() + " " + r.name()).toList();
        COVERAGE.put(table + " (" + file + ")", theirs.size() + " slots cross-checked (name, parameter count); "
                + beyond.size() + " beyond the generated declaration " + beyond);
    }

    // ---- the slot enums javaep binds ----

    static Stream<Arguments> slotEnums() {
        return Stream.of(
                Arguments.of("OrtApi", List.of(OrtApiSlot.values())),
                Arguments.of("OrtEpApi", List.of(OrtEpApiSlot.values())),
                Arguments.of("OrtInteropApi", List.of(OrtInteropApiSlot.values())));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("slotEnums")
    void boundSlotsMatchTheGeneratedDeclaration(String table, List<FunctionSlot> slots) {
        List<Member> theirs = GeneratedDeclaration.struct(table).functions();
        List<String> beyond = new ArrayList<>();
        List<String> conservative = new ArrayList<>();
        for (FunctionSlot slot : slots.stream().sorted(Comparator.comparingInt(FunctionSlot::index)).toList()) {
            String ours = describe(slot.name(), GeneratedDeclaration.shape(slot.descriptor()), slot.since());
            if (slot.index() >= theirs.size()) {
                if (slot.since() <= GENERATED) {
                    fail(mismatch(table, slot.index(), ours, "(none)") + ": a slot missing from the API-" + GENERATED
                            + " declaration must be newer than " + GENERATED);
                }
                beyond.add(slot.index() + " " + slot.name() + " (since " + slot.since() + ")");
                continue;
            }
            Member their = theirs.get(slot.index());
            String theirsText = describe(their);
            if (!slot.name().equals(their.name()) || !GeneratedDeclaration.shape(slot.descriptor()).equals(their.shape())
                    || slot.since() > GENERATED) {
                fail(mismatch(table, slot.index(), ours, theirsText));
            }
            checkSince(table, slot.index(), slot.since(), their, ours, theirsText, false).ifPresent(conservative::add);
        }
        COVERAGE.put(table + " slots bound", (slots.size() - beyond.size()) + " cross-checked (name, index, parameter kinds,"
                + " since vs ORT's doc comment); " + beyond.size() + " beyond the generated declaration " + beyond
                + (conservative.isEmpty() ? "" : "; since later than ORT's doc comment (conservative): " + conservative));
    }

    /**
     * Our since-version against ORT's doc comment, both raised to the API javaep negotiates at least. A function
     * slot of ours must not be earlier (javaep would call it on a runtime without it); later only refuses it
     * where it exists, which is reported. A callback of ours must be the same: later leaves it NULL on runtimes
     * that call it.
     */
    private static Optional<String> checkSince(String table, Object at, int ours, Member their, String oursText,
            String theirsText, boolean callback) {
        if (their.since().isEmpty()) {
            return Optional.empty();
        }
        int documented = Math.max(their.since().getAsInt(), OrtApi.MINIMUM_API_VERSION);
        int declared = Math.max(ours, OrtApi.MINIMUM_API_VERSION);
        if (declared < documented || callback && declared != documented) {
            fail(mismatch(table, at, oursText, theirsText) + ": our since-version differs from ORT's doc comment");
        }
        return declared > documented ? Optional.of(their.name() + " " + ours + " vs 1." + their.since().getAsInt()) : Optional.empty();
    }

    // ---- the structs the EP fills ----

    private record StructCase(String generated, List<? extends CallbackSlot> slots, long size) {
        @Override
        public String toString() {
            return generated;
        }
    }

    static Stream<StructCase> callbackStructs() {
        return Stream.of(
                new StructCase("OrtEpFactory", List.of(OrtEpFactoryStruct.values()), OrtEpFactoryStruct.SIZE),
                new StructCase("OrtEp", List.of(OrtEpStruct.values()), OrtEpStruct.SIZE),
                new StructCase("OrtNodeComputeInfo", List.of(OrtNodeComputeInfoStruct.values()), OrtNodeComputeInfoStruct.SIZE),
                new StructCase("OrtAllocator", List.of(OrtAllocatorStruct.values()), OrtAllocatorStruct.SIZE),
                new StructCase("OrtDataTransferImpl", List.of(OrtDataTransferImplStruct.values()), OrtDataTransferImplStruct.SIZE),
                new StructCase("OrtSyncStreamImpl", List.of(OrtSyncStreamImplStruct.values()), OrtSyncStreamImplStruct.SIZE),
                new StructCase("OrtSyncNotificationImpl", List.of(OrtSyncNotificationImplStruct.values()),
                        OrtSyncNotificationImplStruct.SIZE),
                new StructCase("OrtKernelImpl", List.of(OrtKernelImplStruct.values()), OrtKernelImplStruct.SIZE),
                new StructCase("OrtExternalResourceImporterImpl", List.of(OrtExternalResourceImporterImplStruct.values()),
                        OrtExternalResourceImporterImplStruct.SIZE),
                new StructCase("OrtExternalMemoryHandle", List.of(OrtExternalMemoryHandleStruct.values()),
                        OrtExternalMemoryHandleStruct.SIZE),
                new StructCase("OrtExternalSemaphoreHandle", List.of(OrtExternalSemaphoreHandleStruct.values()),
                        OrtExternalSemaphoreHandleStruct.SIZE),
                new StructCase("OrtEpProfilerImpl", List.of(OrtEpProfilerImplStruct.values()), OrtEpProfilerImplStruct.SIZE));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("callbackStructs")
    void callbackStructMatchesTheGeneratedDeclaration(StructCase struct) {
        Struct generated = GeneratedDeclaration.struct(struct.generated());
        List<Member> theirs = generated.functions();
        List<? extends CallbackSlot> ours = struct.slots().stream().sorted(Comparator.comparingLong(CallbackSlot::byteOffset)).toList();
        List<String> beyond = new ArrayList<>();
        for (int i = 0; i < Math.max(ours.size(), theirs.size()); i++) {
            if (i >= ours.size()) {
                Member their = theirs.get(i);
                fail(mismatch(struct.generated(), i, "(none)", "@" + their.offset() + " " + describe(their))
                        + ": our struct is too small for what ORT " + GENERATED + " reads");
            }
            CallbackSlot slot = ours.get(i);
            String oursText = "@" + slot.byteOffset() + " " + describe(slot.name(), GeneratedDeclaration.shape(slot.descriptor()), slot.since());
            if (i >= theirs.size()) {
                if (slot.since() <= GENERATED) {
                    fail(mismatch(struct.generated(), i, oursText, "(none)") + ": must be newer than " + GENERATED);
                }
                beyond.add(slot.name() + " (since " + slot.since() + ")");
                continue;
            }
            Member their = theirs.get(i);
            String theirsText = "@" + their.offset() + " " + describe(their);
            if (!slot.name().equals(their.name()) || slot.byteOffset() != their.offset()
                    || !GeneratedDeclaration.shape(slot.descriptor()).equals(their.shape()) || slot.since() > GENERATED) {
                fail(mismatch(struct.generated(), i, oursText, theirsText));
            }
            checkSince(struct.generated(), i, slot.since(), their, oursText, theirsText, true);
        }
        assertEquals(generated.size() + 8L * beyond.size(), struct.size(),
                struct.generated() + ": our SIZE vs the generated struct (" + generated.size() + " bytes) plus 8 per member beyond it");
        COVERAGE.put("struct " + struct.generated(), theirs.size() + " callbacks cross-checked (name, offset, parameter kinds, since vs ORT's doc comment), size "
                + generated.size() + (beyond.isEmpty() ? "" : "; beyond the generated declaration " + beyond));
    }

    @Test
    void callbackStructsHoldOnlyTheirVersionFieldsBeforeTheCallbacks() {
        // The callback enums assume "uint32 version, then pointers" (OrtKernelImpl: a uint32 flags beside it).
        for (StructCase struct : callbackStructs().filter(s -> !s.generated().endsWith("Handle")).toList()) {
            Struct generated = GeneratedDeclaration.struct(struct.generated());
            List<Member> fields = generated.members().stream().filter(m -> m.kind() == Kind.FIELD).toList();
            assertTrue(fields.stream().allMatch(f -> f.offset() < 8 && f.shape().equals("I")),
                    struct.generated() + " data fields: " + fields);
            assertEquals(8, generated.functions().getFirst().offset(), struct.generated() + ": first callback");
        }
        assertEquals(GeneratedDeclaration.struct("OrtKernelImpl").member("flags").offset(), OrtKernelImplStruct.FLAGS_OFFSET,
                "OrtKernelImpl.flags");
    }

    @Test
    void kernelCreateFuncAndApiBaseMatchTheGeneratedDeclaration() throws ReflectiveOperationException {
        assertEquals(GeneratedDeclaration.typedefShape("OrtKernelCreateFunc"),
                GeneratedDeclaration.shape(OrtKernelCreateFunc.Create.descriptor()), "typedef OrtKernelCreateFunc");
        Struct apiBase = GeneratedDeclaration.struct("OrtApiBase");
        assertEquals(List.of("GetApi/1 PI", "GetVersionString/0 P"), apiBase.members().stream().map(Member::toString).toList());
        assertEquals(apiBase.member("GetApi").offset(), privateLong(OrtApiBase.class, "GET_API_OFFSET"), "OrtApiBase.GetApi");
        assertEquals(apiBase.member("GetVersionString").offset(), privateLong(OrtApiBase.class, "GET_VERSION_STRING_OFFSET"),
                "OrtApiBase.GetVersionString");
        COVERAGE.put("typedef OrtKernelCreateFunc, struct OrtApiBase", "cross-checked (parameter kinds; offsets)");
    }

    private static long privateLong(Class<?> owner, String field) throws ReflectiveOperationException {
        Field constant = owner.getDeclaredField(field);
        constant.setAccessible(true);
        return constant.getLong(null);
    }

    // ---- the interop data layouts ----

    static Stream<Arguments> interopLayouts() {
        return Stream.of(
                Arguments.of("OrtExternalMemoryDescriptor", OrtInteropLayouts.MEMORY_DESCRIPTOR),
                Arguments.of("OrtExternalSemaphoreDescriptor", OrtInteropLayouts.SEMAPHORE_DESCRIPTOR),
                Arguments.of("OrtExternalTensorDescriptor", OrtInteropLayouts.TENSOR_DESCRIPTOR),
                Arguments.of("OrtExternalMemoryHandle", OrtInteropLayouts.MEMORY_HANDLE),
                Arguments.of("OrtExternalSemaphoreHandle", OrtInteropLayouts.SEMAPHORE_HANDLE));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("interopLayouts")
    void interopLayoutMatchesTheGeneratedDeclaration(String name, StructLayout ours) {
        Struct generated = GeneratedDeclaration.struct(name);
        List<MemoryLayout> fields = ours.memberLayouts().stream().filter(l -> !(l instanceof PaddingLayout)).toList();
        for (int i = 0; i < Math.max(fields.size(), generated.members().size()); i++) {
            String oursText = i < fields.size() ? field(ours, fields.get(i)) : "(none)";
            String theirsText = i < generated.members().size() ? field(generated.members().get(i)) : "(none)";
            if (!oursText.equals(theirsText)) {
                fail(mismatch(name, i, oursText, theirsText));
            }
        }
        assertEquals(generated.size(), ours.byteSize(), name + " size");
        COVERAGE.put("layout " + name, fields.size() + " fields cross-checked (name, offset, size), size " + generated.size());
    }

    private static String field(StructLayout struct, MemoryLayout field) {
        String name = field.name().orElseThrow();
        return name + "@" + struct.byteOffset(MemoryLayout.PathElement.groupElement(name)) + "+" + field.byteSize();
    }

    private static String field(Member member) {
        return member.name() + "@" + member.offset() + "+" + member.size();
    }

    // ---- C enums javaep declares values of ----

    /**
     * One C enum and javaep's declaration of it.
     *
     * @param prefix  what the C constants start with ({@code ORT_}, {@code ONNX_TENSOR_ELEMENT_DATA_TYPE_})
     * @param ours    our constant → C value, in our declaration order
     * @param renames our name → the C name's tail where javaep names a value differently
     * @param since   our constant → the API version that added it, where later than the first
     */
    private record EnumCase(String cEnum, String prefix, Map<String, Integer> ours, Map<String, String> renames,
            Map<String, Integer> since, String declaredBy) {
        @Override
        public String toString() {
            return cEnum + " (" + declaredBy + ")";
        }
    }

    static Stream<EnumCase> enumsWithCValues() throws ReflectiveOperationException {
        Map<String, Integer> memorySince = new LinkedHashMap<>();
        for (ExternalMemoryType type : ExternalMemoryType.values()) {
            memorySince.put(type.name(), type.sinceApi());
        }
        return Stream.of(
                new EnumCase("OrtErrorCode", "ORT_", values(OrtErrorCode.values(), OrtErrorCode::value), Map.of(), Map.of(),
                        "ort.OrtErrorCode"),
                new EnumCase("ONNXTensorElementDataType", "ONNX_TENSOR_ELEMENT_DATA_TYPE_",
                        values(ElementType.values(), ElementType::onnxValue), Map.of(), Map.of(), "spi.ElementType"),
                new EnumCase("OrtMemType", "OrtMemType", values(OrtMemType.values(), OrtMemType::value), Map.of(), Map.of(),
                        "ort.OrtMemType"),
                new EnumCase("OrtDeviceMemoryType", "OrtDeviceMemoryType_", values(MemoryKind.values(), MemoryKind::ortValue),
                        Map.of("DEVICE", "DEFAULT"), Map.of(), "spi.MemoryKind"),
                new EnumCase("OrtHardwareDeviceType", "OrtHardwareDeviceType_", hardwareDeviceTypes(), Map.of(), Map.of(),
                        "spi.HardwareDeviceType.fromOrt"),
                new EnumCase("OrtLoggingLevel", "ORT_LOGGING_LEVEL_", values(EpLogger.Level.values(), Enum::ordinal), Map.of(),
                        Map.of(), "spi.EpLogger.Level (ordinal, bridge.OrtLogger)"),
                new EnumCase("OrtOpAttrType", "ORT_OP_ATTR_", intConstants("dev.javaep.bridge.GraphReader", "ATTR_"), Map.of(),
                        Map.of(), "bridge.GraphReader.ATTR_*"),
                new EnumCase("ONNXType", "ONNX_TYPE_", intConstants("dev.javaep.bridge.GraphReader", "ONNX_TYPE_"), Map.of(),
                        Map.of(), "bridge.GraphReader.ONNX_TYPE_*"),
                new EnumCase("OrtExternalMemoryHandleType", "ORT_EXTERNAL_MEMORY_HANDLE_TYPE_",
                        values(ExternalMemoryType.values(), ExternalMemoryType::ortValue), Map.of(), memorySince,
                        "spi.ExternalMemoryType"),
                new EnumCase("OrtExternalSemaphoreType", "ORT_EXTERNAL_SEMAPHORE_",
                        values(ExternalSemaphoreType.values(), ExternalSemaphoreType::ortValue), Map.of(), Map.of(),
                        "spi.ExternalSemaphoreType"));
    }

    private static <E extends Enum<E>> Map<String, Integer> values(E[] constants, Function<E, Integer> value) {
        Map<String, Integer> byName = new LinkedHashMap<>();
        for (E constant : constants) {
            byName.put(constant.name(), value.apply(constant));
        }
        return byName;
    }

    /** HardwareDeviceType has no value of its own: its mapping is {@code fromOrt}. */
    private static Map<String, Integer> hardwareDeviceTypes() {
        Map<String, Integer> byName = new LinkedHashMap<>();
        for (int value = 0; value < 64; value++) {
            try {
                byName.put(HardwareDeviceType.fromOrt(value).name(), value);
            } catch (IllegalArgumentException unknown) {
                // not a value javaep maps
            }
        }
        assertEquals(HardwareDeviceType.values().length, byName.size(), "every HardwareDeviceType has one C value");
        return byName;
    }

    /** Static int constants named {@code prefix*} (private constants of the bridge, read reflectively), by value. */
    private static Map<String, Integer> intConstants(String className, String prefix) throws ReflectiveOperationException {
        List<Field> fields = Arrays.stream(Class.forName(className).getDeclaredFields())
                .filter(f -> f.getName().startsWith(prefix) && Modifier.isStatic(f.getModifiers()) && f.getType() == int.class)
                .toList();
        Map<String, Integer> byName = new LinkedHashMap<>();
        for (Field field : fields.stream().sorted(Comparator.comparingInt(GeneratedDeclarationCrossCheckTest::intValue)).toList()) {
            byName.put(field.getName().substring(prefix.length()), intValue(field));
        }
        assertFalse(byName.isEmpty(), className + " declares no " + prefix + " constants");
        return byName;
    }

    private static int intValue(Field constant) {
        try {
            constant.setAccessible(true);
            return constant.getInt(null);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String normalized(String name) {
        return name.replace("_", "").toLowerCase(Locale.ROOT);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("enumsWithCValues")
    void cEnumMatchesTheGeneratedDeclaration(EnumCase enumCase) {
        Map<String, Integer> theirs = GeneratedDeclaration.enumeration(enumCase.cEnum());
        Map<String, String> theirNameByNormalized = new LinkedHashMap<>();
        for (String constant : theirs.keySet()) {
            assertTrue(constant.startsWith(enumCase.prefix()), enumCase.cEnum() + ": " + constant + " lacks the prefix");
            theirNameByNormalized.put(normalized(constant.substring(enumCase.prefix().length())), constant);
        }
        List<String> theirOrder = List.copyOf(theirs.keySet());
        int previous = -1;
        int index = 0;
        List<String> beyond = new ArrayList<>();
        List<String> matched = new ArrayList<>();
        for (var entry : enumCase.ours().entrySet()) {
            String ours = entry.getKey() + "=" + entry.getValue();
            String their = theirNameByNormalized.get(normalized(enumCase.renames().getOrDefault(entry.getKey(), entry.getKey())));
            if (their == null) {
                if (enumCase.since().getOrDefault(entry.getKey(), 0) > GENERATED) {
                    beyond.add(ours + " (since " + enumCase.since().get(entry.getKey()) + ")");
                    index++;
                    continue;
                }
                fail(mismatch(enumCase.cEnum(), index, ours, "(none)"));
            }
            int position = theirOrder.indexOf(their);
            if (theirs.get(their).intValue() != entry.getValue() || position < previous) {
                fail(mismatch(enumCase.cEnum(), index, ours, their + "=" + theirs.get(their) + " (position " + position + ")"));
            }
            previous = position;
            matched.add(their);
            index++;
        }
        List<String> notDeclared = theirOrder.stream().filter(c -> !matched.contains(c)).toList();
        COVERAGE.put("enum " + enumCase.cEnum(), matched.size() + " values cross-checked against " + enumCase.declaredBy()
                + (notDeclared.isEmpty() ? "" : "; not declared by javaep " + notDeclared)
                + (beyond.isEmpty() ? "" : "; beyond the generated declaration " + beyond));
    }

    // ---- messages ----

    private static String describe(String name, String shape, int since) {
        return name + "/" + (shape.length() - 1) + " " + shape + " since " + since;
    }

    private static String describe(Member member) {
        return member + (member.since().isPresent() ? " since 1." + member.since().getAsInt() : "");
    }

    /** "OrtApi[17]: ours X vs generated Y": the first mismatching slot, named. */
    private static String mismatch(String table, Object index, String ours, String theirs) {
        return table + "[" + index + "]: ours " + ours + " vs generated " + theirs;
    }
}
