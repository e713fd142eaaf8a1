package dev.javaep.bridge;

import dev.javaep.ort.OrtEpApi;
import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtException;
import dev.javaep.ort.OrtKernelCreateFunc;
import dev.javaep.ort.OrtMemType;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.EpLog;
import dev.javaep.spi.KernelDefinition;
import dev.javaep.spi.OpKernel;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One EP's per-op kernels ({@link KernelDefinition}s) as ORT's {@code OrtKernelRegistry}, built once per EP
 * on ORT's first {@code OrtEp::GetKernelRegistry} call and closed with the EP.
 *
 * <p>Ownership, as ORT's {@code ep_api.cc} and {@code ep_kernel_registration.cc} (1.24+) define it: the EP
 * owns the registry it creates (ORT copies it on every {@code GetKernelRegistry} call) and the kernel
 * definitions it builds ({@code KernelRegistry_AddKernel} copies them, so they are released right after
 * being added). ORT keeps the kernel-create function and its state pointer: each definition gets a
 * distinct state address, owned by this bridge, that names the definition to {@link #create}; it stays
 * registered until the EP is released, which is after the session that creates kernels.
 */
final class KernelRegistryBridge {
    private static final HandleRegistry<KernelCreation> STATES = new HandleRegistry<>("OrtKernelCreateFunc state");
    /** One stub for every EP's kernels, for the life of the process; the state pointer tells them apart. */
    private static final MemorySegment CREATE_KERNEL = UpcallGuard.stub(OrtKernelCreateFunc.Create,
            Upcalls.find(MethodHandles.lookup(), KernelRegistryBridge.class, OrtKernelCreateFunc.Create), Arena.global());

    /** What the kernel-create callback needs to create one definition's kernel for a node. */
    private record KernelCreation(String epName, KernelDefinition definition, OrtRuntime runtime, KernelMemory memory) {}

    private final OrtEpApi epApi;
    private final MemorySegment registry;
    private final Arena arena = Arena.ofShared();
    private final List<MemorySegment> states = new ArrayList<>();

    private KernelRegistryBridge(OrtEpApi epApi, MemorySegment registry) {
        this.epApi = epApi;
        this.registry = registry;
    }

    /**
     * Registers {@code kernels} for the EP named {@code epName}. Throws, releasing what it created, when ORT
     * refuses a definition (an unknown element type, two definitions for the same op and versions).
     *
     * @param memory where the EP's kernels read and write tensors (host inputs aside)
     */
    static KernelRegistryBridge build(String epName, List<KernelDefinition> kernels, OrtRuntime runtime,
                                      KernelMemory memory) {
        KernelRegistryBridge bridge = new KernelRegistryBridge(runtime.epApi(), runtime.epApi().createKernelRegistry());
        try {
            for (KernelDefinition definition : kernels) {
                if (definition == null) {
                    throw new IllegalArgumentException("javaep: " + epName + ".kernels() lists a null kernel definition");
                }
                bridge.add(new KernelCreation(epName, definition, runtime, memory));
            }
        } catch (RuntimeException | Error e) {
            bridge.close();
            throw e;
        }
        return bridge;
    }

    /** The {@code OrtKernelRegistry*} ORT copies. */
    MemorySegment registry() {
        return registry;
    }

    /** Unregisters the states and releases the registry; kernels ORT already created live on until ORT releases them. */
    void close() {
        for (MemorySegment state : states) {
            STATES.remove(state);
        }
        try {
            epApi.releaseKernelRegistry(registry);
        } finally {
            arena.close();
        }
    }

    private void add(KernelCreation creation) {
        KernelDefinition definition = creation.definition();
        // The state's address is the key: one byte is enough to make it distinct.
        MemorySegment state = arena.allocate(1);
        STATES.register(state, creation);
        states.add(state);
        MemorySegment builder = epApi.createKernelDefBuilder();
        try {
            epApi.kernelDefBuilderSetOperatorType(builder, definition.opType());
            epApi.kernelDefBuilderSetDomain(builder, definition.domain());
            epApi.kernelDefBuilderSetSinceVersion(builder, definition.sinceVersion(), definition.lastVersion());
            // ORT matches kernels to nodes by the EP's name (OrtEp::GetName).
            epApi.kernelDefBuilderSetExecutionProvider(builder, creation.epName());
            for (int input : sorted(definition.hostInputs())) {
                epApi.kernelDefBuilderSetInputMemType(builder, input, OrtMemType.CPU_INPUT);
            }
            for (int output : sorted(definition.hostOutputs())) {
                epApi.kernelDefBuilderSetOutputMemType(builder, output, OrtMemType.CPU_OUTPUT);
            }
            for (Map.Entry<String, Set<ElementType>> constraint : new TreeMap<>(definition.typeConstraints()).entrySet()) {
                List<MemorySegment> types = new ArrayList<>();
                List<ElementType> unknownToOrt = new ArrayList<>();
                for (ElementType type : constraint.getValue().stream().sorted().toList()) {
                    try {
                        types.add(epApi.tensorDataType(type.onnxValue()));
                    } catch (OrtException e) {
                        unknownToOrt.add(type); // e.g. COMPLEX64: no ORT build has tensors of it
                    }
                }
                if (types.isEmpty()) {
                    throw new OrtException(OrtErrorCode.INVALID_ARGUMENT, "type constraint " + constraint.getKey()
                            + " allows only types this ONNX Runtime has no tensors of: " + unknownToOrt);
                }
                if (!unknownToOrt.isEmpty()) {
                    EpLog.verbose("javaep: " + creation.epName() + "'s kernel " + describe(definition)
                            + ": this ONNX Runtime has no tensors of " + unknownToOrt + "; constraint "
                            + constraint.getKey() + " keeps the other types");
                }
                epApi.kernelDefBuilderAddTypeConstraint(builder, constraint.getKey(), types);
            }
            MemorySegment kernelDef = epApi.kernelDefBuilderBuild(builder);
            try {
                epApi.kernelRegistryAddKernel(registry, kernelDef, CREATE_KERNEL, state);
            } finally {
                epApi.releaseKernelDef(kernelDef); // the registry holds a copy
            }
        } catch (OrtException e) {
            throw new OrtException(e.code(), "javaep: " + creation.epName() + " cannot register its kernel "
                    + describe(definition) + ": " + e.getMessage(), e);
        } finally {
            epApi.releaseKernelDefBuilder(builder);
        }
    }

    private static List<Integer> sorted(Set<Integer> indices) {
        return indices.stream().sorted(Comparator.naturalOrder()).toList();
    }

    private static String describe(RuntimeException e) {
        return e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    private static String describe(KernelDefinition definition) {
        return (definition.domain().isEmpty() ? "" : definition.domain() + ".") + definition.opType() + " (opset "
                + definition.sinceVersion() + ".." + definition.lastVersion()
                + ")";
    }

    // ---- upcall (behind UpcallGuard) -------------------------------------------------------------

    /**
     * {@code OrtKernelCreateFunc}: creates the kernel of the definition {@code state} names for the node
     * {@code info} describes. On success ORT owns the returned {@code OrtKernelImpl}.
     */
    static MemorySegment create(MemorySegment state, MemorySegment info, MemorySegment kernelOut) {
        MemorySegment out = kernelOut.reinterpret(ValueLayout.ADDRESS.byteSize());
        out.set(ValueLayout.ADDRESS, 0, MemorySegment.NULL);
        KernelCreation creation = STATES.get(state);
        KernelDefinition definition = creation.definition();
        KernelInfoView view = new KernelInfoView(creation.runtime().api(), info);
        String nodeName;
        String description;
        OpKernel kernel;
        try {
            nodeName = view.nodeName();
            description = OpKernelBridge.describe(creation.epName(), definition.opType(), nodeName);
            try {
                kernel = definition.factory().create(view);
            } catch (RuntimeException e) {
                throw new OrtException(UpcallGuard.errorCodeOf(e),
                        "javaep: " + description + " could not be created: " + describe(e), e);
            }
        } finally {
            view.invalidate();
        }
        if (kernel == null) {
            throw new IllegalStateException("javaep: " + description
                    + ": OpKernel.Factory.create returned null (throw to refuse a node instead)");
        }
        try {
            out.set(ValueLayout.ADDRESS, 0, OpKernelBridge.create(kernel, creation.runtime(), creation.memory(),
                    definition.hostInputs(), creation.epName(), definition.opType(), nodeName));
        } catch (RuntimeException | Error e) {
            try {
                kernel.close();
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        return MemorySegment.NULL;
    }
}
