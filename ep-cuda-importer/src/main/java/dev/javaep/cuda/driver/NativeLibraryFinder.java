package dev.javaep.cuda.driver;

import dev.javaep.ort.Platform;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * Finds one of NVIDIA's optional libraries (NVRTC, cuDNN): the path a system property or environment variable names, then the
 * sonames through the dynamic loader's own search, then the sonames in well-known folders. The first that loads and
 * binds wins; what was tried is kept for the message that says it is absent.
 */
public final class NativeLibraryFinder {
    private NativeLibraryFinder() {}

    /** What {@link #find} found: the bound library and what was loaded, or nothing and what was tried. */
    public record Outcome<T>(T library, String description, List<String> tried) {}

    /**
     * A library looked for once per process, on first use, by whichever thread asks first; the others wait for
     * that search and share its answer (a missing library stays missing until the process restarts).
     */
    public static final class Once<T> {
        private final Supplier<Optional<T>> search;
        private volatile Optional<T> found;

        public Once(Supplier<Optional<T>> search) {
            this.search = search;
        }

        public Optional<T> get() {
            Optional<T> result = found;
            if (result == null) {
                synchronized (this) {
                    result = found;
                    if (result == null) {
                        found = result = search.get();
                    }
                }
            }
            return result;
        }

        /** What {@link #get} found, without searching: empty where nobody asked yet (or nothing was found). */
        public Optional<T> ifSearched() {
            Optional<T> result = found;
            return result == null ? Optional.empty() : result;
        }
    }

    public static <T> Outcome<T> find(String property, String environment, List<String> names, List<String> folders,
                               List<Path> preload, BiFunction<SymbolLookup, String, T> bind) {
        List<Object> candidates = new ArrayList<>();
        String configured = System.getProperty(property, System.getenv(environment));
        if (configured != null && !configured.isBlank()) {
            candidates.add(Path.of(configured));
        }
        candidates.addAll(names);
        if (!Platform.WINDOWS) {
            for (String folder : folders) {
                for (String name : names) {
                    candidates.add(Path.of(folder, name));
                }
            }
        }
        List<String> tried = new ArrayList<>();
        for (Object candidate : candidates) {
            if (candidate instanceof Path path && !Files.exists(path)) {
                continue;
            }
            tried.add(candidate.toString());
            try {
                if (candidate instanceof Path path) {
                    // A library found by path may need its siblings (cuBLAS needs cuBLASLt): load those first by path,
                    // so the loader's search for its DT_NEEDED entries finds them already loaded.
                    for (Path sibling : preload) {
                        Path beside = path.resolveSibling(sibling);
                        if (Files.exists(beside)) {
                            SymbolLookup.libraryLookup(beside, Arena.global());
                        }
                    }
                }
                SymbolLookup lookup = candidate instanceof Path path ? SymbolLookup.libraryLookup(path, Arena.global())
                        : SymbolLookup.libraryLookup((String) candidate, Arena.global());
                return new Outcome<>(bind.apply(lookup, candidate.toString()), candidate.toString(), tried);
            } catch (RuntimeException | LinkageError e) {
                tried.set(tried.size() - 1, candidate + " (" + e.getMessage() + ")");
            }
        }
        return new Outcome<>(null, null, tried);
    }

    /** The CUDA toolkit's library folders: $CUDA_HOME, /usr/local/cuda, the distribution's multiarch folder. */
    public static List<String> cudaFolders(String... extra) {
        List<String> folders = new ArrayList<>();
        String cudaHome = System.getenv("CUDA_HOME");
        if (cudaHome != null && !cudaHome.isBlank()) {
            folders.add(cudaHome + "/lib64");
            folders.add(cudaHome + "/targets/x86_64-linux/lib");
        }
        folders.addAll(List.of(extra));
        folders.addAll(List.of("/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
                "/usr/local/cuda-13.0/targets/x86_64-linux/lib", "/usr/local/cuda-12/targets/x86_64-linux/lib",
                "/usr/lib/x86_64-linux-gnu", "/usr/lib64"));
        return folders;
    }
}
