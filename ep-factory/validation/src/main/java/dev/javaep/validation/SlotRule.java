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

/**
 * What the layer does around one slot besides timing it and reading a failed status: which argument is an
 * out-parameter it wraps in a proxy, which names an object it translates back to the vendor's, which result it checks.
 *
 * @param creates  the kind of object the out-parameter at {@code argument} receives (a create) or that it names (a
 *                 release, an imported handle's use, the handles a CanImport is about), or null
 * @param argument the (1-based, after {@code this}) argument the rule reads; 0 for none
 * @param required whether the out-parameter must be set on success (otherwise NULL means "none")
 */
record SlotRule(Action action, ObjectKind creates, int argument, boolean required) {
    enum Action { PLAIN, NON_NULL_RESULT, SUPPORTED_DEVICES, CREATE, COMPILE, RELEASE_CHILD, RELEASE_COMPUTE_INFOS,
        RELEASE_SELF, ALLOC, FREE, COMPUTE,
        /** An importer's CanImportMemory/CanImportSemaphore: the answer is kept ({@code creates}: which handles). */
        CAN_IMPORT,
        /** ImportMemory/ImportSemaphore: the descriptor checked, the handle wrapped, the answer to CanImport* held to. */
        IMPORT,
        /** A call on an imported handle ({@code creates}: its kind) at argument 1, translated to the vendor's. */
        USE_HANDLE }

    static final SlotRule PLAIN = new SlotRule(Action.PLAIN, null, 0, false);

    static SlotRule of(CallbackSlot slot) {
        return switch (slot) {
            case OrtEpFactoryStruct.GetName, OrtEpFactoryStruct.GetVendor, OrtEpFactoryStruct.GetVersion,
                 OrtEpStruct.GetName, OrtAllocatorStruct.Info -> simple(Action.NON_NULL_RESULT, 0);
            case OrtEpFactoryStruct.GetSupportedDevices -> simple(Action.SUPPORTED_DEVICES, 5);
            case OrtEpFactoryStruct.CreateEp -> new SlotRule(Action.CREATE, ObjectKind.EP, 6, true);
            case OrtEpFactoryStruct.ReleaseEp -> new SlotRule(Action.RELEASE_CHILD, ObjectKind.EP, 1, false);
            case OrtEpFactoryStruct.CreateAllocator -> new SlotRule(Action.CREATE, ObjectKind.ALLOCATOR, 3, true);
            case OrtEpStruct.CreateAllocator -> new SlotRule(Action.CREATE, ObjectKind.ALLOCATOR, 2, false);
            case OrtEpFactoryStruct.ReleaseAllocator -> new SlotRule(Action.RELEASE_CHILD, ObjectKind.ALLOCATOR, 1, false);
            case OrtEpFactoryStruct.CreateDataTransfer -> new SlotRule(Action.CREATE, ObjectKind.DATA_TRANSFER, 1, false);
            case OrtEpFactoryStruct.CreateSyncStreamForDevice -> new SlotRule(Action.CREATE, ObjectKind.SYNC_STREAM, 3, false);
            case OrtEpStruct.CreateSyncStreamForDevice -> new SlotRule(Action.CREATE, ObjectKind.SYNC_STREAM, 2, false);
            case OrtSyncStreamImplStruct.CreateNotification ->
                    new SlotRule(Action.CREATE, ObjectKind.SYNC_NOTIFICATION, 1, true);
            case OrtEpStruct.Compile -> new SlotRule(Action.COMPILE, ObjectKind.NODE_COMPUTE_INFO, 4, true);
            case OrtEpStruct.ReleaseNodeComputeInfos -> simple(Action.RELEASE_COMPUTE_INFOS, 1);
            case OrtDataTransferImplStruct.Release, OrtSyncStreamImplStruct.Release, OrtSyncNotificationImplStruct.Release ->
                    simple(Action.RELEASE_SELF, 0);
            case OrtAllocatorStruct.Alloc, OrtAllocatorStruct.Reserve, OrtAllocatorStruct.AllocOnStream ->
                    simple(Action.ALLOC, 1);
            case OrtAllocatorStruct.Free -> simple(Action.FREE, 1);
            case OrtNodeComputeInfoStruct.Compute -> simple(Action.COMPUTE, 1);
            case OrtEpFactoryStruct.CreateExternalResourceImporterForDevice ->
                    new SlotRule(Action.CREATE, ObjectKind.IMPORTER, 2, false);
            case OrtExternalMemoryHandleStruct.Release, OrtExternalSemaphoreHandleStruct.Release ->
                    simple(Action.RELEASE_SELF, 0);
            case OrtExternalResourceImporterImplStruct importer -> importer(importer);
            // a kernel's Compute may run on several threads at once (ORT's OpKernel::Compute is const: concurrent Runs
            // of one session share it), so unlike a compute state it is not watched for that
            case OrtKernelImplStruct.Release, OrtEpProfilerImplStruct.Release -> simple(Action.RELEASE_SELF, 0);
            case OrtEpStruct.CreateProfiler -> new SlotRule(Action.CREATE, ObjectKind.PROFILER, 1, false);
            default -> PLAIN;
        };
    }

    /** The importer's slots: each about its memory handles or its semaphore handles. */
    private static SlotRule importer(OrtExternalResourceImporterImplStruct slot) {
        ObjectKind handles = switch (slot) {
            case CanImportMemory, ImportMemory, ReleaseMemory, CreateTensorFromMemory -> ObjectKind.MEMORY_HANDLE;
            default -> ObjectKind.SEMAPHORE_HANDLE;
        };
        return switch (slot) {
            case CanImportMemory, CanImportSemaphore -> new SlotRule(Action.CAN_IMPORT, handles, 1, false);
            case ImportMemory, ImportSemaphore -> new SlotRule(Action.IMPORT, handles, 2, true);
            case ReleaseMemory, ReleaseSemaphore -> new SlotRule(Action.RELEASE_CHILD, handles, 1, false);
            case CreateTensorFromMemory, WaitSemaphore, SignalSemaphore -> new SlotRule(Action.USE_HANDLE, handles, 1, false);
            case Release -> simple(Action.RELEASE_SELF, 0);
        };
    }

    private static SlotRule simple(Action action, int argument) {
        return new SlotRule(action, null, argument, false);
    }
}
