package dev.javaep.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.javaep.cuda.driver.CudaDriver;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Test-only: a kernel that stores to device address 8, which no allocation ever maps. On a GPU the store
 * faults with {@code CUDA_ERROR_ILLEGAL_ADDRESS}, a sticky error that makes the context unusable for the
 * rest of the process; the stand-in libcuda plays the same part for its {@code fault_store}. The launch
 * itself succeeds: the fault surfaces at the next call that waits on the stream or queues work in the context.
 */
final class FaultingKernel {
    /** {@code fault_store(u64 address)}: {@code *(u32 *) address = 42}, one thread. */
    static final String PTX = """
            .version 7.0
            .target sm_52
            .address_size 64

            .visible .entry fault_store(
                .param .u64 fault_store_param_address
            )
            {
                .reg .b32   %r<2>;
                .reg .b64   %rd<2>;

                ld.param.u64    %rd1, [fault_store_param_address];
                mov.u32         %r1, 42;
                st.global.u32   [%rd1], %r1;
                ret;
            }
            """;

    /** The address stored to: below every allocation, on every GPU. */
    static final long UNMAPPED = 8;

    private FaultingKernel() {}

    /** Queues the faulting store on {@code stream} in {@code device}'s context and returns at once. */
    static void launch(CudaDevice device, long stream) {
        device.makeCurrent();
        CudaDriver driver = device.driver();
        // Not unloaded: the module's kernel is still queued, and the context is about to be lost anyway.
        long function = driver.moduleGetFunction(driver.moduleLoadData(PTX), "fault_store");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment params = arena.allocate(ADDRESS, 1);
            params.setAtIndex(ADDRESS, 0, arena.allocateFrom(JAVA_LONG, UNMAPPED));
            driver.launchKernel(function, 1, 1, 1, 1, 1, 1, 0, stream, params);
        }
    }
}
