package dev.javaep.host;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiSlot;
import dev.javaep.spi.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * An owned tensor {@code OrtValue} (not to be confused with {@code dev.javaep.spi.Tensor}, the EP
 * side's view of a kernel argument): {@link #close()} releases the value. Whether the value owns its
 * bytes depends on how it was made:
 * <ul>
 * <li>{@link #allocate}: ORT allocates through an {@link Allocator} and frees on close;</li>
 * <li>{@link #fromHost}: a CPU tensor holding a copy of heap data (ORT's default CPU allocator);</li>
 * <li>{@link #wrap}: <b>does not own the bytes</b>: the memory must stay valid, and be freed by its owner
 * only after, this tensor (and every binding or run that uses it) is done;</li>
 * <li>{@link IoBinding#outputs()}: values ORT allocated during a run.</li>
 * <li>{@link ExternalResourceImporter#createTensor}: a value the EP made over imported memory; <b>does not
 * own the bytes</b>: close it before the {@link ExternalMemory} it views.</li>
 * </ul>
 */
public final class OrtTensor implements AutoCloseable {
    private final OrtApi api;
    private final ElementType elementType;
    private final long[] shape;
    private final Allocator allocator; // the allocator the bytes came from (counts open tensors), or null
    private MemorySegment value;

    private OrtTensor(OrtApi api, MemorySegment value, Allocator allocator) {
        this.api = api;
        this.value = value;
        this.allocator = allocator;
        ElementType type;
        long[] dims;
        try {
            MemorySegment info = api.tensorTypeAndShape(value);
            try {
                type = ElementType.fromOnnx(api.tensorElementType(info));
                dims = api.tensorDimensions(info);
            } finally {
                api.releaseTensorTypeAndShapeInfo(info);
            }
        } catch (RuntimeException e) {
            api.releaseValue(value); // not a tensor we can describe: do not leak it
            throw e;
        }
        this.elementType = type;
        this.shape = dims;
        if (allocator != null) {
            allocator.tensorOpened();
        }
    }

    /** Takes ownership of a tensor value ORT handed us. */
    static OrtTensor adopt(OrtApi api, MemorySegment value) {
        return new OrtTensor(api, value, null);
    }

    /** {@code CreateTensorAsOrtValue}: a tensor whose bytes {@code allocator} allocates (uninitialised). */
    public static OrtTensor allocate(Allocator allocator, ElementType elementType, long... shape) {
        OrtApi api = OrtHost.shared().api();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            api.check((MemorySegment) api.table().handle(OrtApiSlot.CreateTensorAsOrtValue).invokeExact(allocator.handle(),
                    dims(arena, shape), (long) shape.length, elementType.onnxValue(), out));
            return new OrtTensor(api, out.get(ADDRESS, 0), allocator);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /**
     * {@code CreateTensorWithDataAsOrtValue}: a tensor over memory someone else owns (host, pinned or
     * device memory, as {@code memoryInfo} says). Zero-copy and <b>non-owning</b>: the memory must outlive
     * this tensor and every binding or run that uses it. ORT checks that {@code bytes} covers the shape.
     */
    public static OrtTensor wrap(MemoryInfo memoryInfo, long address, long bytes, ElementType elementType, long... shape) {
        OrtApi api = OrtHost.shared().api();
        return new OrtTensor(api, api.createTensorWithData(memoryInfo.handle(), MemorySegment.ofAddress(address), bytes,
                shape, elementType.onnxValue()), null);
    }

    /** {@link #wrap(MemoryInfo, long, long, ElementType, long...)} over a segment's address and size. */
    public static OrtTensor wrap(MemoryInfo memoryInfo, MemorySegment data, ElementType elementType, long... shape) {
        return wrap(memoryInfo, data.address(), data.byteSize(), elementType, shape);
    }

    /** A CPU tensor holding a copy of {@code data} (allocated by ORT's default CPU allocator). */
    public static OrtTensor fromHost(TensorData data) {
        if (data.elementType().byteSize() == 0) {
            throw new IllegalArgumentException("javaep: fromHost supports fixed-size element types, not " + data.elementType());
        }
        long expected = data.elementCount() * data.elementType().byteSize();
        if (data.data().length != expected) {
            throw new IllegalArgumentException("javaep: " + data + " needs " + expected + " bytes but has " + data.data().length);
        }
        OrtTensor tensor = allocate(Allocator.defaultCpu(), data.elementType(), data.shape());
        try {
            MemorySegment.copy(data.data(), 0, tensor.rawData(expected), JAVA_BYTE, 0, data.data().length);
            return tensor;
        } catch (RuntimeException e) {
            tensor.close();
            throw e;
        }
    }

    /** The {@code OrtValue*}. */
    public MemorySegment handle() {
        return OrtCalls.live(value, "OrtTensor");
    }

    public ElementType elementType() {
        return elementType;
    }

    public long[] shape() {
        return shape.clone();
    }

    public long elementCount() {
        return Arrays.stream(shape).reduce(1, Math::multiplyExact);
    }

    /** Address of the first element ({@code GetTensorMutableData}); on a device, a device address. */
    public long dataAddress() {
        return api.tensorMutableData(handle()).address();
    }

    /** {@code GetTensorSizeInBytes}. */
    public long byteSize() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            api.check(api.table().call(OrtApiSlot.GetTensorSizeInBytes, handle(), out));
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /** Where the bytes live ({@code GetTensorMemoryInfo}); borrowed: valid while this tensor is open. */
    public MemoryInfo memoryInfo() {
        return MemoryInfo.borrowed(api, api.tensorMemoryInfo(handle()));
    }

    /** Whether the host can read the bytes directly: CPU memory, or HOST_ACCESSIBLE device memory. */
    public boolean isHostAccessible() {
        return memoryInfo().isHostAccessible();
    }

    /**
     * The bytes as a segment, for reading and writing in place; valid while this tensor is open.
     *
     * @throws IllegalStateException when the bytes are device memory the host cannot touch
     */
    public MemorySegment hostSegment() {
        requireHostAccessible();
        return rawData(byteSize());
    }

    /**
     * Copies the bytes to the heap.
     *
     * @throws IllegalStateException when the bytes are device memory: copy the tensor to a CPU tensor first
     *     with {@link OrtEnvironment#copyTensors}
     */
    public TensorData toHost() {
        if (elementType.byteSize() == 0) {
            throw new UnsupportedOperationException("javaep: toHost supports fixed-size element types, not " + elementType);
        }
        return new TensorData(elementType, shape(), hostSegment().toArray(JAVA_BYTE));
    }

    private void requireHostAccessible() {
        MemoryInfo info = memoryInfo();
        if (!info.isHostAccessible()) {
            throw new IllegalStateException("javaep: this tensor lives in " + info.describe()
                    + ", which the host cannot read; copy it to a CPU tensor first with OrtEnvironment.copyTensors");
        }
    }

    private MemorySegment rawData(long bytes) {
        return api.tensorMutableData(handle()).reinterpret(bytes);
    }

    @Override
    public void close() {
        if (value != null) {
            api.releaseValue(value);
            value = null;
            if (allocator != null) {
                allocator.tensorClosed();
            }
        }
    }

    @Override
    public String toString() {
        return "OrtTensor[" + elementType + Arrays.toString(shape) + (value == null ? ", closed]" : " in " + memoryInfo().name() + "]");
    }

    private static MemorySegment dims(Arena arena, long[] shape) {
        return shape.length == 0 ? arena.allocate(JAVA_LONG) : arena.allocateFrom(JAVA_LONG, shape);
    }
}
