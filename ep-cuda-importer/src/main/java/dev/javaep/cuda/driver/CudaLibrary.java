package dev.javaep.cuda.driver;

import dev.javaep.ort.Platform;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds the CUDA driver library: {@code libcuda.so.1} or {@code nvcuda.dll} by name (the loader's own
 * search, as a C program linked with {@code -lcuda} would), then the places container runtimes and
 * distributions put it when it is not on the loader path. The library stays loaded for the life of
 * the process ({@link Arena#global()}): the driver cannot be unloaded safely once initialized.
 *
 * @param lookup the loaded library's symbols
 * @param description what was loaded, for messages: the name, plus the path where a path was needed
 */
record CudaLibrary(SymbolLookup lookup, String description) {

    static final String LINUX_NAME = "libcuda.so.1";
    static final String WINDOWS_NAME = "nvcuda.dll";

    /** Linux directories tried when {@code dlopen("libcuda.so.1")} fails. */
    static final List<Path> LINUX_FALLBACKS = List.of(
            Path.of("/usr/local/nvidia/lib64/libcuda.so.1"),
            Path.of("/usr/lib/x86_64-linux-gnu/libcuda.so.1"),
            Path.of("/usr/lib64/libcuda.so.1"),
            Path.of("/usr/lib/wsl/lib/libcuda.so.1"));

    static String libraryName() {
        return Platform.WINDOWS ? WINDOWS_NAME : LINUX_NAME;
    }

    static CudaLibrary find() throws CudaUnavailableException {
        String name = libraryName();
        List<String> tried = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        tried.add(name);
        try {
            return new CudaLibrary(SymbolLookup.libraryLookup(name, Arena.global()), name);
        } catch (IllegalArgumentException e) {
            errors.add(e.getMessage());
        }
        if (!Platform.WINDOWS) {
            for (Path path : LINUX_FALLBACKS) {
                if (!Files.exists(path)) {
                    continue;
                }
                tried.add(path.toString());
                try {
                    return new CudaLibrary(SymbolLookup.libraryLookup(path, Arena.global()), name + " (" + path + ")");
                } catch (IllegalArgumentException e) {
                    errors.add(path + ": " + e.getMessage());
                }
            }
        }
        String reason = tried.size() == 1
                ? "no NVIDIA driver installed"
                : "no NVIDIA driver installed, or it does not load in this process (" + String.join("; ", errors) + ")";
        throw new CudaUnavailableException(name + " not found: " + reason
                + (Platform.WINDOWS ? "" : "; looked up by name, then in " + LINUX_FALLBACKS)
                + "; install the NVIDIA driver to use the CUDA execution provider");
    }
}
