package dev.javaep.examples.vulkan;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.JavaCudaExecutionProviderFactory;
import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.host.ExternalMemory;
import dev.javaep.host.ExternalResourceImporter;
import dev.javaep.host.ExternalResourceImporter.TensorDescriptor;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.SyncStream;
import dev.javaep.os.Posix;
import dev.javaep.spi.DeviceOffer;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.ExternalMemoryDescriptor;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.spi.FactoryContext;
import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where an import's time goes (issue 13: "ImportMemory + CreateTensor + Release vs the bare CUDA calls ≤ 1.5×"), on
 * the GPU machine ({@code bench-import}: {@code java -cp ... dev.javaep.examples.vulkan.ImportCostBenchmark DIST_DIR},
 * tools/gpu/run-suite.sh's step of that name). The 33 MB Vulkan buffer of {@code bench-interop}, a fresh OPAQUE_FD
 * exported outside the timed region for every import, imported and released by each of these, interleaved in a
 * rotating order so that drift, and whatever one variant's release leaves the driver to do, hits every variant alike:
 *
 * <ol type="a">
 * <li>bare CUDA: {@code cuImportExternalMemory} + {@code cuExternalMemoryGetMappedBuffer} + {@code cuMemFree} +
 *     {@code cuDestroyExternalMemory} (the import table's "bare" row);</li>
 * <li>(a) + {@code dup} of the fd for the driver and {@code close} of the app's fd (javaep's fd ownership rule);</li>
 * <li>(b) + {@code cuCtxSynchronize} before the unmap (javaep's release before issue 13);</li>
 * <li>(c) + two shared arenas allocated and closed (the bridge's handle and tensor deleter before issue 13): javaep
 *     before, less ORT and the bridge's bookkeeping;</li>
 * <li>(b) + {@code cuStreamSynchronize} of a live stream of the device (the app's OrtSyncStream here) and the NULL
 *     stream (javaep's release now);</li>
 * <li>(e) + two automatic arenas (the bridge's structs now);</li>
 * <li>javaep's own importer through the SPI ({@code importMemory} + {@code close}, no ORT): a factory instance of this
 *     benchmark's, over the classes ORT's javaep uses too (the loader joins this JVM through the system class loader),
 *     so its release waits for the same streams as (h) and (i): the app's OrtSyncStream and the NULL stream;</li>
 * <li>ORT + javaep: {@code ImportMemory} + {@code ReleaseExternalMemoryHandle}, no tensor;</li>
 * <li>ORT + javaep: {@code ImportMemory} + {@code CreateTensorFromMemory} + release tensor +
 *     {@code ReleaseExternalMemoryHandle} (the import table's javaep row).</li>
 * </ol>
 *
 * Prints one Markdown table (median, p99, median over bare), the differences that split javaep's extra apart, and the
 * target next to (i)/(a), never asserted. A variant that fails prints why and leaves the others running. Counts are
 * system properties: {@code javaep.bench.import.rounds} (500 per variant), {@code .warmup} (3000). The warm-up is long
 * because the bridge's path runs interpreted at first: over an import's first couple of hundred cycles the JIT has
 * not compiled the upcalls yet, and those cycles cost ORT + javaep some 450 µs more (measured on the H100). The table
 * gives those first {@value #COLD} cycles' median too, next to the compiled one.
 */
public final class ImportCostBenchmark {
    private static final String REGISTRATION = "javaep-import-bench";
    private static final long[] FRAME_SHAPE = {1080, 1920, 4};
    private static final long FRAME_BYTES = 1080L * 1920 * 4 * Float.BYTES;
    /** About an OrtExternalMemoryHandle's and an OrtAllocator's size: what each bridge struct allocates. */
    private static final long STRUCT_BYTES = 128;
    private static final double TARGET_RATIO = 1.5;
    private static final int ROUNDS = Integer.getInteger("javaep.bench.import.rounds", 500);
    private static final int WARMUP = Integer.getInteger("javaep.bench.import.warmup", 3000);
    /** The first rounds of the warm-up, timed on their own: what an app's first imports cost, before the JIT. */
    private static final int COLD = 200;

    private ImportCostBenchmark() {}

    /**
     * {@code ImportCostBenchmark [DIST_DIR]}: registers DIST_DIR's libjavaep (default: {@code -Djavaep.dist}, else the
     * working directory). Exits 0, 1 when a variant failed (its row says why), 3 when it cannot run here.
     */
    public static void main(String[] args) {
        BenchmarkLauncher.main("bench-import", REGISTRATION, args, ImportCostBenchmark::run);
    }

    /** One import of a fresh fd of the buffer and its release; the fd is the cycle's (it closes it on failure). */
    @FunctionalInterface
    private interface ImportCycle {
        void importAndRelease(int fd);
    }

    /** One row: its letter, what it does, and the cycle; {@code failure} is set when a cycle threw. */
    private static final class Variant {
        final char letter;
        final String label;
        final ImportCycle cycle;
        final double[] micros = new double[ROUNDS];
        final double[] coldMicros = new double[Math.min(COLD, WARMUP)];
        String failure;

        Variant(char letter, String label, ImportCycle cycle) {
            this.letter = letter;
            this.label = label;
            this.cycle = cycle;
        }

        Stats stats() {
            return Stats.of(micros);
        }

        /** The median of the first {@link #COLD} warm-up rounds, NaN without a warm-up. */
        double coldMedian() {
            return coldMicros.length == 0 ? Double.NaN : Stats.of(coldMicros).median();
        }
    }

    public static int run(Path loaderLibrary) throws InteropBenchmark.Unavailable {
        return BenchmarkLauncher.run(REGISTRATION, loaderLibrary, ImportCostBenchmark::run);
    }

    private static int run(OrtHost host, OrtEnvironment env, CudaDriver driver) throws InteropBenchmark.Unavailable {
        SameGpu gpu = SameGpu.find(env, driver, false);
        JavaCudaExecutionProviderFactory factory = new JavaCudaExecutionProviderFactory();
        // Closed in reverse: the importers (and what they imported) before the Vulkan buffer, the context last.
        try (VulkanContext vulkan = gpu.vulkan();
             CudaDevice cuda = CudaDevice.open(driver, gpu.cudaOrdinal());
             factory;
             VulkanBuffer buffer = vulkan.createBuffer(FRAME_BYTES, VulkanBuffer.Placement.DEVICE_LOCAL, true);
             SyncStream stream = env.createSyncStream(gpu.epDevice());
             ExternalResourceImporter ortImporter = env.createExternalResourceImporter(gpu.epDevice())
                     .orElseThrow(() -> new InteropBenchmark.Unavailable(SameGpu.CUDA_EP + " offers no importer"))) {
            factory.initialize(new FactoryContext(REGISTRATION, host.api().version(), host.version(),
                    (level, message) -> {}));
            DeviceOffer offer = factory.supportedDevices(List.of()).stream()
                    .filter(o -> gpu.uuid().equalsIgnoreCase(o.metadata().get("cuda.uuid"))).findFirst()
                    .orElseThrow(() -> new InteropBenchmark.Unavailable("the SPI factory offers no " + gpu.uuid()
                            + factory.unavailableReason().map(why -> ": " + why).orElse("")));
            dev.javaep.spi.ExternalResourceImporter spiImporter = factory.createImporter(offer).orElseThrow(
                    () -> new InteropBenchmark.Unavailable("the SPI factory offers no importer"));
            try (spiImporter) {
                System.out.printf("javaep import cost ablation — Vulkan: %s | CUDA: %s (%s), driver %d | ONNX Runtime %s"
                        + " | %s %s%n%n", vulkan.describe(), cuda.info().name(), gpu.uuid(), driver.driverVersion(),
                        host.version(), System.getProperty("java.vm.name"), System.getProperty("java.version"));
                List<Variant> variants = variants(cuda, buffer.allocationSize(), stream.handle(), spiImporter, ortImporter);
                measure(variants, buffer, cuda);
                print(variants);
                return variants.stream().anyMatch(v -> v.failure != null) ? 1 : 0;
            }
        }
    }

    private static List<Variant> variants(CudaDevice cuda, long size, long appStream,
                                          dev.javaep.spi.ExternalResourceImporter spiImporter,
                                          ExternalResourceImporter ortImporter) {
        CudaDriver driver = cuda.driver();
        TensorDescriptor frame = TensorDescriptor.of(ElementType.FLOAT, FRAME_SHAPE, 0); // needs ORT: made once it is there
        Runnable none = () -> {};
        Runnable contextSync = driver::ctxSynchronize;
        Runnable streamSyncs = () -> {
            driver.streamSynchronize(appStream);
            driver.streamSynchronize(0L);
        };
        return List.of(
                new Variant('a', "bare CUDA: cuImportExternalMemory + cuExternalMemoryGetMappedBuffer + cuMemFree"
                        + " + cuDestroyExternalMemory", fd -> driverCycle(driver, fd, size, false, none, none)),
                new Variant('b', "(a) + dup the fd for the driver, close the app's fd",
                        fd -> driverCycle(driver, fd, size, true, none, none)),
                new Variant('c', "(b) + cuCtxSynchronize before the unmap (the release before issue 13)",
                        fd -> driverCycle(driver, fd, size, true, contextSync, none)),
                new Variant('d', "(c) + two shared arenas allocated and closed (the bridge's structs before issue 13)",
                        fd -> driverCycle(driver, fd, size, true, contextSync, () -> structs(true))),
                new Variant('e', "(b) + cuStreamSynchronize of a live stream of the device and of the NULL stream (the"
                        + " release now)", fd -> driverCycle(driver, fd, size, true, streamSyncs, none)),
                new Variant('f', "(e) + two automatic arenas (the bridge's structs now)",
                        fd -> driverCycle(driver, fd, size, true, streamSyncs, () -> structs(false))),
                new Variant('g', "javaep's importer through the SPI, no ORT: importMemory + close", fd -> {
                    long t0 = System.nanoTime();
                    var imported = InteropBenchmark.handOver(fd, owned -> spiImporter.importMemory(
                            new ExternalMemoryDescriptor(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, owned, size, 0)));
                    long t1 = System.nanoTime();
                    imported.close();
                    HALVES.record("(g) importMemory | close", t1 - t0, System.nanoTime() - t1);
                }),
                new Variant('h', "ORT + javaep: ImportMemory + ReleaseExternalMemoryHandle (no tensor)", fd -> {
                    long t0 = System.nanoTime();
                    ExternalMemory memory = InteropBenchmark.importFd(ortImporter, fd, size);
                    long t1 = System.nanoTime();
                    memory.close();
                    HALVES.record("(h) ImportMemory | ReleaseExternalMemoryHandle", t1 - t0, System.nanoTime() - t1);
                }),
                new Variant('i', "ORT + javaep: ImportMemory + CreateTensorFromMemory + release tensor"
                        + " + ReleaseExternalMemoryHandle", fd -> {
                    try (ExternalMemory memory = InteropBenchmark.importFd(ortImporter, fd, size)) {
                        long t0 = System.nanoTime();
                        var tensor = ortImporter.createTensor(memory, frame);
                        long t1 = System.nanoTime();
                        tensor.close();
                        HALVES.record("(i) CreateTensorFromMemory | release tensor", t1 - t0, System.nanoTime() - t1);
                    }
                }));
    }

    /**
     * The driver's calls on a fresh fd: import, map, unmap, destroy. With {@code duplicate}, as javaep's importer does
     * it: the driver gets a {@code dup} and the app's fd is closed once the mapping worked (without, the driver takes
     * the app's fd: the bare calls). {@code beforeUnmap} runs before {@code cuMemFree} (the release's synchronisation),
     * {@code extra} once per cycle (the bridge's struct memory).
     */
    private static void driverCycle(CudaDriver driver, int appFd, long size, boolean duplicate, Runnable beforeUnmap,
                                    Runnable extra) {
        int driverFd = duplicate ? Posix.dup(appFd) : appFd;
        long external;
        try {
            external = driver.importExternalMemoryFd(driverFd, size, 0); // the driver owns driverFd from here
        } catch (RuntimeException e) {
            Posix.close(driverFd);
            if (duplicate) {
                Posix.close(appFd);
            }
            throw e;
        }
        try {
            long address = driver.externalMemoryGetMappedBuffer(external, 0, size);
            if (duplicate) {
                Posix.close(appFd);
            }
            extra.run();
            beforeUnmap.run();
            driver.memFree(address);
        } finally {
            driver.destroyExternalMemory(external);
        }
    }

    /** The handle's and the tensor deleter's struct, each in an arena of its own, as the bridge makes them. */
    private static void structs(boolean shared) {
        for (int i = 0; i < 2; i++) {
            if (shared) {
                try (Arena arena = Arena.ofShared()) { // the close: a handshake with every Java thread
                    arena.allocate(STRUCT_BYTES, 8);
                }
            } else {
                Arena.ofAuto().allocate(STRUCT_BYTES, 8); // freed by the GC once unreachable
            }
        }
    }

    /** WARMUP + ROUNDS rounds; each runs every variant still working once, starting one further along each round. */
    private static void measure(List<Variant> variants, VulkanBuffer buffer, CudaDevice cuda) {
        int n = variants.size();
        for (int round = 0; round < WARMUP + ROUNDS; round++) {
            if (round == WARMUP) {
                dev.javaep.bridge.BridgeStatistics.reset(); // its means are of the timed, compiled rounds
            }
            for (int k = 0; k < n; k++) {
                Variant variant = variants.get((round + k) % n);
                if (variant.failure != null) {
                    continue;
                }
                int fd = buffer.exportOpaqueFd();
                cuda.makeCurrent(); // the bare variants' context: the device's primary one, which javaep imports into
                long t0 = System.nanoTime();
                try {
                    variant.cycle.importAndRelease(fd);
                } catch (RuntimeException e) {
                    variant.failure = e.getClass().getSimpleName() + ": " + e.getMessage();
                    System.out.printf("(%c) FAILED in round %d: %s%n", variant.letter, round, variant.failure);
                    continue;
                }
                long t1 = System.nanoTime();
                if (round >= WARMUP) {
                    variant.micros[round - WARMUP] = (t1 - t0) / 1e3;
                } else if (round < variant.coldMicros.length) {
                    variant.coldMicros[round] = (t1 - t0) / 1e3;
                }
            }
        }
    }

    private static void print(List<Variant> variants) {
        Map<Character, Variant> byLetter = new LinkedHashMap<>();
        variants.forEach(v -> byLetter.put(v.letter, v));
        System.out.printf("## Where an import's time goes: the %,d-byte Vulkan buffer (OPAQUE_FD, a fresh fd each, exported"
                + " untimed), %d rounds after %d of warm-up, variants interleaved in a rotating order%n%n", FRAME_BYTES,
                ROUNDS, WARMUP);
        System.out.printf("| | path | median µs | p99 µs | median / (a) | first %d rounds: median µs | first %d / (a) |%n",
                COLD, COLD);
        System.out.println("|---|---|---:|---:|---:|---:|---:|");
        Variant bareVariant = byLetter.get('a');
        double bare = bareVariant.failure == null ? bareVariant.stats().median() : Double.NaN;
        double coldBare = bareVariant.failure == null ? bareVariant.coldMedian() : Double.NaN;
        for (Variant v : variants) {
            if (v.failure != null) {
                System.out.printf("| (%c) | %s | FAILED: %s | | | | |%n", v.letter, v.label, v.failure.replace('|', '/'));
            } else {
                Stats stats = v.stats();
                System.out.printf("| (%c) | %s | %.1f | %.1f | %.2f× | %.1f | %.2f× |%n", v.letter, v.label, stats.median(),
                        stats.p99(), stats.median() / bare, v.coldMedian(), v.coldMedian() / coldBare);
            }
        }
        System.out.println();
        System.out.println("Split, differences of medians in µs (n/a where a row failed):");
        split(byLetter, 'b', 'a', "dup + close of the fd");
        split(byLetter, 'c', 'b', "cuCtxSynchronize before the unmap (removed)");
        split(byLetter, 'd', 'c', "two shared arenas: allocate + close, a handshake each (removed)");
        split(byLetter, 'e', 'b', "the release's stream synchronisations (now)");
        split(byLetter, 'f', 'e', "two automatic arenas (now; freed later by the GC)");
        split(byLetter, 'g', 'f', "the SPI importer's own work over (f): checks, makeCurrent, its objects");
        split(byLetter, 'h', 'g', "ORT's ImportMemory/ReleaseExternalMemoryHandle and the bridge over the SPI importer");
        split(byLetter, 'i', 'h', "CreateTensorFromMemory + releasing the tensor (ORT's tensor, the bridge's deleter)");
        System.out.println();
        System.out.println("Each half of a variant on its own, median µs over every cycle (warm-up included):");
        HALVES.print();
        if (dev.javaep.bridge.BridgeStatistics.ENABLED) {
            // Java's part of ORT's calls: the bridge's upcalls (ImportMemory, CreateTensorFromMemory), timed rounds;
            // IMPORTER is the SPI importer's share of ImportMemory (the rest is the bridge's own)
            var totals = dev.javaep.bridge.BridgeStatistics.snapshot();
            for (var callback : List.of(dev.javaep.bridge.BridgeStatistics.Callback.IMPORT,
                    dev.javaep.bridge.BridgeStatistics.Callback.IMPORTER,
                    dev.javaep.bridge.BridgeStatistics.Callback.CREATE_TENSOR)) {
                var t = totals.get(callback);
                System.out.printf("- bridge upcall %s: %d calls, mean %.1f µs in Java%n", callback, t.calls(),
                        t.calls() == 0 ? 0 : t.nanos() / 1e3 / t.calls());
            }
        }
        Variant full = byLetter.get('i');
        if (full.failure == null && !Double.isNaN(bare)) {
            double ratio = full.stats().median() / bare;
            System.out.printf("%ntarget: (i)/(a) %.2f× ≤ %.1f×: %s (the first %d rounds, before the JIT: %.2f×)%n", ratio,
                    TARGET_RATIO, ratio <= TARGET_RATIO ? "met" : "NOT met", COLD, full.coldMedian() / coldBare);
        }
    }

    private static void split(Map<Character, Variant> byLetter, char minuend, char subtrahend, String what) {
        Variant a = byLetter.get(minuend);
        Variant b = byLetter.get(subtrahend);
        String value = a.failure == null && b.failure == null
                ? String.format("%+.1f", a.stats().median() - b.stats().median()) : "n/a";
        System.out.printf("- (%c) − (%c) = %s: %s%n", minuend, subtrahend, value, what);
    }

    /** The two halves (import | release, create | release) of variants (g), (h) and (i), timed inside the cycle. */
    private static final Halves HALVES = new Halves();

    private static final class Halves {
        private final Map<String, List<long[]>> byName = new LinkedHashMap<>();

        void record(String name, long firstNanos, long secondNanos) {
            byName.computeIfAbsent(name, n -> new ArrayList<>()).add(new long[] {firstNanos, secondNanos});
        }

        void print() {
            byName.forEach((name, cycles) -> {
                String[] halves = name.split(" \\| ");
                System.out.printf("- %s %.1f, %s %.1f%n", halves[0], median(cycles, 0), halves[1], median(cycles, 1));
            });
        }

        private static double median(List<long[]> cycles, int half) {
            return Stats.of(cycles.stream().mapToDouble(c -> c[half] / 1e3).toArray()).median();
        }
    }
}
