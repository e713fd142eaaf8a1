package dev.javaep.conformance.kit;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * NVIDIA's management library ({@code libnvidia-ml.so.1}, the driver's) through FFM, for the device-memory trend of
 * {@code lifecycle.session-cycles}: the GPU memory of this process ({@code nvmlDeviceGetComputeRunningProcesses_v3},
 * summed over the GPUs), and the used memory of one GPU ({@code nvmlDeviceGetMemoryInfo}) for where NVML does not
 * list this process (a container's PID namespace: NVML reports the host's pids). Fails soft: {@link #open} answers
 * why not, never throws, so a machine without NVIDIA's driver only loses this measurement.
 */
final class Nvml implements AutoCloseable {
    private static final int SUCCESS = 0;
    /** {@code NVML_VALUE_NOT_AVAILABLE}: what usedGpuMemory reads where the driver cannot tell (WDDM, some MIG setups). */
    private static final long VALUE_NOT_AVAILABLE = -1L;
    /** {@code nvmlProcessInfo_t} (the v2 layout _v3 fills): pid, usedGpuMemory, gpuInstanceId, computeInstanceId. */
    private static final long PROCESS_INFO_BYTES = 24;
    private static final int MAX_PROCESSES = 256;
    private static final Linker LINKER = Linker.nativeLinker();

    private final Arena arena;
    private final MethodHandle shutdown;
    private final MethodHandle runningProcesses;
    private final MethodHandle memoryInfo;
    private final List<MemorySegment> devices;
    private final MemorySegment device;
    private final String deviceName;

    /** Either NVML, opened, or why it cannot be. */
    record Opening(Optional<Nvml> nvml, String reason) {}

    private Nvml(Arena arena, SymbolLookup library, List<MemorySegment> devices, MemorySegment device, String deviceName) {
        this.arena = arena;
        this.shutdown = handle(library, "nvmlShutdown", FunctionDescriptor.of(JAVA_INT));
        this.runningProcesses = find(library, "nvmlDeviceGetComputeRunningProcesses_v3",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        this.memoryInfo = handle(library, "nvmlDeviceGetMemoryInfo", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        this.devices = devices;
        this.device = device;
        this.deviceName = deviceName;
    }

    /**
     * Loads NVML, initializes it and picks the GPU whose UUID is {@code uuid} ({@code GPU-xxxxxxxx-...}, as the EP
     * device's {@code cuda.uuid} metadata and {@code nvidia-smi -L} write it), or the only GPU when no UUID is
     * known. Every failure is the {@link Opening}'s reason.
     */
    static Opening open(Optional<String> uuid) {
        Arena arena = Arena.ofShared();
        SymbolLookup library;
        try {
            library = SymbolLookup.libraryLookup("libnvidia-ml.so.1", arena);
        } catch (IllegalArgumentException e) {
            arena.close();
            return new Opening(Optional.empty(), "NVML absent (libnvidia-ml.so.1 does not load: no NVIDIA driver here)");
        }
        try {
            int status = (int) handle(library, "nvmlInit_v2", FunctionDescriptor.of(JAVA_INT)).invokeExact();
            if (status != SUCCESS) {
                arena.close();
                return new Opening(Optional.empty(), "nvmlInit_v2 failed (" + status + ")");
            }
            List<MemorySegment> devices = devices(library, arena);
            MemorySegment chosen;
            String name;
            if (uuid.isPresent()) {
                MemorySegment out = arena.allocate(ADDRESS);
                int byUuid = (int) handle(library, "nvmlDeviceGetHandleByUUID", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS))
                        .invokeExact(arena.allocateFrom(uuid.get()), out);
                chosen = byUuid == SUCCESS ? out.get(ADDRESS, 0) : null;
                name = byUuid == SUCCESS ? uuid.get() : null;
            } else {
                chosen = devices.size() == 1 ? devices.getFirst() : null;
                name = devices.size() == 1 ? "GPU 0 (the only one)" : null;
            }
            Nvml nvml = new Nvml(arena, library, devices, chosen, name);
            if (chosen == null && uuid.isPresent()) {
                nvml.close();
                return new Opening(Optional.empty(), "NVML has no GPU with UUID " + uuid.get() + " (it lists " + devices.size() + ")");
            }
            return new Opening(Optional.of(nvml), "");
        } catch (Throwable t) {
            arena.close();
            return new Opening(Optional.empty(), "NVML unusable: " + t);
        }
    }

    private static List<MemorySegment> devices(SymbolLookup library, Arena arena) throws Throwable {
        MemorySegment count = arena.allocate(JAVA_INT);
        int status = (int) handle(library, "nvmlDeviceGetCount_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS)).invokeExact(count);
        if (status != SUCCESS) {
            return List.of();
        }
        MethodHandle byIndex = handle(library, "nvmlDeviceGetHandleByIndex_v2", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
        List<MemorySegment> devices = new ArrayList<>();
        for (int i = 0; i < count.get(JAVA_INT, 0); i++) {
            MemorySegment out = arena.allocate(ADDRESS);
            if ((int) byIndex.invokeExact(i, out) == SUCCESS) {
                devices.add(out.get(ADDRESS, 0));
            }
        }
        return devices;
    }

    private static MethodHandle handle(SymbolLookup library, String name, FunctionDescriptor descriptor) {
        MethodHandle found = find(library, name, descriptor);
        if (found == null) {
            throw new IllegalStateException("libnvidia-ml.so.1 has no " + name);
        }
        return found;
    }

    private static MethodHandle find(SymbolLookup library, String name, FunctionDescriptor descriptor) {
        return library.find(name).map(symbol -> LINKER.downcallHandle(symbol, descriptor)).orElse(null);
    }

    /** The GPU {@link #deviceUsedBytes} reads, or empty when none was chosen (several GPUs and no UUID). */
    Optional<String> deviceName() {
        return Optional.ofNullable(deviceName);
    }

    /**
     * The bytes of GPU memory NVML attributes to process {@code pid}, summed over every GPU; empty when no GPU lists
     * it (or lists it without a figure), or when the driver's NVML lacks the _v3 call.
     */
    Optional<Long> processUsedBytes(long pid) {
        if (runningProcesses == null) {
            return Optional.empty();
        }
        long total = 0;
        boolean listed = false;
        try (Arena call = Arena.ofConfined()) {
            MemorySegment infos = call.allocate(PROCESS_INFO_BYTES * MAX_PROCESSES, 8);
            MemorySegment count = call.allocate(JAVA_INT);
            for (MemorySegment gpu : devices) {
                count.set(JAVA_INT, 0, MAX_PROCESSES);
                int status = (int) runningProcesses.invokeExact(gpu, count, infos);
                if (status != SUCCESS) {
                    continue; // NVML_ERROR_INSUFFICIENT_SIZE (over 256 processes) or a GPU that cannot tell
                }
                for (int i = 0; i < count.get(JAVA_INT, 0); i++) {
                    long base = i * PROCESS_INFO_BYTES;
                    long used = infos.get(JAVA_LONG, base + 8);
                    if (Integer.toUnsignedLong(infos.get(JAVA_INT, base)) == pid && used != VALUE_NOT_AVAILABLE) {
                        total += used;
                        listed = true;
                    }
                }
            }
        } catch (Throwable t) {
            return Optional.empty();
        }
        return listed ? Optional.of(total) : Optional.empty();
    }

    /** {@code nvmlDeviceGetMemoryInfo}'s used bytes of the chosen GPU (every process's); empty where none was chosen or it fails. */
    Optional<Long> deviceUsedBytes() {
        if (device == null) {
            return Optional.empty();
        }
        try (Arena call = Arena.ofConfined()) {
            MemorySegment memory = call.allocate(3 * JAVA_LONG.byteSize(), 8); // nvmlMemory_t: total, free, used
            int status = (int) memoryInfo.invokeExact(device, memory);
            return status == SUCCESS ? Optional.of(memory.get(JAVA_LONG, 16)) : Optional.empty();
        } catch (Throwable t) {
            return Optional.empty();
        }
    }

    @Override
    public void close() {
        try {
            int ignored = (int) shutdown.invokeExact();
        } catch (Throwable t) {
            // shutting down is best effort: the process ends soon after
        } finally {
            arena.close();
        }
    }
}
