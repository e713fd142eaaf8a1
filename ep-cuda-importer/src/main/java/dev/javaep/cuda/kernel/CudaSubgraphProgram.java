package dev.javaep.cuda.kernel;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.OrtGraphCapture;
import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.kernel.conv.ConvKernels;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Graph;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Node;
import dev.javaep.spi.StepProfiler;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.TensorValue;
import dev.javaep.spi.ValueInfo;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.IntStream;

/**
 * One fused group of JavaCuda nodes, run as a single Compute per Run: the group's nodes in topological
 * order, each queueing its kernels on the Run's stream. Values are wired by name at compile time into
 * slots: a step reads the fused node's inputs or earlier steps' outputs, writes a fused-node output
 * straight into ORT's tensor (later steps read it from there), and writes everything else into device
 * memory the EP owns.
 *
 * <p><b>Intermediates are planned, not allocated per value.</b> The first Run with a new set of input
 * shapes allocates each intermediate on the stream (cuMemAllocAsync) and frees it after its last reader,
 * recording the sizes; from them an {@link IntermediatePlan} places every intermediate in one workspace,
 * reusing a value's bytes once its last reader has run. Later Runs with the same input shapes take one
 * workspace of the plan's size from the device's memory pool on the Run's stream and return it at the end
 * of the Run (cuMemFreeAsync), so concurrent Runs never share a workspace and nothing waits on the host.
 * A Run whose intermediates outgrow the plan (a shape that depends on data) gives those values their own
 * allocation and replaces the plan after the Run.
 *
 * <p><b>Shape arithmetic runs on the host.</b> Models exported by PyTorch compute shapes at run time
 * (Shape → Gather → Unsqueeze → Concat → Reshape). Compile decides which values are <i>host values</i>: the
 * fused node's constant inputs whose value the model gives ({@link ValueInfo#value()}), the outputs of Shape
 * and Size, and the outputs of nodes whose inputs are all host values and whose outputs are int32, int64 or
 * bool (Gather, Concat, Unsqueeze, Slice, Add, Cast, Equal, Where, Range, ConstantOfShape, ...) or that are
 * elementwise arithmetic (a float scale computed from a shape), when JavaCpu has a kernel for the node. Those steps run on the host with JavaCpu's kernels ({@link CpuKernels})
 * and take no workspace; {@link CudaKernelContext#hostInput} returns their values without a copy. A device
 * kernel that reads a host value as a device tensor gets it uploaded on the Run's stream (from pageable memory,
 * which the driver stages before the call returns), as does a host value that is an output of the fused node.
 *
 * <p><b>Fusion and graphs.</b> Planning makes one step of each Conv and the one-expression activation that alone
 * reads it ({@link EpilogueFusion}); a Run with the input shapes and addresses of an earlier one replays that Run's
 * launches as a CUDA graph ({@link GraphReplay}).
 *
 * <p>Holds no per-Run state outside the call: plans are immutable and their cache is synchronised, so
 * concurrent Runs are safe; the group's graphs are shared, launched under a lock, and CUDA orders the launches of
 * one graph.
 */
public final class CudaSubgraphProgram implements CompiledNode {
    /**
     * Plans kept per compiled group, least recently used evicted: a model fed a few shapes (batch 1 and 8,
     * two resolutions) keeps all of them, and one fed ever-new shapes keeps a bounded amount of host memory
     * (a plan is two longs per intermediate) and re-records on the shapes it evicted.
     */
    static final int MAX_PLANS = 8;

    private static final int NONE = -1;

    /** Element types of shape arithmetic: a node producing only these from host values runs on the host. */
    private static final Set<ElementType> SHAPE_ARITHMETIC_TYPES = Set.of(ElementType.INT32, ElementType.INT64,
            ElementType.BOOL);
    /** Ops whose outputs are host values whatever their inputs are: they read only their input's shape. */
    private static final Set<String> SHAPE_READERS = Set.of("Shape", "Size");
    /**
     * Elementwise ops that run on host values of any type: their output is no larger than their inputs broadcast,
     * so a float computed from shapes (a Resize's sizes as Shape → Cast → Mul → Floor → Cast) stays on the host.
     * Generators (ConstantOfShape, Expand, Tile, Range) are not among them: {@code zeros_like(x)} is a
     * ConstantOfShape of x's shape, whose float output belongs on the device.
     */
    private static final Set<String> HOST_ELEMENTWISE = Set.of("Cast", "CastLike", "Add", "Sub", "Mul", "Div", "Neg",
            "Abs", "Floor", "Ceil", "Round", "Sqrt", "Reciprocal", "Min", "Max", "Clip");

    /**
     * One node: its device kernel, or ({@code hostKernel} set, {@code kernel} null) the JavaCpu kernel that
     * computes it on the host, and the slots of its inputs and outputs ({@link #NONE} for an omitted one).
     */
    private record Step(Node node, CompiledNode kernel, CpuKernel hostKernel, int[] inputSlots, int[] outputSlots,
                        int[] lastReadHere) {
        boolean onHost() {
            return hostKernel != null;
        }
    }

    private final CudaDevice device;
    private final String name;
    private final Step[] steps;
    private final int slotCount;
    private final int[] fusedInputSlots;
    /** Per slot: the fused node's output index it is, or {@link #NONE}. */
    private final int[] fusedOutputOf;
    /** Per slot: the intermediate it is, or {@link #NONE}. */
    private final int[] intermediateOf;
    private final ElementType[] intermediateTypes;
    private final int[] firstStep;
    private final int[] lastStep;
    /** Per slot: the constant's value in host memory (fused inputs the model gives a value for), or null. */
    private final HostTensor[] constants;
    /**
     * The native memory of {@link #constants}: closed with the program. An automatic arena would hold it until a GC,
     * which a steady application whose heap stays flat may not run for many session create/release cycles.
     */
    private final Arena constantMemory;
    private final boolean anyHostStep;
    private final PlanCache plans = new PlanCache();
    /** Host values a step asked for that existed only on the device (each a stream synchronisation). */
    private final AtomicLong deviceToHostCopies = new AtomicLong();
    /** CUDA events around the steps of profiled Runs ({@link #stepTimer()}); null until ORT profiles a Run. */
    private CudaStepTimer stepTimer;
    /** Per output of the fused node: the slot that holds it, or {@link #NONE} for an omitted one. */
    private final int[] outputSlots;
    /**
     * Per thread: the value array of the Run it computes (by slot), reused by its next Run rather than allocated per
     * Run; emptied when the Run ends. A thread computes one Run of a group at a time.
     */
    private final ThreadLocal<Tensor[]> runValues;
    /** Replays this group's launches as CUDA graphs; null where it is off or cannot ({@link GraphReplay#eligible}). */
    private final GraphReplay graphs;
    /** Whether every Run times its steps for {@link CudaStepBreakdown} (then no graphs). */
    private final boolean profileSteps = CudaStepBreakdown.enabled();

    private CudaSubgraphProgram(CudaDevice device, String name, Step[] steps, int slotCount, int[] fusedInputSlots,
                                int[] fusedOutputOf, int[] intermediateOf, ElementType[] intermediateTypes,
                                int[] firstStep, int[] lastStep, HostTensor[] constants, Arena constantMemory) {
        this.device = device;
        this.name = name;
        this.steps = steps;
        this.slotCount = slotCount;
        this.runValues = ThreadLocal.withInitial(() -> new Tensor[slotCount]);
        this.fusedInputSlots = fusedInputSlots;
        this.fusedOutputOf = fusedOutputOf;
        this.intermediateOf = intermediateOf;
        this.intermediateTypes = intermediateTypes;
        this.firstStep = firstStep;
        this.lastStep = lastStep;
        this.constants = constants;
        this.constantMemory = constantMemory;
        this.anyHostStep = Arrays.stream(steps).anyMatch(Step::onHost);
        int outputs = Arrays.stream(fusedOutputOf).max().orElse(NONE) + 1;
        this.outputSlots = new int[outputs];
        Arrays.fill(outputSlots, NONE);
        for (int slot = 0; slot < fusedOutputOf.length; slot++) {
            if (fusedOutputOf[slot] != NONE) {
                outputSlots[fusedOutputOf[slot]] = slot;
            }
        }
        this.graphs = profileSteps || !GraphReplay.eligible(anyHostStep, device) ? null : new GraphReplay(device.driver());
    }

    /** Compiles a group of nodes {@link CudaOps#support} accepts; {@code subgraph} lists them in topological order. */
    public static CudaSubgraphProgram compile(Graph subgraph, Node fusedNode, CudaDevice device) {
        return compile(subgraph, fusedNode, device, node -> CudaOps.compile(node, device));
    }

    /**
     * As {@link #compile(Graph, Node, CudaDevice)} with the device step kernels from {@code kernels} (tests inject
     * steps here; it is asked only for the steps that run on the device).
     */
    static CudaSubgraphProgram compile(Graph subgraph, Node fusedNode, CudaDevice device,
                                       Function<Node, CompiledNode> kernels) {
        return compile(subgraph, fusedNode, device, kernels, CpuKernels::forNode);
    }

    /** As above with the host step kernels from {@code hostKernels} (empty: the node runs on the device). */
    static CudaSubgraphProgram compile(Graph subgraph, Node fusedNode, CudaDevice device,
                                       Function<Node, CompiledNode> kernels, Function<Node, Optional<CpuKernel>> hostKernels) {
        return compile(subgraph, fusedNode, device, kernels, hostKernels, EpilogueFusion.selected());
    }

    /** As above with the producer + activation pairs that {@code fusion} makes one step of. */
    static CudaSubgraphProgram compile(Graph subgraph, Node fusedNode, CudaDevice device,
                                       Function<Node, CompiledNode> kernels, Function<Node, Optional<CpuKernel>> hostKernels,
                                       EpilogueFusion fusion) {
        String groupName = fusedNode.name();
        if (subgraph.nodes().isEmpty()) {
            throw new IllegalArgumentException("javaep: fused node '" + groupName + "' has no nodes to compile");
        }
        Map<Node, CudaKernelFactory> fusedKernels = new java.util.IdentityHashMap<>();
        List<Node> nodes = fuseEpilogues(subgraph.nodes(), fusedNode, fusion, fusedKernels);
        Map<String, Integer> slotOf = new HashMap<>();
        List<Integer> fusedOutputOf = new ArrayList<>();
        List<Integer> intermediateOf = new ArrayList<>();
        List<ElementType> intermediateTypes = new ArrayList<>();
        List<Integer> firstStep = new ArrayList<>();
        List<Integer> lastStep = new ArrayList<>();

        List<TensorValue> constantValues = new ArrayList<>();
        List<Boolean> hostResident = new ArrayList<>();
        int[] fusedInputSlots = new int[fusedNode.inputs().size()];
        for (int i = 0; i < fusedInputSlots.length; i++) {
            ValueInfo info = fusedNode.inputs().get(i);
            String value = nameOf(info);
            fusedInputSlots[i] = value == null ? NONE : slotOf.computeIfAbsent(value, v -> {
                fusedOutputOf.add(NONE);
                intermediateOf.add(NONE);
                constantValues.add(null);
                hostResident.add(false);
                return fusedOutputOf.size() - 1;
            });
            if (value != null && info.value() != null) {
                constantValues.set(fusedInputSlots[i], info.value());
                hostResident.set(fusedInputSlots[i], true);
            }
        }
        Map<String, Integer> fusedOutputIndex = new HashMap<>();
        for (int i = 0; i < fusedNode.outputs().size(); i++) {
            String value = nameOf(fusedNode.outputs().get(i));
            if (value != null) {
                fusedOutputIndex.put(value, i);
            }
        }

        Set<Integer> fusedInputs = Arrays.stream(fusedInputSlots).boxed().collect(java.util.stream.Collectors.toSet());
        List<int[]> stepInputs = new ArrayList<>();
        List<int[]> stepOutputs = new ArrayList<>();
        List<CpuKernel> hostSteps = new ArrayList<>();
        for (int s = 0; s < nodes.size(); s++) {
            Node node = nodes.get(s);
            int[] inputs = new int[node.inputs().size()];
            for (int i = 0; i < inputs.length; i++) {
                String value = nameOf(node.inputs().get(i));
                Integer slot = value == null ? null : slotOf.get(value);
                if (value != null && slot == null) {
                    throw new IllegalArgumentException("javaep: " + node + " in fused node '" + groupName + "' reads '"
                            + value + "', which is neither an input of the fused node nor an output of a node before it"
                            + " (the group's nodes must come in topological order)");
                }
                inputs[i] = value == null ? NONE : slot;
                if (value != null && intermediateOf.get(slot) != NONE) {
                    lastStep.set(intermediateOf.get(slot), s);
                }
                if (value != null && fusedInputs.contains(slot) && constantValues.get(slot) == null
                        && node.inputs().get(i).value() != null) {
                    // a constant whose value the consuming node's view of it carries, not the fused node's
                    constantValues.set(slot, node.inputs().get(i).value());
                    hostResident.set(slot, true);
                }
            }
            CpuKernel hostKernel = runsOnHost(node, inputs, hostResident) ? hostKernels.apply(node).orElse(null) : null;
            hostSteps.add(hostKernel);
            int[] outputs = new int[node.outputs().size()];
            for (int i = 0; i < outputs.length; i++) {
                ValueInfo info = node.outputs().get(i);
                String value = nameOf(info);
                if (value == null) {
                    outputs[i] = NONE;
                    continue;
                }
                if (slotOf.containsKey(value)) {
                    throw new IllegalArgumentException("javaep: " + node + " in fused node '" + groupName + "' writes '"
                            + value + "', which the fused node already has as an input or an earlier node's output");
                }
                int slot = fusedOutputOf.size();
                slotOf.put(value, slot);
                Integer fusedOutput = fusedOutputIndex.get(value);
                fusedOutputOf.add(fusedOutput == null ? NONE : fusedOutput);
                constantValues.add(null);
                hostResident.add(hostKernel != null);
                if (fusedOutput == null && (!info.isTensor() || info.elementType() == null || info.elementType().byteSize() == 0)) {
                    throw new IllegalArgumentException("javaep: " + node + " in fused node '" + groupName
                            + "': intermediate '" + value + "' is " + (info.isTensor() ? info.elementType() : "not a tensor")
                            + ", which device memory cannot hold as fixed-size elements");
                }
                if (fusedOutput != null || hostKernel != null) {
                    intermediateOf.add(NONE); // ORT's tensor, or a host value: no workspace
                } else {
                    intermediateOf.add(intermediateTypes.size());
                    intermediateTypes.add(info.elementType());
                    firstStep.add(s);
                    lastStep.add(s);
                }
                outputs[i] = slot;
            }
            stepInputs.add(inputs);
            stepOutputs.add(outputs);
        }
        for (String output : fusedOutputIndex.keySet()) {
            if (!slotOf.containsKey(output) || fusedOutputOf.get(slotOf.get(output)) == NONE) {
                throw new IllegalArgumentException("javaep: fused node '" + groupName + "' has output '" + output
                        + "', which no node of the group writes");
            }
        }

        int[] last = lastStep.stream().mapToInt(Integer::intValue).toArray();
        Step[] steps = new Step[nodes.size()];
        Arena constantMemory = Arena.ofShared(); // read by the Runs' threads; closed with the program
        try {
            for (int s = 0; s < steps.length; s++) {
                int step = s;
                int[] lastReadHere = IntStream.range(0, last.length).filter(v -> last[v] == step).toArray();
                CpuKernel hostKernel = hostSteps.get(s);
                CudaKernelFactory fused = fusedKernels.get(nodes.get(s));
                CompiledNode kernel = hostKernel != null ? null : fused != null ? fused.on(device) : kernels.apply(nodes.get(s));
                steps[s] = new Step(nodes.get(s), kernel, hostKernel, stepInputs.get(s), stepOutputs.get(s), lastReadHere);
            }
            HostTensor[] constants = new HostTensor[constantValues.size()];
            for (int slot = 0; slot < constants.length; slot++) {
                TensorValue value = constantValues.get(slot);
                if (value != null) {
                    constants[slot] = hostCopy(constantMemory, value);
                }
            }
            return new CudaSubgraphProgram(device, groupName, steps, fusedOutputOf.size(), fusedInputSlots,
                    fusedOutputOf.stream().mapToInt(Integer::intValue).toArray(),
                    intermediateOf.stream().mapToInt(Integer::intValue).toArray(),
                    intermediateTypes.toArray(ElementType[]::new),
                    firstStep.stream().mapToInt(Integer::intValue).toArray(), last, constants, constantMemory);
        } catch (RuntimeException | Error failure) {
            closeCreated(steps, failure);
            constantMemory.close();
            throw failure;
        }
    }

    /**
     * A compile that failed part-way closes the step kernels it had made (cuDNN descriptors, device memory, modules
     * they hold): ORT never sees the program, so nothing else would. Their close failures are added to {@code failure}.
     */
    private static void closeCreated(Step[] steps, Throwable failure) {
        for (Step step : steps) {
            if (step != null && step.kernel() != null) {
                try {
                    step.kernel().close();
                } catch (RuntimeException e) {
                    failure.addSuppressed(e);
                }
            }
        }
    }

    /**
     * Which producer → activation pairs of a group run as one step: the producer's kernel applies the activation in its
     * epilogue (ORT's way: fusion is an optimisation of the compiled group; the op layer keeps one op per schema).
     */
    @FunctionalInterface
    interface EpilogueFusion {
        /** The kernel of {@code producer} with {@code activation} applied to its only output, or empty. */
        Optional<CudaKernelFactory> fuse(Node producer, Node activation);

        /**
         * The kernel of {@code conv}, the {@code add} that alone reads its output and the {@code activation} that alone
         * reads the Add's (inputs: the Conv's three, then the Add's other input), or empty. None by default.
         */
        default Optional<CudaKernelFactory> fuseResidual(Node conv, Node add, Node activation) {
            return Optional.empty();
        }

        /**
         * Conv/ConvTranspose + a one-expression activation ({@link ConvKernels#fusedWithActivation}), the activation
         * in an epilogue pass (or the direct kernel's store): the fusion before cuDNN's fused call.
         */
        EpilogueFusion CONV_ACTIVATION = ConvKernels::fusedWithActivation;
        /**
         * As {@link #CONV_ACTIVATION}, plus Conv + Add + activation with the residual in the same step (the epilogue
         * pass adds it): the default. cuDNN's fused call is not used: on the H100 it won no consistent time although
         * it won the per-geometry timing (resnet18 160² b1 float32 per Run with graphs: 1.48 ms against 0.97 for
         * {@link #CONV_ACTIVATION} in one run, 1.13 against 1.45 in another).
         */
        EpilogueFusion CONV_RESIDUAL = withResidual(false);
        /**
         * As {@link #CONV_RESIDUAL}, and Conv (+ Add) + ReLU through {@code cudnnConvolutionBiasActivationForward}
         * where cuDNN times it faster than the plain convolution and the epilogue pass ({@code cudnn}: to compare).
         */
        EpilogueFusion CONV_RESIDUAL_CUDNN = withResidual(true);

        /** Conv + activation and Conv + Add + activation; {@code cudnnCall}: ReLU may run as cuDNN's fused call. */
        private static EpilogueFusion withResidual(boolean cudnnCall) {
            return new EpilogueFusion() {
                @Override
                public Optional<CudaKernelFactory> fuse(Node producer, Node activation) {
                    return ConvKernels.fusedWithActivation(producer, activation, cudnnCall);
                }

                @Override
                public Optional<CudaKernelFactory> fuseResidual(Node conv, Node add, Node activation) {
                    return ConvKernels.fusedWithResidual(conv, add, activation, cudnnCall);
                }
            };
        }
        EpilogueFusion NONE = (producer, activation) -> Optional.empty();

        /**
         * {@code -Djavaep.cuda.fusion=off} (or {@code JAVAEP_CUDA_FUSION=off}) runs every node as its own step (to
         * compare); {@code epilogue} fuses Conv + activation only, without residuals ({@link #CONV_ACTIVATION});
         * {@code cudnn} adds cuDNN's fused call ({@link #CONV_RESIDUAL_CUDNN}); anything else ({@code on}, unset) is
         * {@link #CONV_RESIDUAL}. Read when a group compiles.
         */
        static EpilogueFusion selected() {
            String asked = System.getProperty(FUSION_PROPERTY, System.getenv("JAVAEP_CUDA_FUSION"));
            if (asked == null) {
                return CONV_RESIDUAL;
            }
            return switch (asked.toLowerCase(java.util.Locale.ROOT)) {
                case "off", "false" -> NONE;
                case "epilogue" -> CONV_ACTIVATION;
                case "cudnn" -> CONV_RESIDUAL_CUDNN;
                default -> CONV_RESIDUAL;
            };
        }
    }

    static final String FUSION_PROPERTY = "javaep.cuda.fusion";
    /** The domain of a step made of several nodes: not ONNX's, so that no rule for ONNX ops (host values) applies to it. */
    static final String FUSED_DOMAIN = "dev.javaep.fused";

    /**
     * The group's nodes with each fusable pair replaced by one node (the producer's inputs and attributes, the
     * activation's outputs, op type {@code Producer+Activation} in {@link #FUSED_DOMAIN}) at the producer's place, whose
     * kernel goes into {@code fusedKernels}. A pair fuses when the producer has one output, which is no output of the
     * fused node and which exactly one input of the group reads: input 0 of the activation. Its other inputs (Clip's
     * bounds) are constants the fusion read at compile time.
     *
     * <p>Before that, a Conv whose output alone an Add reads, whose output alone an activation reads (input 0), becomes
     * one step {@code Conv+Add+Activation} when the Add's other input (the residual) has exactly the Conv output's static
     * shape (no broadcast): ResNet's block tail. The step runs at the Add's place, where the residual exists even when
     * it is computed after the Conv (ResNet's downsampling Conv comes after the block's second Conv); its inputs are the
     * Conv's X, W, B (null when absent) and the residual.
     */
    private static List<Node> fuseEpilogues(List<Node> nodes, Node fusedNode, EpilogueFusion fusion,
                                            Map<Node, CudaKernelFactory> fusedKernels) {
        Set<String> groupOutputs = new java.util.HashSet<>();
        for (ValueInfo output : fusedNode.outputs()) {
            String value = nameOf(output);
            if (value != null) {
                groupOutputs.add(value);
            }
        }
        Map<String, Integer> readers = new HashMap<>();
        Map<String, Node> reader = new HashMap<>();
        for (Node node : nodes) {
            List<ValueInfo> read = new ArrayList<>(node.inputs());
            read.addAll(node.implicitInputs());
            for (ValueInfo input : read) {
                String value = nameOf(input);
                if (value != null) {
                    readers.merge(value, 1, Integer::sum);
                    reader.put(value, node);
                }
            }
        }
        List<Node> result = new ArrayList<>(nodes.size());
        Set<Node> absorbed = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        // per Add of a fused Conv + Add + activation: the fused node, which runs where the Add was
        Map<Node, Node> placedAt = new java.util.IdentityHashMap<>();
        for (Node node : nodes) {
            Node placed = placedAt.get(node);
            if (placed != null) {
                result.add(placed);
                continue;
            }
            if (absorbed.contains(node)
                    || fuseResidual(node, fusion, groupOutputs, readers, reader, fusedKernels, absorbed, placedAt)) {
                continue;
            }
            String value = node.outputs().size() == 1 ? nameOf(node.outputs().getFirst()) : null;
            Node activation = value == null ? null : reader.get(value);
            if (activation == null || groupOutputs.contains(value) || readers.get(value) != 1 || activation.inputs().isEmpty()
                    || !value.equals(nameOf(activation.inputs().getFirst()))) {
                result.add(node);
                continue;
            }
            Optional<CudaKernelFactory> kernel = fusion.fuse(node, activation);
            if (kernel.isEmpty()) {
                result.add(node);
                continue;
            }
            Node fused = new Node(node.id(), node.name() + "+" + activation.name(), node.opType() + "+" + activation.opType(),
                    FUSED_DOMAIN, node.sinceVersion(), node.inputs(), activation.outputs(), node.attributes());
            fusedKernels.put(fused, kernel.get());
            absorbed.add(activation);
            result.add(fused);
        }
        return result;
    }

    /**
     * {@code conv → Add → activation} as one node ({@link #fuseEpilogues}' second paragraph), its kernel in
     * {@code fusedKernels}, the node in {@code placedAt} under the Add (it runs there: the residual exists by then, and
     * nothing but the Add reads the Conv's output) and the activation in {@code absorbed}; false when the chain does not
     * fuse.
     */
    private static boolean fuseResidual(Node conv, EpilogueFusion fusion, Set<String> groupOutputs,
                                        Map<String, Integer> readers, Map<String, Node> reader,
                                        Map<Node, CudaKernelFactory> fusedKernels, Set<Node> absorbed,
                                        Map<Node, Node> placedAt) {
        if (!conv.isOnnxDomain() || !conv.opType().equals("Conv") || conv.inputs().size() < 2) {
            return false;
        }
        String convOut = conv.outputs().size() == 1 ? nameOf(conv.outputs().getFirst()) : null;
        Node add = soleReader(convOut, groupOutputs, readers, reader);
        if (add == null || !add.opType().equals("Add") || !add.isOnnxDomain() || add.inputs().size() != 2
                || add.outputs().size() != 1 || placedAt.containsKey(add) || absorbed.contains(add)) {
            return false; // (an Add of two Convs' outputs fuses with the first of them)
        }
        int convSide = convOut.equals(nameOf(add.inputs().get(0))) ? 0 : 1;
        ValueInfo other = add.inputs().get(1 - convSide);
        String otherName = nameOf(other);
        ValueInfo convValue = conv.outputs().getFirst();
        if (otherName == null || otherName.equals(convOut) || !convValue.hasStaticShape() || !other.hasStaticShape()
                || !Arrays.equals(convValue.shape(), other.shape())) {
            return false;
        }
        String addOut = nameOf(add.outputs().getFirst());
        Node activation = soleReader(addOut, groupOutputs, readers, reader);
        if (activation == null || activation.inputs().isEmpty() || !addOut.equals(nameOf(activation.inputs().getFirst()))) {
            return false;
        }
        Optional<CudaKernelFactory> kernel = fusion.fuseResidual(conv, add, activation);
        if (kernel.isEmpty()) {
            return false;
        }
        List<ValueInfo> inputs = new ArrayList<>(4);
        inputs.add(conv.inputs().get(0));
        inputs.add(conv.inputs().get(1));
        inputs.add(conv.inputs().size() > 2 ? conv.inputs().get(2) : null);
        inputs.add(other);
        Node fused = new Node(conv.id(), conv.name() + "+" + add.name() + "+" + activation.name(),
                conv.opType() + "+Add+" + activation.opType(), FUSED_DOMAIN, conv.sinceVersion(), inputs,
                activation.outputs(), conv.attributes());
        fusedKernels.put(fused, kernel.get());
        placedAt.put(add, fused);
        absorbed.add(activation);
        return true;
    }

    /** The one node that reads {@code value} (once), when {@code value} is no output of the fused node; else null. */
    private static Node soleReader(String value, Set<String> groupOutputs, Map<String, Integer> readers,
                                   Map<String, Node> reader) {
        return value == null || groupOutputs.contains(value) || readers.getOrDefault(value, 0) != 1 ? null : reader.get(value);
    }

    /**
     * Whether {@code node} runs on the host: Shape and Size always (they read a shape), any other node when every
     * input it has is a host value and its outputs are all int32/int64/bool (shape arithmetic) or it is one of
     * {@link #HOST_ELEMENTWISE}. Whether JavaCpu has a kernel for it is asked after.
     */
    private static boolean runsOnHost(Node node, int[] inputSlots, List<Boolean> hostResident) {
        if (!node.isOnnxDomain()) {
            return false;
        }
        if (SHAPE_READERS.contains(node.opType())) {
            return true;
        }
        for (ValueInfo output : node.outputs()) {
            if (output == null || !SHAPE_ARITHMETIC_TYPES.contains(output.elementType())
                    && !HOST_ELEMENTWISE.contains(node.opType())) {
                return false;
            }
        }
        for (int slot : inputSlots) {
            if (slot != NONE && !hostResident.get(slot)) {
                return false;
            }
        }
        return true;
    }

    /** A constant's bytes in native memory, where JavaCpu's kernels read them. */
    private static HostTensor hostCopy(Arena arena, TensorValue value) {
        if (value.elementType().byteSize() == 0) {
            throw new IllegalArgumentException("javaep: a constant of " + value.elementType() + " is not fixed-size");
        }
        HostTensor tensor = HostTensor.allocate(arena, value.elementType(), value.shape());
        MemorySegment.copy(MemorySegment.ofBuffer(value.data()), 0, tensor.data(), 0, tensor.byteSize());
        return tensor;
    }

    private static String nameOf(ValueInfo value) {
        return value == null || value.name() == null || value.name().isEmpty() ? null : value.name();
    }

    @Override
    public void compute(KernelContext context) {
        device.makeCurrent();
        long stream = context.computeStream();
        Tensor[] values = runValues.get();
        try {
            for (int i = 0; i < fusedInputSlots.length; i++) {
                if (fusedInputSlots[i] != NONE) {
                    values[fusedInputSlots[i]] = context.input(i);
                }
            }
            if (OrtGraphCapture.joins(stream)) {
                runInOrtCapture(context, values, stream);
                return;
            }
            StepProfiler profiler = context.stepProfiler(); // null unless ORT profiles the session
            if (graphs != null && profiler == null && stream != 0 && graphs.replay(context, values, stream)) {
                return;
            }
            long copies = deviceToHostCopies.get();
            boolean breakdown = profileSteps && profiler == null;
            runSteps(context, values, stream, profiler, breakdown);
            if (breakdown) {
                CudaStepBreakdown.runQueued(name);
            }
            if (graphs != null) {
                graphs.completed(values, deviceToHostCopies.get() != copies);
            }
        } finally {
            Arrays.fill(values, null); // the Run's tensors are ORT's for this Run only
        }
    }

    /**
     * Queues every step on {@code stream} ({@code values}: the fused inputs, and any outputs already asked of ORT); each
     * step timed for ORT's {@code profiler} (non-null) or for {@link CudaStepBreakdown} ({@code breakdown}).
     */
    private void runSteps(KernelContext context, Tensor[] values, long stream, StepProfiler profiler, boolean breakdown) {
        RunMemory memory = intermediateTypes.length == 0 ? null : new RunMemory(signature(values), stream);
        try (Arena hostMemory = anyHostStep ? Arena.ofConfined() : null) {
            StepContext stepContext = new StepContext(context, values, constants.clone(), hostMemory, memory, stream);
            CudaStepTimer timer = profiler == null && !breakdown ? null : stepTimer();
            try {
                for (Step step : steps) {
                    stepContext.step = step;
                    CudaStepTimer.Mark mark = timer == null ? null : timer.begin(step.onHost(), stream, breakdown);
                    if (step.onHost()) {
                        stepContext.runOnHost();
                    } else {
                        step.kernel().compute(stepContext);
                    }
                    if (mark != null) {
                        timer.end(mark, step.node(), stream,
                                breakdown ? CudaStepBreakdown.step(name, stepKind(step)) : profiler);
                    }
                    if (memory != null) {
                        memory.lastReadBy(step);
                    }
                }
            } catch (Throwable failure) {
                stepContext.freeUploads(failure);
                if (memory != null) {
                    memory.release(failure);
                }
                throw failure;
            }
            stepContext.freeUploads(null);
            if (memory != null) {
                memory.finish();
            }
        }
    }

    /**
     * A Run of a session under ORT's own graph capture ({@link OrtGraphCapture}: a warm-up, or the Run it records
     * whole): eager, as a group graph cannot be captured inside ORT's, with the constants in the group's device memory
     * (uploaded in the first warm-up), since the pageable upload of an eager Run cannot be captured.
     */
    private void runInOrtCapture(KernelContext context, Tensor[] values, long stream) {
        runSteps(context, graphs == null ? values : graphs.withDeviceConstants(values), stream, null, false);
    }

    static final String GRAPHS_PROPERTY = "javaep.cuda.graphs";

    /**
     * A group's Runs replayed as CUDA graphs. A Run's launches depend on its input shapes (grids, the plan) and on the
     * device addresses of its inputs, outputs and intermediates (kernel arguments); so a graph is captured for one
     * (input shapes, input addresses, output addresses) and replayed while a Run brings the same. The first Run with
     * new input shapes runs eagerly: it compiles kernels, lets cuDNN choose its algorithms (which synchronise, so they
     * cannot be captured), records the plan, and tells which output shapes those inputs give; the next asks ORT for
     * its outputs first (so their addresses are known), captures its steps ({@code cuStreamBeginCapture}), instantiates
     * and launches the graph, and keeps it. The intermediates' workspace and cuDNN's workspaces are stream-ordered
     * allocations, which capture turns into the graph's own allocations, at addresses fixed for the graph's life;
     * constants are uploaded once to memory of the group's own.
     *
     * <p>Not captured: groups with host steps (shape arithmetic on the host runs Java between launches and its values
     * change the launches), profiled Runs, Runs on the legacy default stream, and a group whose Run copied a device
     * value to the host (its shapes may depend on data; the copy synchronises, which capture forbids).
     */
    private final class GraphReplay {
        /** Graphs kept per group, least recently used destroyed first. */
        static final int MAX_GRAPHS = 4;
        /**
         * Captures in a row, without a replay between them, after which the group stops trying. A capture costs more
         * host time than launching eagerly (the steps run as usual, plus instantiation), and pays only when replayed:
         * a plain Run whose outputs ORT allocates at new addresses each time (or inputs the app moves) would capture
         * every Run and never replay.
         */
        static final int MAX_MISSES_IN_A_ROW = 4;

        private final CudaDriver driver;
        /** Output shapes per input shapes, from completed eager Runs. */
        private final Map<ShapeSignature, long[][]> outputShapes = new LinkedHashMap<>(16, 0.75f, true);
        private final LinkedHashMap<GraphKey, Long> executables = new LinkedHashMap<>(16, 0.75f, true);
        private int missesInARow;
        private volatile String gaveUp;
        /** Per slot: the device copy of a constant (uploaded before the first capture), else 0. */
        private long[] deviceConstants;
        private long captures;
        private long replays;

        GraphReplay(CudaDriver driver) {
            this.driver = driver;
        }

        /**
         * Whether this group may be captured: on unless the property says off, no host steps, and a driver with the
         * graph functions.
         */
        static boolean eligible(boolean anyHostStep, CudaDevice device) {
            String asked = System.getProperty(GRAPHS_PROPERTY, System.getenv("JAVAEP_CUDA_GRAPHS"));
            boolean off = asked != null && (asked.equalsIgnoreCase("off") || asked.equalsIgnoreCase("false"));
            return !off && !anyHostStep && device.driver().hasGraphs();
        }

        /**
         * The graph the last replay or capture launched, with what it was captured for: a Run that brings the same
         * input shapes and addresses and gets its outputs at the same addresses replays it after comparing them in
         * place, building no key (the steady state of a bound Run allocates nothing here). Null after an eviction or
         * close destroyed it.
         */
        private volatile LastGraph last;

        /** Replays (or captures and launches) this Run; false when it must run eagerly. */
        boolean replay(KernelContext context, Tensor[] values, long stream) {
            if (gaveUp != null) {
                return false;
            }
            LastGraph hit = last;
            if (hit != null && hit.sameInputs(values) && hit.sameOutputs(context, values)) {
                synchronized (this) {
                    if (last == hit) { // not evicted meanwhile; launched under the lock, as below
                        driver.graphLaunch(hit.executable, stream);
                        missesInARow = 0;
                        replays++;
                        return true;
                    }
                }
            }
            ShapeSignature signature = signature(values);
            long[][] shapes;
            synchronized (this) {
                shapes = outputShapes.get(signature);
            }
            if (shapes == null) {
                return false; // the first Run with these shapes runs eagerly
            }
            long[] outputAddresses = new long[outputSlots.length];
            for (int i = 0; i < outputSlots.length; i++) {
                if (outputSlots[i] != NONE) {
                    Tensor output = context.output(i, shapes[i]);
                    values[outputSlots[i]] = output;
                    outputAddresses[i] = output.data().address();
                }
            }
            long[] inputAddresses = new long[fusedInputSlots.length];
            for (int i = 0; i < inputAddresses.length; i++) {
                Tensor input = fusedInputSlots[i] == NONE ? null : values[fusedInputSlots[i]];
                inputAddresses[i] = input == null ? 0 : input.data().address();
            }
            GraphKey key = new GraphKey(signature, inputAddresses, outputAddresses);
            synchronized (this) {
                Long executable = executables.get(key);
                if (executable != null) {
                    // launched under the lock: an eviction cannot destroy it between lookup and launch
                    driver.graphLaunch(executable, stream);
                    last = new LastGraph(key, shapes, executable);
                    missesInARow = 0;
                    replays++;
                    return true;
                }
                if (++missesInARow > MAX_MISSES_IN_A_ROW) {
                    giveUp(MAX_MISSES_IN_A_ROW + " captures in a row were never replayed (the Run's input or output"
                            + " addresses change between Runs: bind them with IoBinding to replay)");
                    return false;
                }
            }
            return capture(context, values, key, stream);
        }

        /** A copy of {@code values} with the constants in the group's device memory (uploaded the first time). */
        Tensor[] withDeviceConstants(Tensor[] values) {
            synchronized (this) {
                uploadConstants();
            }
            Tensor[] withConstants = values.clone();
            for (int slot = 0; slot < deviceConstants.length; slot++) {
                if (deviceConstants[slot] != 0 && withConstants[slot] == null) {
                    withConstants[slot] = DeviceTensor.at(deviceConstants[slot], constants[slot].elementType(),
                            constants[slot].shape());
                }
            }
            return withConstants;
        }

        private boolean capture(KernelContext context, Tensor[] values, GraphKey key, long stream) {
            Tensor[] captured = withDeviceConstants(values); // a failed capture leaves the eager retry its own values
            long copies = deviceToHostCopies.get();
            try {
                driver.streamBeginCapture(stream);
            } catch (RuntimeException e) {
                giveUp("the stream cannot be captured: " + e.getMessage());
                return false;
            }
            long graph;
            try {
                runSteps(context, captured, stream, null, false);
            } catch (RuntimeException e) {
                try {
                    driver.graphDestroy(driver.streamEndCapture(stream));
                } catch (RuntimeException ended) {
                    e.addSuppressed(ended);
                }
                giveUp("a step could not be captured: " + e);
                return false; // what was queued went into the discarded graph: the Run runs eagerly
            }
            long executable;
            try {
                graph = driver.streamEndCapture(stream);
            } catch (RuntimeException e) {
                giveUp("the capture was invalidated: " + e.getMessage());
                return false;
            }
            try {
                if (deviceToHostCopies.get() != copies) {
                    giveUp("a step read a device value on the host");
                    return false;
                }
                executable = driver.graphInstantiate(graph);
            } catch (RuntimeException e) {
                giveUp("the graph could not be instantiated: " + e.getMessage());
                return false;
            } finally {
                driver.graphDestroy(graph);
            }
            for (int slot = 0; slot < values.length; slot++) {
                values[slot] = captured[slot];
            }
            synchronized (this) {
                // owned by the cache before its first launch, so that a launch that throws leaves it to close()
                Long replaced = executables.put(key, executable);
                if (replaced != null) {
                    driver.graphExecDestroy(replaced); // another thread captured the same key meanwhile
                }
                driver.graphLaunch(executable, stream);
                captures++;
                Iterator<Map.Entry<GraphKey, Long>> eldest = executables.entrySet().iterator();
                while (executables.size() > MAX_GRAPHS) {
                    long evicted = eldest.next().getValue();
                    if (last != null && last.executable == evicted) {
                        last = null;
                    }
                    driver.graphExecDestroy(evicted);
                    eldest.remove();
                }
                last = new LastGraph(key, outputShapesOf(key.shapes()), executable);
            }
            return true;
        }

        private synchronized long[][] outputShapesOf(ShapeSignature signature) {
            return outputShapes.get(signature);
        }

        /** A graph and the key it was captured for, compared field by field against a Run's values. */
        private final class LastGraph {
            private final GraphKey key;
            private final long[][] outputShapes;
            private final long executable;

            LastGraph(GraphKey key, long[][] outputShapes, long executable) {
                this.key = key;
                this.outputShapes = outputShapes;
                this.executable = executable;
            }

            boolean sameInputs(Tensor[] values) {
                long[][] shapes = key.shapes().shapes();
                for (int i = 0; i < fusedInputSlots.length; i++) {
                    Tensor input = fusedInputSlots[i] == NONE ? null : values[fusedInputSlots[i]];
                    if (input == null ? shapes[i] != null || key.inputs()[i] != 0
                            : !Arrays.equals(shapes[i], input.shape()) || input.data().address() != key.inputs()[i]) {
                        return false;
                    }
                }
                return outputShapes != null;
            }

            /** Asks ORT for the outputs at the captured shapes (what these inputs give) and compares their addresses. */
            boolean sameOutputs(KernelContext context, Tensor[] values) {
                boolean same = true;
                for (int i = 0; i < outputSlots.length; i++) {
                    if (outputSlots[i] != NONE) {
                        Tensor output = context.output(i, outputShapes[i]);
                        values[outputSlots[i]] = output;
                        same &= output.data().address() == key.outputs()[i];
                    }
                }
                return same;
            }
        }

        /** An eager Run completed: remember its output shapes (or stop, when it read device values on the host). */
        void completed(Tensor[] values, boolean copiedToHost) {
            if (copiedToHost) {
                giveUp("a step read a device value on the host");
                return;
            }
            long[][] shapes = new long[outputSlots.length][];
            for (int i = 0; i < outputSlots.length; i++) {
                Tensor output = outputSlots[i] == NONE ? null : values[outputSlots[i]];
                shapes[i] = output == null ? null : output.shape();
            }
            synchronized (this) {
                outputShapes.put(signature(values), shapes);
                Iterator<ShapeSignature> eldest = outputShapes.keySet().iterator();
                while (outputShapes.size() > MAX_PLANS) {
                    eldest.next();
                    eldest.remove();
                }
            }
        }

        private void giveUp(String why) {
            if (gaveUp == null) {
                gaveUp = why;
                dev.javaep.spi.EpLog.verbose("javaep: compiled node '" + name + "' launches eagerly from now on: " + why);
            }
        }

        /** Uploads the constants once (synchronously, before a capture, which forbids the pageable copy). */
        private void uploadConstants() {
            if (deviceConstants != null) {
                return;
            }
            long[] addresses = new long[constants.length];
            for (int slot = 0; slot < constants.length; slot++) {
                HostTensor constant = constants[slot];
                if (constant != null && constant.byteSize() > 0) {
                    addresses[slot] = device.driver().memAlloc(constant.byteSize());
                    device.driver().memcpyHtoD(addresses[slot], constant.data(), constant.byteSize());
                }
            }
            deviceConstants = addresses;
        }

        synchronized void close() {
            if (device.isLost() || executables.isEmpty() && deviceConstants == null) {
                return; // the graphs and memory went with the context, or there are none
            }
            device.makeCurrent();
            last = null;
            for (long executable : executables.values()) {
                driver.graphExecDestroy(executable);
            }
            executables.clear();
            if (deviceConstants != null) {
                for (long address : deviceConstants) {
                    if (address != 0) {
                        device.driver().memFree(address);
                    }
                }
                deviceConstants = null;
            }
        }
    }

    /** What a captured graph depends on: the input shapes, and the inputs' and outputs' device addresses. */
    private record GraphKey(ShapeSignature shapes, long[] inputs, long[] outputs) {
        @Override
        public boolean equals(Object o) {
            return o instanceof GraphKey k && shapes.equals(k.shapes) && Arrays.equals(inputs, k.inputs)
                    && Arrays.equals(outputs, k.outputs);
        }

        @Override
        public int hashCode() {
            return (shapes.hashCode() * 31 + Arrays.hashCode(inputs)) * 31 + Arrays.hashCode(outputs);
        }
    }

    /** Graphs captured and replays launched by this group (tests, benchmarks); {0, 0} where it has no graphs. */
    long[] graphCounts() {
        if (graphs == null) {
            return new long[2];
        }
        synchronized (graphs) {
            return new long[] {graphs.captures, graphs.replays};
        }
    }

    /** Why this group stopped capturing, or null. */
    String graphsGaveUp() {
        return graphs == null ? "no graphs" : graphs.gaveUp;
    }

    /** The group's step timer, made on the first profiled Run. */
    private synchronized CudaStepTimer stepTimer() {
        if (stepTimer == null) {
            stepTimer = new CudaStepTimer(device);
        }
        return stepTimer;
    }

    /** The step timer, or null while no Run was profiled (tests). */
    synchronized CudaStepTimer stepTimerForTests() {
        return stepTimer;
    }

    private ShapeSignature signature(Tensor[] values) {
        long[][] shapes = new long[fusedInputSlots.length][];
        for (int i = 0; i < shapes.length; i++) {
            Tensor input = fusedInputSlots[i] == NONE ? null : values[fusedInputSlots[i]];
            shapes[i] = input == null ? null : input.shape();
        }
        return new ShapeSignature(shapes);
    }

    /** How many steps the group runs (one per node). */
    public int stepCount() {
        return steps.length;
    }

    /** The node each step runs (a fused one for a fused chain), in order (tests). */
    List<Node> stepNodes() {
        return Arrays.stream(steps).map(Step::node).toList();
    }

    /** How many steps run on the host (shape arithmetic), with JavaCpu's kernels. */
    int hostStepCount() {
        return (int) Arrays.stream(steps).filter(Step::onHost).count();
    }

    /** How many times a step asked for a host value that existed only on the device (a synchronising copy each). */
    long deviceToHostCopies() {
        return deviceToHostCopies.get();
    }

    /** How many values of the group live in the EP's memory. */
    int intermediateCount() {
        return intermediateTypes.length;
    }

    /** The plan cached for these fused-input shapes, if a Run with them completed and it was not evicted. */
    Optional<IntermediatePlan> plan(long[]... inputShapes) {
        return Optional.ofNullable(plans.peek(new ShapeSignature(inputShapes)));
    }

    /** Whether the constants' native memory was released (tests). */
    boolean constantsReleased() {
        return !constantMemory.scope().isAlive();
    }

    /** How many plans are cached. */
    int cachedPlans() {
        return plans.size();
    }

    /**
     * What kind of work a step is, for {@link CudaStepBreakdown}: what a {@link StepKind} says of itself (a Conv: cuDNN's
     * fused call, cuDNN + an epilogue pass, a direct kernel), else its kernel family (the package it lives in).
     */
    private static String stepKind(Step step) {
        if (step.onHost()) {
            return CudaStepBreakdown.HOST_KIND;
        }
        if (step.kernel() instanceof StepKind kind) {
            return kind.stepKind();
        }
        String family = step.kernel().getClass().getPackageName();
        family = family.substring(family.lastIndexOf('.') + 1);
        return switch (family) {
            case "conv" -> "pooling";
            case "matmul" -> "gemm/matmul";
            case "reduction" -> "reduction/softmax";
            case "tensor" -> "tensor layout/copy";
            case "sampling" -> "resize/sampling";
            case "kernel" -> step.node().opType();
            default -> family;
        };
    }

    /** A step kernel that names its kind of work for {@link CudaStepBreakdown} (asked after it ran). */
    public interface StepKind {
        String stepKind();
    }

    @Override
    public void close() {
        if (profileSteps && !device.isLost()) {
            device.makeCurrent(); // reading the last Runs' events
            CudaStepBreakdown.logGroup(name);
        }
        if (graphs != null) {
            graphs.close();
        }
        synchronized (this) {
            if (stepTimer != null) {
                stepTimer.close();
            }
        }
        try {
            for (Step step : steps) {
                if (step.kernel() != null) {
                    step.kernel().close();
                }
            }
        } finally {
            if (constantMemory.scope().isAlive()) { // a second close is a no-op, as the steps' are
                constantMemory.close(); // ORT releases a program after its last Run: nothing reads the constants now
            }
        }
    }

    @Override
    public String toString() {
        return "CudaSubgraphProgram[" + name + ": " + steps.length + " nodes (" + hostStepCount() + " on the host), "
                + intermediateTypes.length + " intermediates]";
    }

    /**
     * What one step sees: its inputs by slot, its outputs in ORT's tensors or the EP's memory; host values by
     * slot, and the device copies made of them in this Run.
     */
    private final class StepContext implements CudaKernelContext {
        private final KernelContext run;
        /** Per slot: the value as a device tensor (ORT's, the EP's, or an upload of a host value), once there is one. */
        private final Tensor[] values;
        /** Per slot: the value in host memory (a constant, or computed by a host step in this Run), or null. */
        private final HostTensor[] host;
        private final Arena hostMemory;
        private final RunMemory memory;
        private final long stream;
        /** Device allocations holding uploaded host values, freed at the end of the Run. */
        private final List<Long> uploads = new ArrayList<>();
        Step step;

        StepContext(KernelContext run, Tensor[] values, HostTensor[] host, Arena hostMemory, RunMemory memory, long stream) {
            this.run = run;
            this.values = values;
            this.host = host;
            this.hostMemory = hostMemory;
            this.memory = memory;
            this.stream = stream;
        }

        /** Runs the current step's JavaCpu kernel on host values (Shape and Size read only the shape of a device one). */
        void runOnHost() {
            int[] inputSlots = step.inputSlots();
            List<Tensor> inputs = new ArrayList<>(inputSlots.length);
            for (int slot : inputSlots) {
                inputs.add(slot == NONE ? null : host[slot] != null ? host[slot] : values[slot]);
            }
            CpuKernel kernel = step.hostKernel();
            long[][] shapes = kernel.outputShapes(inputs);
            int[] outputSlots = step.outputSlots();
            List<HostTensor> outputs = new ArrayList<>(outputSlots.length);
            for (int i = 0; i < outputSlots.length; i++) {
                if (outputSlots[i] == NONE) {
                    outputs.add(null);
                    continue;
                }
                HostTensor value = HostTensor.allocate(hostMemory, step.node().outputs().get(i).elementType(), shapes[i]);
                host[outputSlots[i]] = value;
                outputs.add(value);
            }
            kernel.compute(inputs, outputs);
            for (int i = 0; i < outputSlots.length; i++) {
                int slot = outputSlots[i];
                if (slot != NONE && fusedOutputOf[slot] != NONE) {
                    Tensor target = run.output(fusedOutputOf[slot], shapes[i]);
                    copyToDevice(outputs.get(i), target.data().address());
                    values[slot] = target;
                }
            }
        }

        /** Queues the copy of a host value to device memory on the Run's stream; the driver stages pageable bytes before it returns. */
        private void copyToDevice(HostTensor value, long address) {
            long bytes = value.byteSize();
            if (bytes > 0) {
                device.driver().memcpyHtoDAsync(address, value.data().address(), bytes, stream);
            }
        }

        /**
         * A host value as a device tensor: its shape and type at once, its device memory (an allocation of its
         * own, freed at the end of the Run) uploaded the first time a step asks for its address, so that a step
         * that only looks at the shape, or checks that the input is there, costs nothing.
         */
        private final class HostValueOnDevice implements Tensor {
            private final HostTensor value;
            private MemorySegment data;

            HostValueOnDevice(HostTensor value) {
                this.value = value;
            }

            @Override
            public ElementType elementType() {
                return value.elementType();
            }

            @Override
            public long[] shape() {
                return value.shape().clone();
            }

            @Override
            public MemorySegment data() {
                if (data == null) {
                    long bytes = value.byteSize();
                    long address = 0;
                    if (bytes > 0) {
                        address = device.driver().memAllocAsync(bytes, stream);
                        uploads.add(address);
                        copyToDevice(value, address);
                    }
                    data = MemorySegment.ofAddress(address);
                }
                return data;
            }
        }

        /** Returns the uploads' memory in stream order; after a failure, keeps the first error. */
        void freeUploads(Throwable failure) {
            if (uploads.isEmpty() || device.isLost()) {
                return;
            }
            try {
                for (long address : uploads) {
                    device.driver().memFreeAsync(address, stream);
                }
                uploads.clear();
            } catch (RuntimeException e) {
                if (failure == null) {
                    throw e;
                }
                failure.addSuppressed(e);
            }
        }

        @Override
        public int inputCount() {
            return step.inputSlots().length;
        }

        @Override
        public int outputCount() {
            return step.outputSlots().length;
        }

        @Override
        public Tensor input(int index) {
            int slot = slotOfInput(index);
            if (slot == NONE) {
                return null;
            }
            Tensor tensor = values[slot];
            if (tensor == null && host[slot] != null) {
                tensor = new HostValueOnDevice(host[slot]);
                values[slot] = tensor;
            }
            return tensor;
        }

        private int slotOfInput(int index) {
            int[] slots = step.inputSlots();
            return index < 0 || index >= slots.length ? NONE : slots[index];
        }

        @Override
        public Tensor output(int index, long[] shape) {
            int[] slots = step.outputSlots();
            if (index < 0 || index >= slots.length || slots[index] == NONE) {
                return null; // an omitted optional output: nothing reads it
            }
            int slot = slots[index];
            Tensor existing = values[slot];
            if (existing != null) {
                if (!Arrays.equals(existing.shape(), shape)) {
                    throw new IllegalStateException("javaep: " + step.node() + " asked for output " + index + " as "
                            + Arrays.toString(existing.shape()) + " and then as " + Arrays.toString(shape));
                }
                return existing;
            }
            int fusedOutput = fusedOutputOf[slot];
            Tensor tensor = fusedOutput != NONE ? run.output(fusedOutput, shape) : memory.tensor(intermediateOf[slot], shape);
            values[slot] = tensor;
            return tensor;
        }

        @Override
        public long computeStream() {
            return stream;
        }

        @Override
        public boolean hasHostValue(int index) {
            int slot = slotOfInput(index);
            return slot != NONE && host[slot] != null;
        }

        @Override
        public TensorValue hostInput(int index) {
            int slot = slotOfInput(index);
            if (slot == NONE) {
                return null;
            }
            HostTensor value = host[slot];
            if (value != null) {
                return new TensorValue(value.elementType(), value.shape(), value.data().asByteBuffer());
            }
            ValueInfo info = step.node().inputs().get(index);
            if (info != null && info.value() != null) {
                return info.value();
            }
            Tensor tensor = input(index);
            return tensor == null ? null : copyToHost(tensor);
        }

        private TensorValue copyToHost(Tensor tensor) {
            deviceToHostCopies.incrementAndGet();
            long bytes = tensor.byteSize(); // a device tensor's segment is empty: its size is its shape's
            java.nio.ByteBuffer host = java.nio.ByteBuffer.allocateDirect((int) bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            if (bytes > 0) {
                device.driver().streamSynchronize(stream);
                device.driver().memcpyDtoH(MemorySegment.ofBuffer(host), tensor.data().address(), bytes);
            }
            return new TensorValue(tensor.elementType(), tensor.shape(), host);
        }
    }

    /** The intermediates of one Run: a planned workspace, or (recording, or outgrown) one allocation per value. */
    private final class RunMemory {
        private final CudaDriver driver = device.driver();
        private final ShapeSignature signature;
        private final long stream;
        private final IntermediatePlan plan;
        private final long workspace;
        /** Bytes each intermediate asked for in this Run. */
        private final long[] recorded = new long[intermediateTypes.length];
        /** Per intermediate: its own allocation (recording, or it outgrew the plan), 0 when it has none. */
        private final long[] own = new long[intermediateTypes.length];
        private boolean outgrown;

        RunMemory(ShapeSignature signature, long stream) {
            this.signature = signature;
            this.stream = stream;
            this.plan = plans.get(signature);
            this.workspace = plan == null || plan.workspaceBytes() == 0 ? 0 : driver.memAllocAsync(plan.workspaceBytes(), stream);
        }

        Tensor tensor(int intermediate, long[] shape) {
            ElementType type = intermediateTypes[intermediate];
            long elements = 1;
            for (long d : shape) {
                if (d < 0) {
                    throw new IllegalArgumentException("javaep: negative dimension in output shape " + Arrays.toString(shape));
                }
                elements = Math.multiplyExact(elements, d);
            }
            long bytes = Math.multiplyExact(elements, type.byteSize());
            recorded[intermediate] = bytes;
            long address;
            if (plan != null && bytes <= plan.sizes()[intermediate]) {
                address = workspace + plan.offsets()[intermediate];
            } else {
                outgrown |= plan != null;
                address = bytes == 0 ? 0 : driver.memAllocAsync(bytes, stream);
                own[intermediate] = address;
            }
            return DeviceTensor.at(address, type, shape.clone());
        }

        /** Frees, in stream order, the values whose last reader was {@code step} and that have their own allocation. */
        void lastReadBy(Step step) {
            for (int intermediate : step.lastReadHere()) {
                long address = own[intermediate];
                if (address != 0) {
                    own[intermediate] = 0;
                    driver.memFreeAsync(address, stream);
                }
            }
        }

        /** The Run completed: return the memory and keep (or refresh) the plan for these shapes. */
        void finish() {
            freeAll();
            if (plan == null || outgrown) {
                long[] bytes = recorded.clone();
                if (plan != null) {
                    for (int i = 0; i < bytes.length; i++) {
                        bytes[i] = Math.max(bytes[i], plan.sizes()[i]);
                    }
                }
                plans.put(signature, IntermediatePlan.of(bytes, firstStep, lastStep));
            }
        }

        /** A step failed: return the memory (in stream order, after whatever was queued), keep the first error. */
        void release(Throwable failure) {
            try {
                freeAll();
            } catch (RuntimeException e) {
                failure.addSuppressed(e);
            }
        }

        private void freeAll() {
            if (device.isLost()) {
                return; // the memory went with the context; a free would only fail again
            }
            for (int i = 0; i < own.length; i++) {
                if (own[i] != 0) {
                    long address = own[i];
                    own[i] = 0;
                    driver.memFreeAsync(address, stream);
                }
            }
            if (workspace != 0) {
                driver.memFreeAsync(workspace, stream);
            }
        }
    }

    /** The fused node's input shapes (null for an omitted input): what decides every intermediate's size. */
    private record ShapeSignature(long[][] shapes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof ShapeSignature s && Arrays.deepEquals(shapes, s.shapes);
        }

        @Override
        public int hashCode() {
            return Arrays.deepHashCode(shapes);
        }

        @Override
        public String toString() {
            return Arrays.deepToString(shapes);
        }
    }

    /** The plans of one group, at most {@link #MAX_PLANS}, least recently used evicted first. */
    private static final class PlanCache {
        private final LinkedHashMap<ShapeSignature, IntermediatePlan> plans = new LinkedHashMap<>(16, 0.75f, true);

        synchronized IntermediatePlan get(ShapeSignature signature) {
            return plans.get(signature);
        }

        /** Without touching the recency order (tests). */
        synchronized IntermediatePlan peek(ShapeSignature signature) {
            for (Map.Entry<ShapeSignature, IntermediatePlan> e : plans.entrySet()) {
                if (e.getKey().equals(signature)) {
                    return e.getValue();
                }
            }
            return null;
        }

        synchronized void put(ShapeSignature signature, IntermediatePlan plan) {
            plans.put(signature, plan);
            Iterator<ShapeSignature> eldest = plans.keySet().iterator();
            while (plans.size() > MAX_PLANS) {
                eldest.next();
                eldest.remove();
            }
        }

        synchronized int size() {
            return plans.size();
        }
    }
}
