package dev.javaep.cuda.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/** {@link CudaDriver#load()} where there is no NVIDIA driver: the message must say so and name the fix. */
class CudaDriverLoadTest {

    private static String driverLibraryPresent() {
        try {
            return CudaLibrary.find().description();
        } catch (CudaUnavailableException e) {
            return null;
        }
    }

    @Test
    void loadWithoutDriverSaysTheLibraryIsMissing() {
        String present = driverLibraryPresent();
        assumeTrue(present == null, "a CUDA driver library is installed here (" + present
                + "): this test covers machines without one; CudaDriverGpuTest covers this one");

        CudaUnavailableException e = assertThrows(CudaUnavailableException.class, CudaDriver::load);
        String library = CudaLibrary.libraryName();
        assertTrue(e.getMessage().startsWith(library + " not found: no NVIDIA driver installed"), e.getMessage());
        assertTrue(e.getMessage().contains("install the NVIDIA driver"), e.getMessage());

        CudaUnavailableException again = assertThrows(CudaUnavailableException.class, CudaDriver::load);
        assertEquals(e.getMessage(), again.getMessage(), "a failed load is remembered, not retried");
    }

    @Test
    void missingFunctionMessageNamesSymbolAndVersion() {
        assertEquals("11.2", CudaSymbols.version(11020));
        assertEquals("13.0", CudaSymbols.version(13000));
        assertEquals("9.2", CudaSymbols.version(9020));
    }
}
