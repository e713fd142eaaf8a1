package dev.javaep.cuda.driver;

/**
 * The {@code cuda.h} enum values javaep passes to the driver, under their C names so a reader can grep
 * the header for them. Checked against the header by {@code CudaHeaderCrossCheckTest} where gcc and
 * {@code cuda.h} are installed; enum values are ABI and never change between CUDA releases.
 */
public final class CudaConstants {
    private CudaConstants() {}

    // CUresult
    public static final int CUDA_SUCCESS = 0;
    public static final int CUDA_ERROR_NOT_READY = 600;

    // CUdevice_attribute
    public static final int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
    public static final int CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36;
    public static final int CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37;
    public static final int CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41;
    public static final int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
    public static final int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
    public static final int CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115;

    // CUstream_flags, CUevent_flags
    public static final int CU_STREAM_DEFAULT = 0;
    public static final int CU_STREAM_NON_BLOCKING = 1;
    public static final int CU_EVENT_DEFAULT = 0;
    public static final int CU_EVENT_BLOCKING_SYNC = 1;
    public static final int CU_EVENT_DISABLE_TIMING = 2;

    // CUstreamCaptureMode
    public static final int CU_STREAM_CAPTURE_MODE_RELAXED = 2;

    // CUmemPool_attribute
    public static final int CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4;

    // CUjit_option
    public static final int CU_JIT_INFO_LOG_BUFFER = 3;
    public static final int CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
    public static final int CU_JIT_ERROR_LOG_BUFFER = 5;
    public static final int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

    // flags of CUDA_EXTERNAL_MEMORY_HANDLE_DESC
    public static final int CUDA_EXTERNAL_MEMORY_DEDICATED = 1;
}
