package dev.javaep.host;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Finds the {@code libonnxruntime} a Java host loads: {@code -Djavaep.ort.library=PATH}, then
 * {@code JAVAEP_ORT_LIBRARY}, then {@code -Dort.native.dir} (the build unpacks ORT there), then the
 * copy inside the onnxruntime Maven jar on the class path (extracted once to a temp folder).
 */
public final class OrtLibrary {
    private OrtLibrary() {}

    private static final String OS_DIR = System.getProperty("os.name", "").startsWith("Windows") ? "win-x64" : "linux-x64";
    private static final String FILE = OS_DIR.equals("win-x64") ? "onnxruntime.dll" : "libonnxruntime.so";

    public static Path locate() {
        String explicit = System.getProperty("javaep.ort.library", System.getenv("JAVAEP_ORT_LIBRARY"));
        if (explicit != null && !explicit.isBlank()) {
            return existing(Path.of(explicit));
        }
        String nativeDir = System.getProperty("ort.native.dir");
        if (nativeDir != null) {
            Path candidate = Path.of(nativeDir, OS_DIR, FILE);
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        return extractFromJar();
    }

    private static Path existing(Path path) {
        if (!Files.isRegularFile(path)) {
            throw new IllegalStateException("javaep: no ONNX Runtime library at " + path
                    + " (set -Djavaep.ort.library or JAVAEP_ORT_LIBRARY)");
        }
        return path.toAbsolutePath();
    }

    private static Path extractFromJar() {
        String resource = "/ai/onnxruntime/native/" + OS_DIR + "/" + FILE;
        try (InputStream in = OrtLibrary.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("javaep: no ONNX Runtime library found: put the onnxruntime jar on the class path,"
                        + " or set -Djavaep.ort.library / JAVAEP_ORT_LIBRARY to libonnxruntime");
            }
            Path dir = Path.of(System.getProperty("java.io.tmpdir"), "javaep-ort-" + System.getProperty("user.name", "user"));
            Files.createDirectories(dir);
            Path target = dir.resolve(FILE);
            Path partial = Files.createTempFile(dir, FILE, ".part");
            Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
            if (!Files.exists(target) || Files.size(target) != Files.size(partial)) {
                Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } else {
                Files.delete(partial);
            }
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("javaep: cannot extract ONNX Runtime from its jar", e);
        }
    }
}
