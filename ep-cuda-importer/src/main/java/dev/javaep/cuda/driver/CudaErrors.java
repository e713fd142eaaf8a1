package dev.javaep.cuda.driver;

import java.util.Map;

/**
 * What a {@code CUresult} is called when the driver cannot say: {@code cuGetErrorName} and
 * {@code cuGetErrorString} are the source of truth, but they are missing from a stub or a broken
 * driver, and the message of a failed {@code cuInit} must still read well. Names cover every code of
 * CUDA 13.0's {@code cuda.h}; descriptions only the common codes (the driver's wording as of CUDA 12/13).
 */
public final class CudaErrors {
    private CudaErrors() {}

    private static final Map<Integer, String> NAMES = Map.ofEntries(
            Map.entry(0, "CUDA_SUCCESS"),
            Map.entry(1, "CUDA_ERROR_INVALID_VALUE"),
            Map.entry(2, "CUDA_ERROR_OUT_OF_MEMORY"),
            Map.entry(3, "CUDA_ERROR_NOT_INITIALIZED"),
            Map.entry(4, "CUDA_ERROR_DEINITIALIZED"),
            Map.entry(5, "CUDA_ERROR_PROFILER_DISABLED"),
            Map.entry(6, "CUDA_ERROR_PROFILER_NOT_INITIALIZED"),
            Map.entry(7, "CUDA_ERROR_PROFILER_ALREADY_STARTED"),
            Map.entry(8, "CUDA_ERROR_PROFILER_ALREADY_STOPPED"),
            Map.entry(34, "CUDA_ERROR_STUB_LIBRARY"),
            Map.entry(36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"),
            Map.entry(46, "CUDA_ERROR_DEVICE_UNAVAILABLE"),
            Map.entry(100, "CUDA_ERROR_NO_DEVICE"),
            Map.entry(101, "CUDA_ERROR_INVALID_DEVICE"),
            Map.entry(102, "CUDA_ERROR_DEVICE_NOT_LICENSED"),
            Map.entry(200, "CUDA_ERROR_INVALID_IMAGE"),
            Map.entry(201, "CUDA_ERROR_INVALID_CONTEXT"),
            Map.entry(202, "CUDA_ERROR_CONTEXT_ALREADY_CURRENT"),
            Map.entry(205, "CUDA_ERROR_MAP_FAILED"),
            Map.entry(206, "CUDA_ERROR_UNMAP_FAILED"),
            Map.entry(207, "CUDA_ERROR_ARRAY_IS_MAPPED"),
            Map.entry(208, "CUDA_ERROR_ALREADY_MAPPED"),
            Map.entry(209, "CUDA_ERROR_NO_BINARY_FOR_GPU"),
            Map.entry(210, "CUDA_ERROR_ALREADY_ACQUIRED"),
            Map.entry(211, "CUDA_ERROR_NOT_MAPPED"),
            Map.entry(212, "CUDA_ERROR_NOT_MAPPED_AS_ARRAY"),
            Map.entry(213, "CUDA_ERROR_NOT_MAPPED_AS_POINTER"),
            Map.entry(214, "CUDA_ERROR_ECC_UNCORRECTABLE"),
            Map.entry(215, "CUDA_ERROR_UNSUPPORTED_LIMIT"),
            Map.entry(216, "CUDA_ERROR_CONTEXT_ALREADY_IN_USE"),
            Map.entry(217, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED"),
            Map.entry(218, "CUDA_ERROR_INVALID_PTX"),
            Map.entry(219, "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT"),
            Map.entry(220, "CUDA_ERROR_NVLINK_UNCORRECTABLE"),
            Map.entry(221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND"),
            Map.entry(222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"),
            Map.entry(223, "CUDA_ERROR_JIT_COMPILATION_DISABLED"),
            Map.entry(224, "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY"),
            Map.entry(225, "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC"),
            Map.entry(226, "CUDA_ERROR_CONTAINED"),
            Map.entry(300, "CUDA_ERROR_INVALID_SOURCE"),
            Map.entry(301, "CUDA_ERROR_FILE_NOT_FOUND"),
            Map.entry(302, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND"),
            Map.entry(303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED"),
            Map.entry(304, "CUDA_ERROR_OPERATING_SYSTEM"),
            Map.entry(400, "CUDA_ERROR_INVALID_HANDLE"),
            Map.entry(401, "CUDA_ERROR_ILLEGAL_STATE"),
            Map.entry(402, "CUDA_ERROR_LOSSY_QUERY"),
            Map.entry(500, "CUDA_ERROR_NOT_FOUND"),
            Map.entry(600, "CUDA_ERROR_NOT_READY"),
            Map.entry(700, "CUDA_ERROR_ILLEGAL_ADDRESS"),
            Map.entry(701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"),
            Map.entry(702, "CUDA_ERROR_LAUNCH_TIMEOUT"),
            Map.entry(703, "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING"),
            Map.entry(704, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED"),
            Map.entry(705, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED"),
            Map.entry(708, "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE"),
            Map.entry(709, "CUDA_ERROR_CONTEXT_IS_DESTROYED"),
            Map.entry(710, "CUDA_ERROR_ASSERT"),
            Map.entry(711, "CUDA_ERROR_TOO_MANY_PEERS"),
            Map.entry(712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED"),
            Map.entry(713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED"),
            Map.entry(714, "CUDA_ERROR_HARDWARE_STACK_ERROR"),
            Map.entry(715, "CUDA_ERROR_ILLEGAL_INSTRUCTION"),
            Map.entry(716, "CUDA_ERROR_MISALIGNED_ADDRESS"),
            Map.entry(717, "CUDA_ERROR_INVALID_ADDRESS_SPACE"),
            Map.entry(718, "CUDA_ERROR_INVALID_PC"),
            Map.entry(719, "CUDA_ERROR_LAUNCH_FAILED"),
            Map.entry(720, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"),
            Map.entry(721, "CUDA_ERROR_TENSOR_MEMORY_LEAK"),
            Map.entry(800, "CUDA_ERROR_NOT_PERMITTED"),
            Map.entry(801, "CUDA_ERROR_NOT_SUPPORTED"),
            Map.entry(802, "CUDA_ERROR_SYSTEM_NOT_READY"),
            Map.entry(803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"),
            Map.entry(804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"),
            Map.entry(805, "CUDA_ERROR_MPS_CONNECTION_FAILED"),
            Map.entry(806, "CUDA_ERROR_MPS_RPC_FAILURE"),
            Map.entry(807, "CUDA_ERROR_MPS_SERVER_NOT_READY"),
            Map.entry(808, "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED"),
            Map.entry(809, "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED"),
            Map.entry(810, "CUDA_ERROR_MPS_CLIENT_TERMINATED"),
            Map.entry(811, "CUDA_ERROR_CDP_NOT_SUPPORTED"),
            Map.entry(812, "CUDA_ERROR_CDP_VERSION_MISMATCH"),
            Map.entry(900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"),
            Map.entry(901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"),
            Map.entry(902, "CUDA_ERROR_STREAM_CAPTURE_MERGE"),
            Map.entry(903, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED"),
            Map.entry(904, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED"),
            Map.entry(905, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION"),
            Map.entry(906, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT"),
            Map.entry(907, "CUDA_ERROR_CAPTURED_EVENT"),
            Map.entry(908, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD"),
            Map.entry(909, "CUDA_ERROR_TIMEOUT"),
            Map.entry(910, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE"),
            Map.entry(911, "CUDA_ERROR_EXTERNAL_DEVICE"),
            Map.entry(912, "CUDA_ERROR_INVALID_CLUSTER_SIZE"),
            Map.entry(913, "CUDA_ERROR_FUNCTION_NOT_LOADED"),
            Map.entry(914, "CUDA_ERROR_INVALID_RESOURCE_TYPE"),
            Map.entry(915, "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION"),
            Map.entry(916, "CUDA_ERROR_KEY_ROTATION"),
            Map.entry(999, "CUDA_ERROR_UNKNOWN"));

    private static final Map<Integer, String> DESCRIPTIONS = Map.ofEntries(
            Map.entry(0, "no error"),
            Map.entry(1, "invalid argument"),
            Map.entry(2, "out of memory"),
            Map.entry(3, "initialization error"),
            Map.entry(4, "driver shutting down"),
            Map.entry(34, "CUDA driver is a stub library"),
            Map.entry(46, "CUDA-capable device(s) is/are busy or unavailable"),
            Map.entry(100, "no CUDA-capable device is detected"),
            Map.entry(101, "invalid device ordinal"),
            Map.entry(200, "device kernel image is invalid"),
            Map.entry(201, "invalid device context"),
            Map.entry(209, "no kernel image is available for execution on the device"),
            Map.entry(218, "a PTX JIT compilation failed"),
            Map.entry(221, "PTX JIT compiler library not found"),
            Map.entry(222, "the provided PTX was compiled with an unsupported toolchain."),
            Map.entry(304, "OS call failed or operation not supported on this OS"),
            Map.entry(400, "invalid resource handle"),
            Map.entry(500, "named symbol not found"),
            Map.entry(600, "device not ready"),
            Map.entry(700, "an illegal memory access was encountered"),
            Map.entry(701, "too many resources requested for launch"),
            Map.entry(702, "the launch timed out and was terminated"),
            Map.entry(719, "unspecified launch failure"),
            Map.entry(801, "operation not supported"),
            Map.entry(803, "system has unsupported display driver / cuda driver combination"),
            Map.entry(804, "forward compatibility was attempted on non supported HW"),
            Map.entry(999, "unknown error"));

    /**
     * The codes {@code cuda.h} documents as sticky ("leaves the process in an inconsistent state and any
     * further CUDA work will return the same error"), plus the uncorrectable ECC and NVLink errors: after
     * one of them the context cannot run anything again. The value says why, in a user's words.
     */
    private static final Map<Integer, String> CONTEXT_LOSS_CAUSES = Map.ofEntries(
            Map.entry(214, "the GPU reported an uncorrectable ECC error"),
            Map.entry(220, "the GPU reported an uncorrectable NVLink error"),
            Map.entry(226, "the GPU contained a hardware error or an invalid access"),
            Map.entry(700, "a kernel faulted"),
            Map.entry(702, "a kernel ran past the display watchdog's time limit"),
            Map.entry(710, "a device-side assert failed"),
            Map.entry(714, "a kernel faulted"),
            Map.entry(715, "a kernel faulted"),
            Map.entry(716, "a kernel faulted"),
            Map.entry(717, "a kernel faulted"),
            Map.entry(718, "a kernel faulted"),
            Map.entry(719, "a kernel faulted"),
            Map.entry(721, "a kernel exited without freeing its tensor memory"),
            Map.entry(810, "the MPS server terminated this client"),
            Map.entry(911, "an external device signalled an error"));

    /**
     * Why {@code result} leaves the context that returned it unusable for the rest of the process
     * (e.g. {@code "a kernel faulted"} for {@code CUDA_ERROR_ILLEGAL_ADDRESS}), or null when it does not.
     */
    public static String contextLossCause(int result) {
        return CONTEXT_LOSS_CAUSES.get(result);
    }

    /** The {@code cuda.h} enum name, or {@code "CUresult <n>"} for a code this table does not know. */
    public static String name(int result) {
        String name = NAMES.get(result);
        return name != null ? name : "CUresult " + result;
    }

    /** A short description, or {@code "no description available"} for codes outside the common set. */
    public static String description(int result) {
        String description = DESCRIPTIONS.get(result);
        return description != null ? description : "no description available";
    }

    /** Whether the table knows this code's name. */
    public static boolean isKnown(int result) {
        return NAMES.containsKey(result);
    }
}
