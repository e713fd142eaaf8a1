package dev.javaep.harness.validation;

import dev.javaep.harness.abi.ProbeDeviceFactory;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.DataTransfer;
import dev.javaep.spi.DeviceAllocator;
import dev.javaep.spi.DeviceOffer;
import dev.javaep.spi.DeviceStream;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.ExecutionProviderFactory;
import dev.javaep.spi.Graph;
import dev.javaep.spi.HardwareDevice;
import dev.javaep.spi.MemoryLocation;
import dev.javaep.spi.MemorySpace;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The probe device EP ({@link ProbeDeviceFactory}: a "GPU" whose memory is host memory, a memcpy data transfer,
 * streams, a compiled Sub) with one planted bug each, for the validation layer to catch (ValidationLayerIT). The bugs
 * live where javaep's bridge passes an EP's answers through unchecked: its allocator's pointers, a Compute's time.
 */
public abstract sealed class BrokenDeviceFactory implements ExecutionProviderFactory {
    enum Bug {
        /** Allocations 16 bytes past a 64-byte boundary: ORT's kAllocAlignment broken. */
        MISALIGNED,
        /** One scratch buffer handed out for every allocation (mistaken for an allocator): ORT frees it twice. */
        ALIASING,
        /** A Compute that takes 300 ms (a blocking wait where an async launch belongs). */
        SLOW
    }

    public static final class Misaligned extends BrokenDeviceFactory {
        public Misaligned() {
            super(Bug.MISALIGNED);
        }
    }

    public static final class Aliasing extends BrokenDeviceFactory {
        public Aliasing() {
            super(Bug.ALIASING);
        }
    }

    public static final class Slow extends BrokenDeviceFactory {
        public Slow() {
            super(Bug.SLOW);
        }
    }

    private static final MemorySegment SCRATCH = Arena.global().allocate(1 << 20, 64);
    private final Bug bug;
    private final ProbeDeviceFactory device = new ProbeDeviceFactory();

    BrokenDeviceFactory(Bug bug) {
        this.bug = bug;
    }

    /** The EP name of a bug: JavaBrokenMisalignedExecutionProvider, ... */
    static String name(Bug bug) {
        String word = bug.name().charAt(0) + bug.name().substring(1).toLowerCase(Locale.ROOT);
        return "JavaBroken" + word + "ExecutionProvider";
    }

    @Override
    public String name() {
        return name(bug);
    }

    @Override
    public String vendor() {
        return "javaep-validation-gallery";
    }

    @Override
    public String version() {
        return device.version();
    }

    @Override
    public List<DeviceOffer> supportedDevices(List<HardwareDevice> devices) {
        return device.supportedDevices(devices);
    }

    @Override
    public Optional<DataTransfer> dataTransfer() {
        return device.dataTransfer();
    }

    @Override
    public boolean streamAware() {
        return device.streamAware();
    }

    @Override
    public DeviceStream createStream(MemoryLocation location) {
        return device.createStream(location);
    }

    @Override
    public DeviceAllocator createAllocator(MemorySpace space) {
        DeviceAllocator allocator = device.createAllocator(space);
        return switch (bug) {
            case MISALIGNED -> new DeviceAllocator() {
                @Override
                public long allocate(long bytes) {
                    return allocator.allocate(bytes + 16) + 16;
                }

                @Override
                public void free(long address) {
                    allocator.free(address - 16);
                }
            };
            case ALIASING -> new DeviceAllocator() {
                @Override
                public long allocate(long bytes) {
                    return bytes <= SCRATCH.byteSize() ? SCRATCH.address() : 0L;
                }

                @Override
                public void free(long address) {}
            };
            case SLOW -> allocator;
        };
    }

    @Override
    public ExecutionProvider createExecutionProvider(List<HardwareDevice> devices, Map<String, String> sessionOptions) {
        ExecutionProvider probe = device.createExecutionProvider(devices, sessionOptions);
        return new ExecutionProvider() {
            @Override
            public String name() {
                return BrokenDeviceFactory.this.name();
            }

            @Override
            public NodeSupport support(Node node) {
                return probe.support(node);
            }

            @Override
            public CompiledNode compile(Graph subgraph, Node fusedNode) {
                CompiledNode node = probe.compile(subgraph, fusedNode);
                return bug != Bug.SLOW ? node : context -> {
                    try {
                        Thread.sleep(300);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    node.compute(context);
                };
            }
        };
    }
}
