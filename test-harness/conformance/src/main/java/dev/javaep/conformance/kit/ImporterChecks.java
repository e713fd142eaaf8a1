package dev.javaep.conformance.kit;

import dev.javaep.conformance.kit.vulkan.TimelineSemaphore;
import dev.javaep.conformance.kit.vulkan.VulkanDevice;
import dev.javaep.conformance.kit.vulkan.VulkanUnavailableException;
import dev.javaep.host.DeviceMemoryType;
import dev.javaep.host.EpDevice;
import dev.javaep.host.ExternalMemory;
import dev.javaep.host.ExternalResourceImporter;
import dev.javaep.host.ExternalResourceImporter.MemoryDescriptor;
import dev.javaep.host.ExternalResourceImporter.TensorDescriptor;
import dev.javaep.host.ExternalSemaphore;
import dev.javaep.host.FileDescriptors;
import dev.javaep.host.OrtTensor;
import dev.javaep.host.SyncStream;
import dev.javaep.ort.OrtException;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.spi.ExternalSemaphoreType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The EP's external resource importer ({@code OrtInteropApi}, ORT API 24+), where it offers one. The one real memory
 * handle a host can make without a GPU API is a memfd, so the memory import paths are exercised on EPs whose memory
 * the host can map (a CPU device, or no device memory); for a GPU EP the kit checks what every importer must refuse.
 * Semaphores are real: a Vulkan timeline semaphore of the kit's own Vulkan binding ({@code kit.vulkan}), exported as
 * OPAQUE_FD, where a Vulkan driver here can export one (NVIDIA's can; lavapipe cannot).
 *
 * <p>fd ownership: on a successful import the importer may take the fd passed (CUDA, Vulkan and OpenCL do; javaep's EPs
 * do); on a refused import the fd is still the caller's. No import may touch any other fd of the caller.
 */
final class ImporterChecks {
    private static final int FLOATS = 1024;
    /** A handle type value no ORT version defines. */
    private static final int UNKNOWN_TYPE = 99;

    private ImporterChecks() {}

    static CheckGroup group() {
        return new CheckGroup("importer", "the EP's external resource importer (OrtInteropApi, API 24+), where it offers one",
                List.of(new Check("importer.can-import-truthful",
                                "each CanImportMemory/CanImportSemaphore answer agrees with ImportMemory on a real handle of"
                                        + " that type where the kit can make one (a memfd); a type it refuses is refused with a status",
                                ImporterChecks::canImportTruthful),
                        new Check("importer.bad-descriptors",
                                "wrong version, size 0, offset beyond size, size beyond the file, unknown handle type, a closed"
                                        + " fd, a NULL descriptor, a tensor past the import: each a status, never a crash",
                                ImporterChecks::badDescriptors),
                        new Check("importer.release-orders",
                                "tensor before import, import before tensor, importer before both: each order releases"
                                        + " cleanly, with the data right and no fd left behind",
                                ImporterChecks::releaseOrders),
                        new Check("importer.caller-handles-untouched",
                                "a refused import leaves the caller's fd open on its file; an accepted one takes at most the"
                                        + " fd passed, and the caller's own fds still read their bytes after release",
                                ImporterChecks::callerHandlesUntouched),
                        new Check("importer.semaphore-round-trip",
                                "a Vulkan timeline semaphore the kit exports (OPAQUE_FD) round-trips through the EP: its"
                                        + " stream waits for the host's signal, then signals; the caller's own fd stays open",
                                ImporterChecks::semaphoreRoundTrip)));
    }

    /** The EP's importer; skips when the EP (or the runtime) offers none. */
    private static ExternalResourceImporter importer(KitContext context) {
        try {
            return context.env().createExternalResourceImporter(context.device()).orElseThrow(() -> Check.skip(
                    context.epName() + " offers no external resource importer (CreateExternalResourceImporterForDevice"
                            + " gave none)"));
        } catch (OrtException e) {
            throw Check.skip("no importer: " + e.getMessage());
        }
    }

    /** Whether the EP's memory is host memory, so that a memfd is a handle its importer can really map. */
    private static boolean hostMemoryEp(KitContext context) {
        return context.device().hardwareType().equals("CPU") || context.device().memoryInfo(DeviceMemoryType.DEFAULT)
                .map(info -> info.isHostAccessible()).orElse(true);
    }

    private static float[] pattern() {
        float[] values = new float[FLOATS];
        for (int i = 0; i < FLOATS; i++) {
            values[i] = i * 0.5f - 100;
        }
        return values;
    }

    private static String canImportTruthful(KitContext context) {
        List<String> problems = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        boolean hostMemory = hostMemoryEp(context);
        try (ExternalResourceImporter importer = importer(context); SharedMemoryFile file = new SharedMemoryFile(pattern())) {
            for (ExternalMemoryType type : ExternalMemoryType.values()) {
                if (type.sinceApi() > context.env().host().api().version()) {
                    continue;
                }
                boolean claimed = importer.canImportMemory(type);
                seen.add(type + "=" + claimed);
                if (type.handleKind() != ExternalMemoryType.NativeHandleKind.FILE_DESCRIPTOR) {
                    if (claimed && type.handleKind() == ExternalMemoryType.NativeHandleKind.WIN32_HANDLE
                            && !System.getProperty("os.name", "").startsWith("Windows")) {
                        problems.add("CanImportMemory(" + type + ") answers true on " + System.getProperty("os.name")
                                + ", which has no Win32 HANDLEs");
                    }
                    continue;
                }
                int fd = file.export();
                try (ExternalMemory memory = importer.importMemory(type, fd, file.size(), 0)) {
                    if (!claimed) {
                        problems.add("CanImportMemory(" + type + ") answers false, but ImportMemory of a memfd succeeded");
                    } else if (!hostMemory) {
                        seen.add(type + " took a memfd");
                    }
                } catch (OrtException e) {
                    if (claimed && hostMemory) {
                        problems.add("CanImportMemory(" + type + ") answers true, but ImportMemory of a memfd of "
                                + file.size() + " bytes was refused: " + e.getMessage());
                    }
                } finally {
                    closeIfStillTheFile(file, fd);
                }
            }
            claimUnknown("CanImportMemory(" + UNKNOWN_TYPE + ")", () -> importer.canImportMemory(UNKNOWN_TYPE), problems);
            for (ExternalSemaphoreType type : ExternalSemaphoreType.values()) {
                seen.add(type + "=" + importer.canImportSemaphore(type));
            }
            claimUnknown("CanImportSemaphore(" + UNKNOWN_TYPE + ")", () -> importer.canImportSemaphore(UNKNOWN_TYPE), problems);
        }
        if (!problems.isEmpty()) {
            throw Check.fail(String.join("; ", problems));
        }
        return String.join(", ", seen) + (hostMemory ? "; fd types checked on a memfd"
                : "; a GPU EP's OPAQUE_FD claim needs a driver export the kit cannot make: refusals checked only");
    }

    /** An unknown type value must be answered false or refused with a status, never claimed. */
    private static void claimUnknown(String call, java.util.function.BooleanSupplier answer, List<String> problems) {
        try {
            if (answer.getAsBoolean()) {
                problems.add(call + " answers true for a value no ORT version defines");
            }
        } catch (OrtException e) {
            // a status: fine
        }
    }

    /** One bad input: what it is, and the import call that must be refused. */
    private record BadInput(String what, Consumer<ExternalResourceImporter> call) {}

    private static String badDescriptors(KitContext context) {
        List<String> accepted = new ArrayList<>();
        List<String> refusals = new ArrayList<>();
        try (ExternalResourceImporter importer = importer(context); SharedMemoryFile file = new SharedMemoryFile(pattern())) {
            ExternalMemoryType fdType = ExternalMemoryType.VK_MEMORY_OPAQUE_FD;
            long size = file.size();
            int version = context.env().host().api().version();
            List<BadInput> inputs = new ArrayList<>(List.of(
                    new BadInput("version 0", i -> withFd(file, fd -> i.importMemory(new MemoryDescriptor(0, fdType.ortValue(), fd, size, 0)))),
                    new BadInput("version 9999", i -> withFd(file, fd -> i.importMemory(new MemoryDescriptor(9999, fdType.ortValue(), fd, size, 0)))),
                    new BadInput("size 0", i -> withFd(file, fd -> i.importMemory(new MemoryDescriptor(version, fdType.ortValue(), fd, 0, 0)))),
                    new BadInput("offset = size", i -> withFd(file, fd -> i.importMemory(new MemoryDescriptor(version, fdType.ortValue(), fd, size, size)))),
                    new BadInput("offset beyond size", i -> withFd(file, fd -> i.importMemory(new MemoryDescriptor(version, fdType.ortValue(), fd, size, size + 4096)))),
                    new BadInput("size 64× the file", i -> withFd(file, fd -> i.importMemory(new MemoryDescriptor(version, fdType.ortValue(), fd, size * 64, 0)))),
                    new BadInput("handle type " + UNKNOWN_TYPE, i -> withFd(file, fd -> i.importMemory(new MemoryDescriptor(version, UNKNOWN_TYPE, fd, size, 0)))),
                    new BadInput("a closed fd", i -> i.importMemory(new MemoryDescriptor(version, fdType.ortValue(), closedFd(file), size, 0)).close()),
                    new BadInput("fd -1", i -> i.importMemory(new MemoryDescriptor(version, fdType.ortValue(), -1, size, 0)).close()),
                    new BadInput("a NULL descriptor", i -> i.importMemory((MemoryDescriptor) null).close())));
            if (hostMemoryEp(context) && importer.canImportMemory(fdType)) {
                inputs.add(new BadInput("a tensor past the end of the import", i -> {
                    int fd = file.export();
                    try (ExternalMemory memory = i.importMemory(fdType, fd, size, 0)) {
                        closeIfStillTheFile(file, fd);
                        i.createTensor(memory, TensorDescriptor.of(ElementType.FLOAT, new long[] {FLOATS + 1}, 0)).close();
                    }
                }));
                inputs.add(new BadInput("a NULL tensor descriptor", i -> {
                    int fd = file.export();
                    try (ExternalMemory memory = i.importMemory(fdType, fd, size, 0)) {
                        closeIfStillTheFile(file, fd);
                        i.createTensor(memory, null).close();
                    }
                }));
            }
            for (ExternalSemaphoreType type : ExternalSemaphoreType.values()) {
                if (type.handleKind() == ExternalMemoryType.NativeHandleKind.FILE_DESCRIPTOR && importer.canImportSemaphore(type)) {
                    inputs.add(new BadInput("a semaphore from a closed fd", i -> i.importSemaphore(type, closedFd(file)).close()));
                }
            }
            for (BadInput input : inputs) {
                try {
                    input.call().accept(importer);
                    accepted.add(input.what());
                } catch (OrtException e) {
                    refusals.add(input.what() + ": " + e.code());
                }
            }
        }
        if (!accepted.isEmpty()) {
            throw Check.fail("accepted " + String.join(", ", accepted) + " (refused " + String.join(", ", refusals) + ")");
        }
        return "refused " + String.join(", ", refusals);
    }

    /** Runs {@code importCall} with a fresh fd of {@code file}, closing what it gives back and the fd if still ours. */
    private static void withFd(SharedMemoryFile file, java.util.function.IntFunction<ExternalMemory> importCall) {
        int fd = file.export();
        try {
            importCall.apply(fd).close();
        } finally {
            closeIfStillTheFile(file, fd);
        }
    }

    /** An fd number that was the file's and is closed now (nothing opened in between reuses it in this thread). */
    private static int closedFd(SharedMemoryFile file) {
        int fd = file.export();
        FileDescriptors.close(fd);
        return fd;
    }

    /** Closes {@code fd} if it is still open on {@code file}: refused imports leave it to the caller. */
    private static void closeIfStillTheFile(SharedMemoryFile file, int fd) {
        if (file.refersToThis(fd)) {
            FileDescriptors.close(fd);
        }
    }

    /** The memory and tensor of one import of {@code file}, for the release-order checks. */
    private record Imported(ExternalMemory memory, OrtTensor tensor) {}

    private static Imported importWithTensor(ExternalResourceImporter importer, SharedMemoryFile file) {
        int fd = file.export();
        ExternalMemory memory;
        try {
            memory = importer.importMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, fd, file.size(), 0);
        } finally {
            closeIfStillTheFile(file, fd);
        }
        return new Imported(memory, importer.createTensor(memory, TensorDescriptor.of(ElementType.FLOAT, new long[] {FLOATS}, 0)));
    }

    /** Skips unless the EP can import host memory; the file and importer for the import checks. */
    private static ExternalResourceImporter requireHostImports(KitContext context) {
        ExternalResourceImporter importer = importer(context);
        if (!hostMemoryEp(context) || !importer.canImportMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD)) {
            importer.close();
            throw Check.skip(context.epName() + " does not import host memory fds: the kit's only real handle is a memfd"
                    + " (a GPU EP's OPAQUE_FD needs a driver export)");
        }
        return importer;
    }

    private static String releaseOrders(KitContext context) {
        float[] expected = pattern();
        List<String> problems = new ArrayList<>();
        List<Integer> fdsBefore = FileDescriptors.open();
        try (SharedMemoryFile file = new SharedMemoryFile(expected)) {
            // 1: tensor, then memory, then importer
            try (ExternalResourceImporter importer = requireHostImports(context)) {
                Imported imported = importWithTensor(importer, file);
                check("tensor first", imported.tensor(), expected, problems);
                imported.tensor().close();
                imported.memory().close();
            }
            // 2: memory, then tensor (the tensor is not read after the memory's release: not every EP keeps it mapped)
            try (ExternalResourceImporter importer = requireHostImports(context)) {
                Imported imported = importWithTensor(importer, file);
                check("import first", imported.tensor(), expected, problems);
                imported.memory().close();
                imported.tensor().close();
            }
            // 3: importer, then tensor, then memory
            ExternalResourceImporter importer = requireHostImports(context);
            Imported imported = importWithTensor(importer, file);
            importer.releaseImporterOnly();
            check("importer first", imported.tensor(), expected, problems);
            imported.tensor().close();
            imported.memory().close();
        }
        List<Integer> left = new ArrayList<>(FileDescriptors.open());
        left.removeAll(fdsBefore);
        if (!left.isEmpty()) {
            problems.add("fds left open after every release: " + left.stream()
                    .map(fd -> fd + " → " + FileDescriptors.target(fd).orElse("?")).toList());
        }
        if (!problems.isEmpty()) {
            throw Check.fail(String.join("; ", problems));
        }
        return "tensor first, import first, importer first: released cleanly, data right, no fd left";
    }

    private static void check(String order, OrtTensor tensor, float[] expected, List<String> problems) {
        float[] got = tensor.toHost().floats();
        if (!Arrays.equals(expected, got)) {
            problems.add(order + ": the tensor over the import reads " + Arrays.toString(Arrays.copyOf(got, 4))
                    + "..., the file holds " + Arrays.toString(Arrays.copyOf(expected, 4)) + "...");
        }
    }

    private static String callerHandlesUntouched(KitContext context) {
        List<String> problems = new ArrayList<>();
        String ownership;
        float[] expected = pattern();
        try (ExternalResourceImporter importer = importer(context); SharedMemoryFile file = new SharedMemoryFile(expected);
             SharedMemoryFile bystander = new SharedMemoryFile(new float[16])) {
            ExternalMemoryType fdType = ExternalMemoryType.VK_MEMORY_OPAQUE_FD;
            // a refused import (size 64× the file, offset beyond size, version 0): the fd passed stays the caller's
            int version = context.env().host().api().version();
            for (MemoryDescriptor bad : List.of(new MemoryDescriptor(version, fdType.ortValue(), 0, file.size() * 64, 0),
                    new MemoryDescriptor(version, fdType.ortValue(), 0, file.size(), file.size() + 4096),
                    new MemoryDescriptor(0, fdType.ortValue(), 0, file.size(), 0))) {
                int fd = file.export();
                MemoryDescriptor withFd = new MemoryDescriptor(bad.version(), bad.handleType(), fd, bad.sizeBytes(), bad.offsetBytes());
                try {
                    importer.importMemory(withFd).close();
                    closeIfStillTheFile(file, fd);
                    continue; // accepted: importer.bad-descriptors says so
                } catch (OrtException e) {
                    // refused: the fd must still be the caller's
                }
                if (!file.refersToThis(fd)) {
                    problems.add("a refused import (size " + bad.sizeBytes() + ", offset " + bad.offsetBytes() + ", version "
                            + bad.version() + ") closed the caller's fd " + fd + " (now "
                            + FileDescriptors.target(fd).orElse("closed") + ")");
                } else {
                    FileDescriptors.close(fd);
                }
            }
            if (hostMemoryEp(context) && importer.canImportMemory(fdType)) {
                int fd = file.export();
                ExternalMemory memory = importer.importMemory(fdType, fd, file.size(), 0);
                boolean taken = !file.refersToThis(fd);
                memory.close();
                ownership = taken ? "the EP took the fd passed (ownership moves on success, as with CUDA and Vulkan)"
                        : "the EP left the fd passed open (the caller closes it)";
                if (!taken) {
                    FileDescriptors.close(fd);
                }
                float[] after = file.floats();
                if (!Arrays.equals(expected, after)) {
                    problems.add("after import and release the caller's file reads differently");
                }
            } else {
                ownership = "no successful import to watch (the kit's memfd is not this EP's kind of memory)";
            }
            for (SharedMemoryFile mine : List.of(file, bystander)) {
                if (!mine.refersToThis(mine.ownFd())) {
                    problems.add("the caller's own fd " + mine.ownFd() + " is no longer open on its file");
                } else {
                    mine.floats(); // still readable through it
                }
            }
        }
        if (!problems.isEmpty()) {
            throw Check.fail(String.join("; ", problems));
        }
        return "refused imports left the caller's fd open; " + ownership + "; the caller's other fds still open on their files and readable";
    }

    /** The timeline value the host signals; the EP waits for it and signals one more. */
    private static final long HOST_VALUE = 1;
    /** How long the EP may take to signal once the host has (a GPU stream needs microseconds). */
    private static final long ROUND_TRIP_TIMEOUT_MS = 10_000;
    /** How long the kit watches for a signal that must not come before the host's (the EP's wait not honoured). */
    private static final long EARLY_SIGNAL_WATCH_MS = 200;
    /** How long queueing the EP's wait and signal may take: WaitSemaphore queues the wait, it does not block on it. */
    private static final long QUEUE_TIMEOUT_MS = 2_000;

    /**
     * A Vulkan timeline semaphore the kit makes ({@code kit.vulkan}) and exports as OPAQUE_FD, imported by the EP: the
     * EP's stream waits for {@link #HOST_VALUE} and signals one more, the host signals {@link #HOST_VALUE} and waits.
     */
    private static String semaphoreRoundTrip(KitContext context) {
        try (ExternalResourceImporter importer = importer(context)) {
            List<ExternalSemaphoreType> claimed = Arrays.stream(ExternalSemaphoreType.values())
                    .filter(importer::canImportSemaphore).toList();
            if (claimed.isEmpty()) {
                throw Check.skip(context.epName() + "'s importer imports no semaphores (CanImportSemaphore is false for"
                        + " every type): an app orders its work before Run itself");
            }
            if (!claimed.contains(ExternalSemaphoreType.VK_TIMELINE_SEMAPHORE_OPAQUE_FD)) {
                throw Check.skip(context.epName() + " imports " + claimed + " semaphores; the kit makes Vulkan timeline"
                        + " semaphores exported as OPAQUE_FD (Linux) only");
            }
            Optional<byte[]> uuid = deviceUuid(context.device());
            VulkanDevice vulkan;
            try {
                vulkan = VulkanDevice.open(uuid, true);
            } catch (VulkanUnavailableException e) {
                throw Check.skip(context.epName() + " imports VK_TIMELINE_SEMAPHORE_OPAQUE_FD, but the kit cannot make one"
                        + " here: " + e.getMessage());
            }
            try (vulkan) {
                String matched = vulkan.describe() + (uuid.isPresent() ? ", matched by the EP device's cuda.uuid"
                        : ", the first that exports (the EP device names no cuda.uuid)");
                return roundTrip(context, importer, vulkan) + "; Vulkan device " + matched;
            }
        }
    }

    /** The EP device's {@code cuda.uuid} ({@code GPU-xxxxxxxx-xxxx-...}) as the 16 bytes of a Vulkan deviceUUID. */
    static Optional<byte[]> deviceUuid(EpDevice device) {
        String uuid = device.epMetadata().get("cuda.uuid");
        if (uuid == null || !uuid.startsWith("GPU-")) {
            return Optional.empty(); // absent, or a MIG instance's UUID, which no Vulkan device has
        }
        String hex = uuid.substring(4).replace("-", "");
        try {
            byte[] bytes = HexFormat.of().parseHex(hex);
            return bytes.length == 16 ? Optional.of(bytes) : Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static String roundTrip(KitContext context, ExternalResourceImporter importer, VulkanDevice vulkan) {
        List<String> problems = new ArrayList<>();
        SyncStream stream;
        try {
            stream = context.env().createSyncStream(context.device());
        } catch (RuntimeException e) {
            throw Check.fail(context.epName() + " claims VK_TIMELINE_SEMAPHORE_OPAQUE_FD, but CreateSyncStreamForEpDevice"
                    + " gives no stream to wait and signal on: " + e.getMessage());
        }
        String result;
        try (stream; TimelineSemaphore timeline = vulkan.createTimeline(0, true)) {
            int kept = timeline.exportOpaqueFd(); // the caller's own fd of the semaphore: no import may touch it
            String keptTarget = FileDescriptors.target(kept).orElse("?");
            try {
                result = roundTrip(importer, timeline, stream, problems);
            } finally {
                if (!FileDescriptors.target(kept).map(keptTarget::equals).orElse(false)) {
                    problems.add("the caller's own fd " + kept + " of the semaphore (" + keptTarget
                            + ") is no longer open on it after the round trip and release (now "
                            + FileDescriptors.target(kept).orElse("closed") + ")");
                } else {
                    FileDescriptors.close(kept);
                }
            }
        }
        if (!problems.isEmpty()) {
            throw Check.fail(String.join("; ", problems));
        }
        return result + "; the caller's own fd of the semaphore still open after release";
    }

    private static String roundTrip(ExternalResourceImporter importer, TimelineSemaphore timeline, SyncStream stream,
                                    List<String> problems) {
        int passed = timeline.exportOpaqueFd();
        String fdTarget = FileDescriptors.target(passed).orElse("?");
        ExternalSemaphore semaphore;
        try {
            semaphore = importer.importSemaphore(ExternalSemaphoreType.VK_TIMELINE_SEMAPHORE_OPAQUE_FD, passed);
        } catch (OrtException e) {
            if (FileDescriptors.target(passed).map(fdTarget::equals).orElse(false)) {
                FileDescriptors.close(passed);
            } else {
                problems.add("the refused import closed the fd passed, which stays the caller's on a refusal");
            }
            throw Check.fail("CanImportSemaphore(VK_TIMELINE_SEMAPHORE_OPAQUE_FD) answers true, but ImportSemaphore of a"
                    + " Vulkan timeline semaphore's fd was refused: " + e.getMessage()
                    + (problems.isEmpty() ? "" : "; " + String.join("; ", problems)));
        }
        boolean taken = !FileDescriptors.target(passed).map(fdTarget::equals).orElse(false);
        if (!taken) {
            FileDescriptors.close(passed);
        }
        String ownership = taken ? "the EP took the fd passed" : "the EP left the fd passed open (the caller closed it)";
        long signalled = HOST_VALUE + 1;
        try (semaphore) {
            // queued from another thread: an EP whose WaitSemaphore blocks until the value is reached would otherwise
            // wait for a host signal that comes only after it returns
            CompletableFuture<Void> queued = CompletableFuture.runAsync(() -> {
                importer.waitSemaphore(semaphore, stream, HOST_VALUE);
                importer.signalSemaphore(semaphore, stream, signalled);
            }, runnable -> Thread.ofPlatform().daemon().name("kit-semaphore-queue").start(runnable));
            boolean blocked = !finishes(queued, QUEUE_TIMEOUT_MS);
            if (blocked) {
                problems.add("WaitSemaphore (or SignalSemaphore) did not return within " + QUEUE_TIMEOUT_MS
                        + " ms before the host signalled: it blocked the caller instead of queueing the wait on the stream");
            } else if (timeline.await(signalled, TimeUnit.MILLISECONDS.toNanos(EARLY_SIGNAL_WATCH_MS))) {
                throw Check.fail("the EP signalled " + signalled + " before the host signalled " + HOST_VALUE
                        + ": its stream did not wait (WaitSemaphore not honoured); " + ownership);
            }
            long start = System.nanoTime();
            timeline.signal(HOST_VALUE);
            if (blocked && !finishes(queued, ROUND_TRIP_TIMEOUT_MS)) {
                throw Check.fail("WaitSemaphore/SignalSemaphore still had not returned " + ROUND_TRIP_TIMEOUT_MS
                        + " ms after the host signalled " + HOST_VALUE);
            }
            rethrowQueueFailure(queued);
            if (!timeline.await(signalled, TimeUnit.MILLISECONDS.toNanos(ROUND_TRIP_TIMEOUT_MS))) {
                throw Check.fail("the EP never signalled: the host signalled " + HOST_VALUE + ", the EP's stream was to"
                        + " wait for it and signal " + signalled + ", and after " + ROUND_TRIP_TIMEOUT_MS
                        + " ms the timeline reads " + timeline.value() + "; " + ownership);
            }
            double micros = (System.nanoTime() - start) / 1e3;
            return String.format("imported a Vulkan timeline semaphore (OPAQUE_FD); the EP's stream waited for %d (no"
                    + " signal of %d within %d ms before the host's) and signalled %d %.0f µs after the host signalled %d"
                    + " (timeline now %d); %s", HOST_VALUE, signalled, EARLY_SIGNAL_WATCH_MS, signalled, micros, HOST_VALUE,
                    timeline.value(), ownership);
        }
    }

    /** Whether {@code queued} completed (normally or not) within {@code millis}. */
    private static boolean finishes(CompletableFuture<Void> queued, long millis) {
        try {
            queued.get(millis, TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** A refusal of WaitSemaphore/SignalSemaphore fails the check with the EP's status. */
    private static void rethrowQueueFailure(CompletableFuture<Void> queued) {
        try {
            queued.join();
        } catch (CompletionException e) {
            throw Check.fail("WaitSemaphore/SignalSemaphore on the EP's stream failed: " + e.getCause().getMessage());
        }
    }
}
