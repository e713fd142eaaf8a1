package dev.javaep.cuda.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.StructLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Everything javaep copied from {@code cuda.h} (symbol names, enum values, struct layouts) checked
 * against the header itself: a C program built with gcc prints what the header says. Skipped, with
 * the reason, where gcc or the CUDA toolkit's {@code cuda.h} is missing.
 */
class CudaHeaderCrossCheckTest {

    private static Map<String, String> header;

    /**
     * Every struct of {@link CudaStructs} by its C name with its size, and each named member (padding has no name)
     * as {@code STRUCT.path} with its offset: what the probe asks gcc about, so no member goes unchecked.
     */
    private static final Map<String, Long> JAVA_LAYOUTS = javaLayouts(CudaStructs.EXTERNAL_MEMORY_HANDLE_DESC,
            CudaStructs.EXTERNAL_MEMORY_BUFFER_DESC, CudaStructs.EXTERNAL_SEMAPHORE_HANDLE_DESC,
            CudaStructs.EXTERNAL_SEMAPHORE_SIGNAL_PARAMS, CudaStructs.EXTERNAL_SEMAPHORE_WAIT_PARAMS);

    private static Map<String, Long> javaLayouts(StructLayout... structs) {
        Map<String, Long> layouts = new LinkedHashMap<>();
        for (StructLayout struct : structs) {
            String name = struct.name().orElseThrow();
            layouts.put(name, struct.byteSize());
            members(struct, struct, name, List.of(), layouts);
        }
        return layouts;
    }

    private static void members(StructLayout struct, GroupLayout group, String prefix, List<PathElement> path,
                                Map<String, Long> into) {
        for (MemoryLayout member : group.memberLayouts()) {
            if (member.name().isEmpty()) {
                continue;
            }
            String name = prefix + "." + member.name().get();
            List<PathElement> memberPath = new ArrayList<>(path);
            memberPath.add(PathElement.groupElement(member.name().get()));
            if (member instanceof GroupLayout inner) {
                members(struct, inner, name, memberPath, into);
            } else {
                into.put(name, struct.byteOffset(memberPath.toArray(PathElement[]::new)));
            }
        }
    }

    @BeforeAll
    static void compileProbe() throws IOException {
        Gcc.assumeAvailable();
        Optional<Path> include = Gcc.cudaInclude();
        assumeTrue(include.isPresent(), "cuda.h not found (CUDA_HOME, CUDA_PATH, /usr/local/cuda/include):"
                + " the header cross-check is skipped on this machine");

        StringBuilder c = new StringBuilder("""
                #include <cuda.h>
                #include <stdio.h>
                #include <stddef.h>
                #define STR(x) #x
                #define XSTR(x) STR(x)
                #define VALUE(name, expr) printf("%s=%lld\\n", name, (long long) (expr))
                #define FIELD(t, m) VALUE(#t "." #m, offsetof(t, m))
                #define SIZE(t) VALUE(#t, sizeof(t))
                int main(void) {
                """);
        for (CudaFunction f : CudaFunction.values()) {
            // sizeof(&f) proves the API name is declared; XSTR shows what the header maps it to
            c.append("    (void) sizeof(&").append(f.apiName()).append(");\n");
            c.append("    printf(\"symbol.").append(f.apiName()).append("=%s\\n\", XSTR(").append(f.apiName()).append("));\n");
        }
        for (String constant : intConstants(CudaConstants.class).keySet()) {
            c.append("    VALUE(\"").append(constant).append("\", ").append(constant).append(");\n");
        }
        for (String constant : intConstants(CudaHandleTypes.class).keySet()) {
            String cName = constant.startsWith("MEMORY_")
                    ? "CU_EXTERNAL_MEMORY_HANDLE_TYPE_" + constant.substring("MEMORY_".length())
                    : "CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_" + constant.substring("SEMAPHORE_".length());
            c.append("    VALUE(\"").append(constant).append("\", ").append(cName).append(");\n");
        }
        for (String member : JAVA_LAYOUTS.keySet()) {
            int dot = member.indexOf('.');
            c.append(dot < 0 ? "    SIZE(" + member + ");\n"
                    : "    FIELD(" + member.substring(0, dot) + ", " + member.substring(dot + 1) + ");\n");
        }
        c.append("""
                    SIZE(CUuuid);
                    return 0;
                }
                """);
        Path dir = Gcc.workDir();
        Path source = dir.resolve("cuda_header_probe.c");
        Path binary = dir.resolve("cuda_header_probe");
        Files.writeString(source, c);
        Gcc.compile(List.of("-I" + include.get(), "-o", binary.toString(), source.toString()));
        Gcc.Result run = Gcc.run(List.of(binary.toAbsolutePath().toString())).orElseThrow();
        assertEquals(0, run.exitCode(), run.output());
        header = new LinkedHashMap<>();
        for (String line : run.output().split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                header.put(line.substring(0, eq), line.substring(eq + 1).strip());
            }
        }
    }

    private static Map<String, Integer> intConstants(Class<?> type) {
        Map<String, Integer> constants = new LinkedHashMap<>();
        for (Field field : type.getDeclaredFields()) {
            int m = field.getModifiers();
            if (Modifier.isPublic(m) && Modifier.isStatic(m) && field.getType() == int.class) {
                try {
                    constants.put(field.getName(), field.getInt(null));
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
            }
        }
        return constants;
    }

    @Test
    void everyBoundSymbolIsWhatTheHeaderMapsItsApiNameTo() {
        List<String> wrong = new ArrayList<>();
        for (CudaFunction f : CudaFunction.values()) {
            String mapped = header.get("symbol." + f.apiName());
            if (!f.symbol().equals(mapped)) {
                wrong.add(f.apiName() + ": header maps to " + mapped + ", javaep binds " + f.symbol());
            }
            assertTrue(!f.symbol().endsWith("_ptsz") && !f.symbol().endsWith("_ptds"), f.symbol());
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    @Test
    void enumValuesMatchTheHeader() {
        List<String> wrong = new ArrayList<>();
        Map<String, Integer> constants = new LinkedHashMap<>(intConstants(CudaConstants.class));
        constants.putAll(intConstants(CudaHandleTypes.class));
        constants.forEach((name, value) -> {
            if (!String.valueOf(value).equals(header.get(name))) {
                wrong.add(name + ": header " + header.get(name) + ", javaep " + value);
            }
        });
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    @Test
    void structLayoutsMatchGcc() {
        assertTrue(JAVA_LAYOUTS.containsKey("CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS.params.keyedMutex.timeoutMs"),
                JAVA_LAYOUTS.keySet()::toString);
        List<String> wrong = new ArrayList<>();
        JAVA_LAYOUTS.forEach((member, javaep) -> {
            if (value(member) != javaep) {
                wrong.add(member + ": gcc " + value(member) + ", javaep " + javaep);
            }
        });
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
        assertEquals(value("CUuuid"), CudaStructs.UUID_BYTES);
    }

    @Test
    void fallbackErrorTableHasEveryNameOfTheHeader() throws IOException {
        Path cudaH = Gcc.cudaInclude().orElseThrow().resolve("cuda.h");
        var matcher = java.util.regex.Pattern.compile("^\\s*(CUDA_(?:SUCCESS|ERROR_[A-Z0-9_]+))\\s*=\\s*(\\d+)",
                java.util.regex.Pattern.MULTILINE).matcher(Files.readString(cudaH));
        List<String> wrong = new ArrayList<>();
        int count = 0;
        while (matcher.find()) {
            count++;
            int code = Integer.parseInt(matcher.group(2));
            if (!matcher.group(1).equals(CudaErrors.name(code))) {
                wrong.add(code + ": header " + matcher.group(1) + ", table " + CudaErrors.name(code));
            }
        }
        assertTrue(count > 90, "parsed only " + count + " CUresult values from " + cudaH);
        // a newer header adds codes; the table only needs updating then, so report rather than hide
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    private static long value(String key) {
        String v = header.get(key);
        assertTrue(v != null, "probe printed no " + key);
        return Long.parseLong(v);
    }
}
