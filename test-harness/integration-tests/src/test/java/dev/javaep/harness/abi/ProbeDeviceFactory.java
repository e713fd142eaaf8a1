package dev.javaep.harness.abi;

import dev.javaep.harness.TestExecutionProvider;
import dev.javaep.spi.DataTransfer;
import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.DeviceAllocator;
import dev.javaep.spi.DeviceOffer;
import dev.javaep.spi.DeviceStream;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.ExecutionProviderFactory;
import dev.javaep.spi.ExternalMemoryDescriptor;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.spi.ExternalResourceImporter;
import dev.javaep.spi.ExternalSemaphoreDescriptor;
import dev.javaep.spi.ExternalSemaphoreType;
import dev.javaep.spi.HardwareDevice;
import dev.javaep.spi.HardwareDeviceType;
import dev.javaep.spi.ImportedMemory;
import dev.javaep.spi.ImportedSemaphore;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.MemoryKind;
import dev.javaep.spi.MemoryLocation;
import dev.javaep.spi.MemorySpace;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.StreamNotification;
import dev.javaep.spi.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A device EP on no real device, for probing the device half of the ABI on any machine: it offers a GPU that
 * ORT did not discover (vendor 0x4a45, device 0x7e57), one memory space of that "GPU" backed by host memory,
 * a data transfer that copies with memcpy, streams with handles the test can recognise, a compiled Sub, and an
 * importer of D3D12 fences that records what it is asked.
 * Every value it hands to ORT is distinct, and everything ORT does with it is recorded, so probes can read back
 * which function a slot really called. Listed in the test classes' {@code META-INF/services}.
 */
@SuppressWarnings("restricted") // raw pointers from ORT are what a probe reads
public final class ProbeDeviceFactory implements ExecutionProviderFactory {
    public static final String NAME = "JavaProbeDeviceExecutionProvider";
    public static final String VENDOR = "javaep-probe-vendor";
    public static final String VERSION = "2.5.0";
    public static final int DEVICE_VENDOR_ID = 0x4a45;
    public static final int DEVICE_ID = 0x7e57;
    public static final String DEVICE_VENDOR = "javaep-probe-silicon";
    /** The memory space's device id: not the hardware device id, so the two cannot be mixed up unnoticed. */
    public static final int MEMORY_DEVICE_ID = 7;
    public static final String MEMORY_NAME = "ProbeDeviceMemory";
    public static final MemoryLocation MEMORY =
            new MemoryLocation(HardwareDeviceType.GPU, MemoryKind.DEVICE, DEVICE_VENDOR_ID, MEMORY_DEVICE_ID);
    public static final Map<String, String> DEVICE_METADATA = Map.of("probe.device", "hardware-metadata");
    public static final Map<String, String> EP_METADATA = Map.of("probe.ep", "ep-metadata");
    public static final Map<String, String> EP_OPTIONS = Map.of("probe.option", "ep-option");
    /** Stream handles start here and count up, one per stream. */
    public static final long FIRST_STREAM_HANDLE = 0x5150;

    /** What ORT did through this factory, oldest first. */
    public record Transfer(MemoryLocation from, MemoryLocation to, long bytes, long streamHandle) {}

    public static final Queue<Long> ALLOCATIONS = new ConcurrentLinkedQueue<>();
    public static final Queue<Transfer> COPIES = new ConcurrentLinkedQueue<>();
    public static final Queue<Long> STREAMS_CREATED = new ConcurrentLinkedQueue<>();
    public static final Queue<Long> STREAMS_CLOSED = new ConcurrentLinkedQueue<>();
    public static final Queue<Long> COMPUTE_STREAMS = new ConcurrentLinkedQueue<>();
    /** "inputs/outputs" as the kernel context counted them, per Compute. */
    public static final Queue<String> COMPUTE_ARITIES = new ConcurrentLinkedQueue<>();
    public static final Queue<Map<String, String>> SESSION_OPTIONS = new ConcurrentLinkedQueue<>();
    /** What the importer was asked, in words: "import D3D12_FENCE 0x...", "wait 77 on 0x5150", ... */
    public static final Queue<String> IMPORTER_EVENTS = new ConcurrentLinkedQueue<>();

    private static final AtomicLong NEXT_STREAM = new AtomicLong(FIRST_STREAM_HANDLE);
    private static final Map<Long, Arena> LIVE = new ConcurrentHashMap<>();

    public static void clearRecords() {
        ALLOCATIONS.clear();
        COPIES.clear();
        STREAMS_CREATED.clear();
        STREAMS_CLOSED.clear();
        COMPUTE_STREAMS.clear();
        COMPUTE_ARITIES.clear();
        SESSION_OPTIONS.clear();
        IMPORTER_EVENTS.clear();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String vendor() {
        return VENDOR;
    }

    @Override
    public String version() {
        return VERSION;
    }

    @Override
    public List<DeviceOffer> supportedDevices(List<HardwareDevice> devices) {
        HardwareDevice device = HardwareDevice.foundByEp(HardwareDeviceType.GPU, DEVICE_VENDOR_ID, DEVICE_ID, DEVICE_VENDOR,
                DEVICE_METADATA);
        return List.of(new DeviceOffer(device, EP_METADATA, EP_OPTIONS, List.of(new MemorySpace(MEMORY_NAME, MEMORY, 64))));
    }

    @Override
    public DeviceAllocator createAllocator(MemorySpace space) {
        return new DeviceAllocator() {
            @Override
            public long allocate(long bytes) {
                Arena arena = Arena.ofShared();
                long address = arena.allocate(Math.max(1, bytes), 64).address();
                LIVE.put(address, arena);
                ALLOCATIONS.add(bytes);
                return address;
            }

            @Override
            public void free(long address) {
                Arena arena = LIVE.remove(address);
                if (arena != null) {
                    arena.close();
                }
            }
        };
    }

    @Override
    public Optional<DataTransfer> dataTransfer() {
        return Optional.of(new DataTransfer() {
            @Override
            public boolean canCopy(MemoryLocation source, MemoryLocation destination) {
                return !(source.isHost() && destination.isHost())
                        && (source.isHost() || source.equals(MEMORY)) && (destination.isHost() || destination.equals(MEMORY));
            }

            @Override
            public void copy(List<DataTransfer.Copy> copies) {
                for (DataTransfer.Copy copy : copies) {
                    MemorySegment.copy(MemorySegment.ofAddress(copy.source()).reinterpret(copy.bytes()), 0,
                            MemorySegment.ofAddress(copy.destination()).reinterpret(copy.bytes()), 0, copy.bytes());
                    COPIES.add(new Transfer(copy.sourceLocation(), copy.destinationLocation(), copy.bytes(), copy.streamHandle()));
                }
            }
        });
    }

    @Override
    public boolean streamAware() {
        return true;
    }

    @Override
    public DeviceStream createStream(MemoryLocation location) {
        long handle = NEXT_STREAM.getAndIncrement();
        STREAMS_CREATED.add(handle);
        return new DeviceStream() {
            @Override
            public long handle() {
                return handle;
            }

            @Override
            public StreamNotification createNotification() {
                return new StreamNotification() {
                    @Override
                    public void activate() {}

                    @Override
                    public void waitOnDevice(long consumerStreamHandle) {}

                    @Override
                    public void waitOnHost() {}

                    @Override
                    public void close() {}
                };
            }

            @Override
            public void flush() {}

            @Override
            public void close() {
                STREAMS_CLOSED.add(handle);
            }
        };
    }

    /**
     * An importer that takes VK_MEMORY_OPAQUE_FD and HOST_ALLOCATION memory (an "import" is a fresh host block of
     * the mapped size; the fd is never touched) and D3D12 fences, whose waits and signals it records: the answers
     * differ per kind, so a probe sees which of ORT's same-shaped functions reached it.
     */
    @Override
    public Optional<ExternalResourceImporter> createImporter(DeviceOffer offer) {
        IMPORTER_EVENTS.add("create");
        return Optional.of(new ExternalResourceImporter() {
            @Override
            public boolean canImportMemory(ExternalMemoryType type) {
                return type == ExternalMemoryType.VK_MEMORY_OPAQUE_FD || type == ExternalMemoryType.HOST_ALLOCATION;
            }

            @Override
            public boolean canImportSemaphore(ExternalSemaphoreType type) {
                return type == ExternalSemaphoreType.D3D12_FENCE;
            }

            @Override
            public ImportedMemory importMemory(ExternalMemoryDescriptor descriptor) {
                Arena block = Arena.ofShared();
                MemorySegment mapped = block.allocate(descriptor.mappedBytes(), 64);
                IMPORTER_EVENTS.add("import memory " + descriptor.type() + " " + descriptor.nativeHandle() + " "
                        + descriptor.sizeBytes() + " " + descriptor.offsetBytes() + " at 0x" + Long.toHexString(mapped.address()));
                return new ImportedMemory() {
                    @Override
                    public long address() {
                        return mapped.address();
                    }

                    @Override
                    public long byteSize() {
                        return mapped.byteSize();
                    }

                    @Override
                    public void close() {
                        IMPORTER_EVENTS.add("release memory");
                        block.close();
                    }
                };
            }

            @Override
            public ImportedSemaphore importSemaphore(ExternalSemaphoreDescriptor descriptor) {
                IMPORTER_EVENTS.add("import " + descriptor.type() + " 0x" + Long.toHexString(descriptor.nativeHandle()));
                return new ImportedSemaphore() {
                    @Override
                    public ExternalSemaphoreType type() {
                        return descriptor.type();
                    }

                    @Override
                    public void close() {
                        IMPORTER_EVENTS.add("release semaphore");
                    }
                };
            }

            @Override
            public void waitSemaphore(ImportedSemaphore semaphore, DeviceStream stream, long value) {
                IMPORTER_EVENTS.add("wait " + value + " on 0x" + Long.toHexString(stream.handle()));
            }

            @Override
            public void signalSemaphore(ImportedSemaphore semaphore, DeviceStream stream, long value) {
                IMPORTER_EVENTS.add("signal " + value + " on 0x" + Long.toHexString(stream.handle()));
            }

            @Override
            public void close() {
                IMPORTER_EVENTS.add("close");
            }
        });
    }

    @Override
    public ExecutionProvider createExecutionProvider(List<HardwareDevice> devices, Map<String, String> sessionOptions) {
        SESSION_OPTIONS.add(Map.copyOf(sessionOptions));
        return TestExecutionProvider.compiling(NAME,
                node -> node.opType().equals("Sub") && node.isOnnxDomain() ? NodeSupport.compiled()
                        : NodeSupport.declined(DeclineCode.OP_TYPE, "the probe device EP computes Sub only"),
                ProbeDeviceFactory::subtractLastDimension);
    }

    /** float {N, C} minus float {C}: the device memory is host memory, so the kernel reads it directly. */
    private static void subtractLastDimension(KernelContext context) {
        COMPUTE_STREAMS.add(context.computeStream());
        COMPUTE_ARITIES.add(context.inputCount() + "/" + context.outputCount());
        Tensor minuend = context.input(0);
        Tensor subtrahend = context.input(1);
        Tensor difference = context.output(0, minuend.shape());
        long columns = subtrahend.elementCount();
        MemorySegment a = minuend.data().reinterpret(minuend.byteSize());
        MemorySegment b = subtrahend.data().reinterpret(subtrahend.byteSize());
        MemorySegment out = difference.data().reinterpret(difference.byteSize());
        for (long i = 0; i < minuend.elementCount(); i++) {
            out.setAtIndex(ValueLayout.JAVA_FLOAT, i,
                    a.getAtIndex(ValueLayout.JAVA_FLOAT, i) - b.getAtIndex(ValueLayout.JAVA_FLOAT, i % columns));
        }
    }
}
