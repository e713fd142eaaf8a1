package dev.javaep.cuda.dnn;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.javaep.cuda.driver.FakeCuda;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * cuDNN handles have a lifetime, over a stand-in libcudnn: one per CUDA context, made on first use, destroyed when the
 * context's device releases it (a later context at the same address gets a new one), kept but not destroyed for a
 * lost context; each context has a lock of its own.
 */
class CudnnHandlesTest {
    private static final long CONTEXT_A = 0xC0A;
    private static final long CONTEXT_B = 0xC0B;
    private static Cudnn cudnn;
    private static MethodHandle liveHandles;

    @BeforeAll
    static void bindTheStandIn() {
        Path so = FakeCuda.buildLibrary("fake_libcudnn.c", "libfakecudnn.so");
        SymbolLookup lookup = SymbolLookup.libraryLookup(so, Arena.global());
        cudnn = new Cudnn(lookup, "fake libcudnn");
        liveHandles = Linker.nativeLinker().downcallHandle(lookup.findOrThrow("fake_live_handles"),
                FunctionDescriptor.of(JAVA_LONG));
    }

    private static long live() throws Throwable {
        return (long) liveHandles.invokeExact();
    }

    @Test
    void aHandlePerContextLivesUntilItsDeviceReleasesIt() throws Throwable {
        long before = live();
        long a = cudnn.handle(CONTEXT_A, 0x5A);
        assertEquals(a, cudnn.handle(CONTEXT_A, 0x5B), "the same handle for the context's later calls");
        long b = cudnn.handle(CONTEXT_B, 0x5A);
        assertNotEquals(a, b, "a handle per context");
        assertEquals(before + 2, live());
        assertEquals(2, cudnn.handleCount());

        cudnn.release(CONTEXT_A, false);
        assertEquals(before + 1, live(), "cudnnDestroy with the device that owned the context");
        assertEquals(1, cudnn.handleCount());
        long again = cudnn.handle(CONTEXT_A, 0x5A);
        assertNotEquals(a, again, "a context at the same address later gets a new handle, not the destroyed one");

        cudnn.release(CONTEXT_A, true);
        assertEquals(before + 2, live(), "a lost context's handle is forgotten, not destroyed (it went with the context)");
        cudnn.release(CONTEXT_B, false);
        cudnn.release(CONTEXT_B, false); // twice: nothing left to release
        assertEquals(before + 1, live());
        assertEquals(0, cudnn.handleCount());
    }

    @Test
    void eachContextHasALockOfItsOwn() {
        Object a = cudnn.lock(CONTEXT_A);
        assertSame(a, cudnn.lock(CONTEXT_A));
        assertNotSame(a, cudnn.lock(CONTEXT_B), "convolutions on another GPU do not wait for this one's");
        assertNotSame(cudnn, a, "not the library-wide monitor");
        cudnn.release(CONTEXT_A, false);
        cudnn.release(CONTEXT_B, false);
    }
}
