package dev.javaep.bridge;

import dev.javaep.bridge.events.KernelComputeEvent;
import dev.javaep.ort.OrtException;
import dev.javaep.ort.OrtKernelImplStruct;
import dev.javaep.spi.FlightRecorder;
import dev.javaep.spi.OpKernel;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.util.EnumSet;
import java.util.Set;

/**
 * An {@code OrtKernelImpl} in front of one per-op {@link OpKernel}: created by the kernel-create callback
 * ({@link KernelRegistryBridge}) for one node, owned by ORT from then on and freed when ORT calls
 * {@code Release}. Independent of the EP bridge: ORT may release kernels before or after the EP.
 */
final class OpKernelBridge extends StructBridge {
    // PrePackWeight and SetSharedPrePackedWeight are optional; NULL tells ORT the kernel packs nothing.
    private static final EnumSet<OrtKernelImplStruct> IMPLEMENTED =
            EnumSet.of(OrtKernelImplStruct.Compute, OrtKernelImplStruct.Release);
    /** Package-private for the test of what the struct ORT gets holds. */
    static final CallbackStruct<OrtKernelImplStruct, OpKernelBridge> STRUCT =
            new CallbackStruct<>(OrtKernelImplStruct.class, MethodHandles.lookup(), IMPLEMENTED);

    private final OpKernel kernel;
    private final String description;
    /** What the Compute event names. */
    private final String epName;
    private final String opType;
    private final String nodeName;
    /** Each thread's view of its Compute calls' kernel context ({@link KernelContextView}). */
    private final ThreadLocal<KernelContextView> views;

    private OpKernelBridge(OpKernel kernel, OrtRuntime runtime, KernelMemory memory, Set<Integer> hostInputs,
                           String epName, String opType, String nodeName) {
        super(STRUCT, runtime);
        this.kernel = kernel;
        this.epName = epName;
        this.opType = opType;
        this.nodeName = nodeName;
        this.description = describe(epName, opType, nodeName);
        this.views = ThreadLocal.withInitial(() -> new KernelContextView(runtime, memory, hostInputs, description));
        STRUCT.register(this);
    }

    /** What failure messages call a kernel, e.g. "MyEp's Relu kernel for node 'relu0'". */
    static String describe(String epName, String opType, String nodeName) {
        return epName + "'s " + opType + " kernel for node '" + nodeName + "'";
    }

    /** @param hostInputs input indices the kernel's definition declared in host memory */
    static MemorySegment create(OpKernel kernel, OrtRuntime runtime, KernelMemory memory, Set<Integer> hostInputs,
                                String epName, String opType, String nodeName) {
        return new OpKernelBridge(kernel, runtime, memory, hostInputs, epName, opType, nodeName).struct;
    }

    // ---- upcalls (behind UpcallGuard) ------------------------------------------------------------

    /** Takes its pointers as long addresses ({@link UpcallGuard#stub}): this runs every Run. */
    static long compute(long self, long kernelContext) {
        long start = BridgeStatistics.start();
        KernelComputeEvent event = FlightRecorder.AVAILABLE ? KernelComputeEvent.beginIfRecorded() : null;
        OpKernelBridge bridge = STRUCT.get(self);
        try {
            bridge.kernel.compute(bridge.views.get().bind(kernelContext));
        } catch (OrtException e) {
            throw e; // javaep's own checks and EP authors' chosen statuses already say what failed
        } catch (RuntimeException e) {
            // One status per node: name the node, so a failed Run of a large model points at it.
            throw new OrtException(UpcallGuard.errorCodeOf(e), "javaep: " + bridge.description + " failed: "
                    + e.getClass().getSimpleName() + ": " + e.getMessage(), e);
        }
        if (event != null) {
            KernelComputeEvent.commit(event, bridge.epName, bridge.opType, bridge.nodeName);
        }
        BridgeStatistics.record(BridgeStatistics.Callback.COMPUTE, start);
        return 0L; // NULL: no status
    }

    /** {@code OrtKernelImpl::Release}: closes the kernel and frees the struct; unknown pointers are logged. */
    static void release(MemorySegment self) {
        STRUCT.releaseAndClose(self);
    }

    @Override
    void onRelease() {
        kernel.close();
    }
}
