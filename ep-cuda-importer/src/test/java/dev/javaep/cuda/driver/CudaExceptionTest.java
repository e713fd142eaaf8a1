package dev.javaep.cuda.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CudaExceptionTest {

    @Test
    void messageNamesSymbolCodeAndText() {
        CudaException e = new CudaException("cuMemAlloc_v2", 2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory");
        assertEquals("cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory", e.getMessage());
        assertEquals(2, e.result());
        assertEquals("CUDA_ERROR_OUT_OF_MEMORY", e.errorName());
        assertEquals("cuMemAlloc_v2", e.function());
        assertEquals("out of memory", e.description());
    }

    @Test
    void detailGoesOnItsOwnLines() {
        CudaException e = new CudaException("cuModuleLoadDataEx", 218, "CUDA_ERROR_INVALID_PTX",
                "a PTX JIT compilation failed", "JIT log:\nptxas fatal : Unresolved extern function 'f'\n");
        assertEquals("cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX (218): a PTX JIT compilation failed\n"
                + "JIT log:\nptxas fatal : Unresolved extern function 'f'", e.getMessage());
        assertEquals("x failed: N (1): d", new CudaException("x", 1, "N", "d", "  ").getMessage());
    }

    @Test
    void fallbackTableKnowsEveryCodeOfCuda13() {
        assertEquals("CUDA_SUCCESS", CudaErrors.name(0));
        assertEquals("CUDA_ERROR_OUT_OF_MEMORY", CudaErrors.name(2));
        assertEquals("CUDA_ERROR_STUB_LIBRARY", CudaErrors.name(34));
        assertEquals("CUDA_ERROR_NO_DEVICE", CudaErrors.name(100));
        assertEquals("CUDA_ERROR_INVALID_PTX", CudaErrors.name(218));
        assertEquals("CUDA_ERROR_NOT_READY", CudaErrors.name(CudaConstants.CUDA_ERROR_NOT_READY));
        assertEquals("CUDA_ERROR_ILLEGAL_ADDRESS", CudaErrors.name(700));
        assertEquals("CUDA_ERROR_KEY_ROTATION", CudaErrors.name(916));
        assertEquals("CUDA_ERROR_UNKNOWN", CudaErrors.name(999));
        assertEquals("out of memory", CudaErrors.description(2));
        assertEquals("no CUDA-capable device is detected", CudaErrors.description(100));
        assertTrue(CudaErrors.isKnown(719));
    }

    @Test
    void fallbackTableSaysWhenItDoesNotKnow() {
        assertFalse(CudaErrors.isKnown(12345));
        assertEquals("CUresult 12345", CudaErrors.name(12345));
        assertEquals("no description available", CudaErrors.description(12345));
        assertEquals("no description available", CudaErrors.description(913));
    }
}
