package dev.javaep.harness.validation;

import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.DataTransfer;
import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.DeviceAllocator;
import dev.javaep.spi.DeviceOffer;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.ExecutionProviderFactory;
import dev.javaep.spi.Graph;
import dev.javaep.spi.HardwareDevice;
import dev.javaep.spi.HardwareDeviceType;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.MemoryKind;
import dev.javaep.spi.MemoryLocation;
import dev.javaep.spi.MemorySpace;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Device EPs with one planted bug each, for the validation layer to catch (ValidationLayerIT): a "GPU" whose memory is
 * host memory (so the kernel reads it directly), a memcpy data transfer and a compiled float Add of same-shape
 * inputs. The bugs live where javaep's bridge passes the EP's answers through unchecked: the allocator's pointers
 * and the time a Compute takes.
 */
@SuppressWarnings("restricted") // the "device" memory is host memory the kernel reads through raw addresses
public abstract sealed class BrokenDeviceFactory implements ExecutionProviderFactory {
    private static final int VENDOR_ID = 0x4a45;
    private static final MemoryLocation MEMORY = new MemoryLocation(HardwareDeviceType.GPU, MemoryKind.DEVICE, VENDOR_ID, 9);

    /** Allocations 16 bytes past a 64-byte boundary: ORT's kAllocAlignment broken. */
    public static final class Misaligned extends BrokenDeviceFactory {
        public static final String NAME = "JavaBrokenMisalignedExecutionProvider";

        public Misaligned() {
            super(NAME, 0x1001);
        }

        @Override
        long allocate(long bytes) {
            return super.allocate(bytes + 16) + 16;
        }

        @Override
        void free(long address) {
            super.free(address - 16);
        }
    }

    /** One buffer handed out for every allocation (a static scratch buffer mistaken for an allocator): ORT frees it twice. */
    public static final class Aliasing extends BrokenDeviceFactory {
        public static final String NAME = "JavaBrokenAliasingExecutionProvider";
        private static final MemorySegment SCRATCH = Arena.global().allocate(1 << 20, 64);

        public Aliasing() {
            super(NAME, 0x1002);
        }

        @Override
        long allocate(long bytes) {
            if (bytes > SCRATCH.byteSize()) {
                throw new IllegalArgumentException("the scratch buffer holds 1 MiB");
            }
            return SCRATCH.address();
        }

        @Override
        void free(long address) {}
    }

    /** A Compute that takes 300 ms (a blocking wait where an async launch belongs). */
    public static final class Slow extends BrokenDeviceFactory {
        public static final String NAME = "JavaBrokenSlowExecutionProvider";

        public Slow() {
            super(NAME, 0x1003);
        }

        @Override
        void compute(KernelContext context) {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            super.compute(context);
        }
    }

    private final String name;
    private final int deviceId;
    private final Map<Long, Arena> live = new ConcurrentHashMap<>();

    BrokenDeviceFactory(String name, int deviceId) {
        this.name = name;
        this.deviceId = deviceId;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String vendor() {
        return "javaep-validation-gallery";
    }

    @Override
    public String version() {
        return "1.0.0";
    }

    @Override
    public List<DeviceOffer> supportedDevices(List<HardwareDevice> devices) {
        HardwareDevice device = HardwareDevice.foundByEp(HardwareDeviceType.GPU, VENDOR_ID, deviceId, "javaep-broken-silicon",
                Map.of());
        return List.of(new DeviceOffer(device, Map.of(), Map.of(), List.of(new MemorySpace(name + "Memory", MEMORY, 64))));
    }

    long allocate(long bytes) {
        Arena arena = Arena.ofShared();
        long address = arena.allocate(Math.max(1, bytes), 64).address();
        live.put(address, arena);
        return address;
    }

    void free(long address) {
        Arena arena = live.remove(address);
        if (arena != null) {
            arena.close();
        }
    }

    @Override
    public DeviceAllocator createAllocator(MemorySpace space) {
        return new DeviceAllocator() {
            @Override
            public long allocate(long bytes) {
                return BrokenDeviceFactory.this.allocate(bytes);
            }

            @Override
            public void free(long address) {
                BrokenDeviceFactory.this.free(address);
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
                }
            }
        });
    }

    @Override
    public ExecutionProvider createExecutionProvider(List<HardwareDevice> devices, Map<String, String> sessionOptions) {
        return new ExecutionProvider() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public NodeSupport support(Node node) {
                return node.opType().equals("Add") && node.isOnnxDomain() ? NodeSupport.compiled()
                        : NodeSupport.declined(DeclineCode.OP_TYPE, "the broken device EPs run Add only");
            }

            @Override
            public CompiledNode compile(Graph subgraph, Node fusedNode) {
                return BrokenDeviceFactory.this::compute;
            }
        };
    }

    /** float Add of same-shape inputs, read where they lie (host memory posing as device memory). */
    void compute(KernelContext context) {
        Tensor a = context.input(0);
        Tensor b = context.input(1);
        Tensor sum = context.output(0, a.shape());
        MemorySegment x = a.data().reinterpret(a.byteSize());
        MemorySegment y = b.data().reinterpret(b.byteSize());
        MemorySegment out = sum.data().reinterpret(sum.byteSize());
        for (long i = 0; i < a.elementCount(); i++) {
            out.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, x.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i)
                    + y.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i));
        }
    }
}
