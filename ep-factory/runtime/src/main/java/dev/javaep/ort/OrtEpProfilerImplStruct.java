package dev.javaep.ort;

import static dev.javaep.ort.CTypes.INT64;
import static dev.javaep.ort.CTypes.POINTER;
import static dev.javaep.ort.CTypes.STATUS;
import static dev.javaep.ort.CTypes.UINT64;

import java.lang.foreign.FunctionDescriptor;

/**
 * {@code struct OrtEpProfilerImpl} (onnxruntime_ep_c_api.h, API 25, unchanged to API 30): 48 bytes, the leading
 * {@code uint32_t ort_version_supported} then five function pointers. ORT gets it from {@code OrtEp::CreateProfiler}
 * when a session profiles, and calls {@code Release} when it no longer needs it.
 */
public enum OrtEpProfilerImplStruct implements CallbackSlot {
    Release(8, 25, FunctionDescriptor.ofVoid(POINTER)),
    /** (this, int64_t ep_profiling_start_offset_ns) */
    StartProfiling(16, 25, FunctionDescriptor.of(STATUS, POINTER, INT64)),
    /** Optional: (this, uint64_t ort_event_correlation_id) */
    StartEvent(24, 25, FunctionDescriptor.of(STATUS, POINTER, UINT64)),
    /** Optional: (this, uint64_t ort_event_correlation_id, const OrtProfilingEvent* ort_event) */
    StopEvent(32, 25, FunctionDescriptor.of(STATUS, POINTER, UINT64, POINTER)),
    /** (this, OrtProfilingEventsContainer*) */
    EndProfiling(40, 25, FunctionDescriptor.of(STATUS, POINTER, POINTER));

    public static final long SIZE = 48;

    private final long byteOffset;
    private final int since;
    private final FunctionDescriptor descriptor;

    OrtEpProfilerImplStruct(long byteOffset, int since, FunctionDescriptor descriptor) {
        this.byteOffset = byteOffset;
        this.since = since;
        this.descriptor = descriptor;
    }

    @Override public long byteOffset() { return byteOffset; }
    @Override public int since() { return since; }
    @Override public FunctionDescriptor descriptor() { return descriptor; }
    @Override public boolean returnsStatus() { return CTypes.returnsStatus(descriptor); }
}
