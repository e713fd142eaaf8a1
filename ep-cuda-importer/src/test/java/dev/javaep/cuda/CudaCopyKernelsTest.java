package dev.javaep.cuda;

import static dev.javaep.cuda.driver.FakeCuda.K_STREAM;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.spi.ElementType;
import dev.javaep.spi.KernelDefinition;
import dev.javaep.spi.Node;
import dev.javaep.spi.OpKernel;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ValueInfo;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The copy kernels ORT inserts at CPU↔JavaCuda edges: what they declare to ORT's registry, and that they copy on the Run's stream. */
class CudaCopyKernelsTest extends FakeDeviceTest {
    private static final long STREAM = 0x5C0;

    private static Node copyNode(String op) {
        ValueInfo v = new ValueInfo("x", ElementType.FLOAT, new long[] {4}, true);
        return new Node(1, op, op, "", 1, List.of(v), List.of(new ValueInfo("y", ElementType.FLOAT, new long[] {4}, true)), Map.of());
    }

    @Test
    void theEpRegistersBothCopyKernelsWithHostMemoryOnTheirHostSide() {
        List<KernelDefinition> kernels = CudaCopyKernels.definitions(device);
        assertEquals(2, kernels.size());
        KernelDefinition fromHost = kernels.get(0);
        assertEquals("MemcpyFromHost", fromHost.opType());
        assertEquals("", fromHost.domain());
        assertEquals(1, fromHost.sinceVersion());
        assertEquals(1, fromHost.lastVersion());
        assertEquals(Map.of("T", KernelDefinition.allFixedSizeTypes()), fromHost.typeConstraints());
        assertEquals(Set.of(0), fromHost.hostInputs());
        assertEquals(Set.of(), fromHost.hostOutputs());
        assertTrue(fromHost.covers(copyNode("MemcpyFromHost")));

        KernelDefinition toHost = kernels.get(1);
        assertEquals("MemcpyToHost", toHost.opType());
        assertEquals(Set.of(), toHost.hostInputs());
        assertEquals(Set.of(0), toHost.hostOutputs());
        assertEquals(Map.of("T", KernelDefinition.allFixedSizeTypes()), toHost.typeConstraints());
        assertTrue(toHost.covers(copyNode("MemcpyToHost")));
        assertTrue(toHost.typeConstraints().get("T").containsAll(Set.of(ElementType.FLOAT, ElementType.INT64,
                ElementType.BOOL, ElementType.FLOAT16, ElementType.UINT8)));
    }

    @Test
    void copiesToTheDeviceAndBackOnTheRunsStream() {
        device.makeCurrent();
        List<KernelDefinition> kernels = CudaCopyKernels.definitions(device);
        float[] values = {1.5f, -2f, 3.25f, 1e-30f, 7f};
        try (Arena arena = Arena.ofConfined()) {
            Tensor host = new CopyContext.Plain(ElementType.FLOAT, new long[] {5}, arena.allocateFrom(JAVA_FLOAT, values));
            CudaTransferCounters.Snapshot before = CudaTransferCounters.snapshot();
            CopyContext up = new CopyContext(host, bytes -> MemorySegment.ofAddress(driver.memAlloc(bytes)), STREAM);
            try (OpKernel fromHost = kernels.get(0).factory().create(null)) {
                fromHost.compute(up);
            }
            assertEquals(STREAM, fake.last(K_STREAM), "queued on the Run's stream");
            Tensor onDevice = up.output();
            assertArrayEquals(new long[] {5}, onDevice.shape());

            CopyContext down = new CopyContext(onDevice, bytes -> arena.allocate(bytes, 16), STREAM);
            try (OpKernel toHost = kernels.get(1).factory().create(null)) {
                toHost.compute(down);
            }
            assertEquals(STREAM, fake.last(K_STREAM));
            assertArrayEquals(values, down.output().data().toArray(JAVA_FLOAT));
            CudaTransferCounters.Snapshot after = CudaTransferCounters.snapshot();
            assertEquals(1, after.hostToDevice() - before.hostToDevice());
            assertEquals(1, after.deviceToHost() - before.deviceToHost());
            assertEquals(40, after.bytes() - before.bytes());
            driver.memFree(onDevice.data().address());
        }
    }

    @Test
    void anEmptyTensorIsNotCopied() {
        device.makeCurrent();
        driver.memsetD8Async(0, (byte) 0, 0, 0x5EED); // marks the stream the fake saw last
        Tensor empty = new CopyContext.Plain(ElementType.INT64, new long[] {0, 3}, MemorySegment.NULL);
        CopyContext up = new CopyContext(empty, bytes -> MemorySegment.NULL, STREAM);
        new CudaCopyKernels.HostToDevice(device).compute(up);
        assertArrayEquals(new long[] {0, 3}, up.output().shape());
        assertEquals(0x5EED, fake.last(K_STREAM), "no copy reached the driver");
    }
}
