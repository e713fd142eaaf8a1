package dev.javaep.validation;

import dev.javaep.ort.CallbackSlot;
import dev.javaep.ort.OrtAllocatorStruct;
import dev.javaep.ort.OrtDataTransferImplStruct;
import dev.javaep.ort.OrtEpFactoryStruct;
import dev.javaep.ort.OrtEpProfilerImplStruct;
import dev.javaep.ort.OrtEpStruct;
import dev.javaep.ort.OrtExternalMemoryHandleStruct;
import dev.javaep.ort.OrtExternalResourceImporterImplStruct;
import dev.javaep.ort.OrtExternalSemaphoreHandleStruct;
import dev.javaep.ort.OrtKernelImplStruct;
import dev.javaep.ort.OrtNodeComputeInfoStruct;
import dev.javaep.ort.OrtSyncNotificationImplStruct;
import dev.javaep.ort.OrtSyncStreamImplStruct;
import java.util.List;
import java.util.Set;

/**
 * The kinds of EP-owned object the layer proxies: the struct (its slots, its size) and which of its slots ORT calls
 * without a NULL check at the version the vendor declares (a NULL there is a crash waiting in ORT).
 */
enum ObjectKind {
    FACTORY(OrtEpFactoryStruct.class, OrtEpFactoryStruct.SIZE, Set.of(OrtEpFactoryStruct.GetName,
            OrtEpFactoryStruct.GetVendor, OrtEpFactoryStruct.GetSupportedDevices, OrtEpFactoryStruct.CreateEp,
            OrtEpFactoryStruct.ReleaseEp, OrtEpFactoryStruct.GetVendorId, OrtEpFactoryStruct.GetVersion)),
    EP(OrtEpStruct.class, OrtEpStruct.SIZE, Set.of(OrtEpStruct.GetName, OrtEpStruct.GetCapability)),
    NODE_COMPUTE_INFO(OrtNodeComputeInfoStruct.class, OrtNodeComputeInfoStruct.SIZE, Set.of(
            OrtNodeComputeInfoStruct.CreateState, OrtNodeComputeInfoStruct.Compute, OrtNodeComputeInfoStruct.ReleaseState)),
    ALLOCATOR(OrtAllocatorStruct.class, OrtAllocatorStruct.SIZE, Set.of(OrtAllocatorStruct.Alloc, OrtAllocatorStruct.Free,
            OrtAllocatorStruct.Info)),
    DATA_TRANSFER(OrtDataTransferImplStruct.class, OrtDataTransferImplStruct.SIZE,
            Set.of(OrtDataTransferImplStruct.values())),
    SYNC_STREAM(OrtSyncStreamImplStruct.class, OrtSyncStreamImplStruct.SIZE, Set.of(OrtSyncStreamImplStruct.values())),
    SYNC_NOTIFICATION(OrtSyncNotificationImplStruct.class, OrtSyncNotificationImplStruct.SIZE,
            Set.of(OrtSyncNotificationImplStruct.values())),
    /**
     * ORT's interop API (interop_api.cc) checks every importer slot and each handle's {@code Release} for NULL before
     * calling it (a NULL slot is "not supported"), so none is required.
     */
    IMPORTER(OrtExternalResourceImporterImplStruct.class, OrtExternalResourceImporterImplStruct.SIZE, Set.of()),
    /** An imported memory handle: data fields (device, descriptor) before its one slot, copied into the proxy. */
    MEMORY_HANDLE(OrtExternalMemoryHandleStruct.class, OrtExternalMemoryHandleStruct.SIZE, Set.of()),
    SEMAPHORE_HANDLE(OrtExternalSemaphoreHandleStruct.class, OrtExternalSemaphoreHandleStruct.SIZE, Set.of()),
    /**
     * A kernel of a kernel-registry EP, made by the vendor's {@code OrtKernelCreateFunc} ({@link KernelCreations}).
     * ORT's {@code PluginEpOpKernel} calls Compute and Release without a check; PrePackWeight and
     * SetSharedPrePackedWeight are optional.
     */
    KERNEL(OrtKernelImplStruct.class, OrtKernelImplStruct.SIZE, Set.of(OrtKernelImplStruct.Compute,
            OrtKernelImplStruct.Release)),
    /**
     * An EP's profiler ({@code OrtEp::CreateProfiler}, API 25). ORT's {@code PluginEpProfiler} refuses one without
     * Release, StartProfiling or EndProfiling (a status, not a crash) and checks StartEvent and StopEvent before each
     * call, so none is required here.
     */
    PROFILER(OrtEpProfilerImplStruct.class, OrtEpProfilerImplStruct.SIZE, Set.of());

    final List<CallbackSlot> slots;
    final long size;
    final Set<? extends CallbackSlot> required;
    /** The C struct's name, as callbacks are named in reports ({@code OrtEp::Compile}). */
    final String structName;

    ObjectKind(Class<? extends Enum<? extends CallbackSlot>> slotClass, long size, Set<? extends CallbackSlot> required) {
        this.slots = List.of((CallbackSlot[]) slotClass.getEnumConstants());
        this.size = size;
        this.required = required;
        this.structName = slotClass.getSimpleName().replace("Struct", "");
    }

    /** An imported handle: made by an importer, and named by arguments of its importer's calls. */
    boolean isImportedHandle() {
        return this == MEMORY_HANDLE || this == SEMAPHORE_HANDLE;
    }

    String callbackName(CallbackSlot slot) {
        return structName + "::" + slot.name();
    }
}
