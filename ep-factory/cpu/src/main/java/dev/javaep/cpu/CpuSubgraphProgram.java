package dev.javaep.cpu;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cpu.kernel.KernelThreads;
import dev.javaep.cpu.kernel.PlannedKernel;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Graph;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Node;
import dev.javaep.spi.StepProfiler;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ValueInfo;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A fused subgraph compiled to a list of kernel steps. Values are wired by name at compile time into slots
 * (as {@code CudaSubgraphProgram} does): a step reads the fused node's inputs or earlier steps' outputs, writes a
 * fused-node output straight into ORT's output tensor, and writes every other value into host memory the program
 * owns.
 *
 * <p><b>A Run allocates nothing once the shapes settle.</b> Each thread that runs the program has a {@link Scratch}:
 * the slots' tensors, each step's input and output lists, the output shapes each step computed for the input shapes
 * it saw last (a kernel's {@link CpuKernel#outputShapes(long[][])} depends on the shapes only, so equal shapes give
 * equal answers; kernels that read input values for their shapes are asked every Run) and, for a
 * {@link PlannedKernel}, the plan of those shapes it computes through (broadcast walk, geometry, scratch resolved
 * once per input-shape signature, not per Run), and one native buffer the
 * intermediates are laid out in one after another. A Run whose intermediates do not fit takes the rest from a
 * confined arena for that Run and the buffer grows to the Run's size afterwards. Concurrent Runs on different
 * threads never share a scratch.
 */
final class CpuSubgraphProgram implements CompiledNode {
    private static final int NONE = -1;
    private static final int ALIGNMENT = 64;

    /**
     * One node: its kernel, whether the kernel's output shapes depend on input values, and the slots of its inputs
     * and outputs ({@link #NONE} for an omitted one).
     */
    private record Step(Node node, CpuKernel kernel, boolean shapesReadValues, int[] inputSlots, int[] outputSlots) {}

    private final Step[] steps;
    private final int slotCount;
    /** Per fused input: its slot, or {@link #NONE}. */
    private final int[] fusedInputSlots;
    /** Per slot: the fused node's output index it is written to, or {@link #NONE}. */
    private final int[] fusedOutputOf;
    /** Per slot: the element type of an intermediate (a value neither input nor output of the fused node), else null. */
    private final ElementType[] intermediateTypes;
    private final ThreadLocal<Scratch> scratches = ThreadLocal.withInitial(this::newScratch);
    /** Every thread's scratch, so that {@link #close()} can free their buffers. */
    private final ConcurrentLinkedQueue<Scratch> allScratches = new ConcurrentLinkedQueue<>();

    /** The EP's kernel thread pool, made the Run's pool ({@link KernelThreads#current()}) on the thread that runs it. */
    private final KernelThreads threads;

    private CpuSubgraphProgram(KernelThreads threads, Step[] steps, int slotCount, int[] fusedInputSlots,
                               int[] fusedOutputOf, ElementType[] intermediateTypes) {
        this.threads = threads;
        this.steps = steps;
        this.slotCount = slotCount;
        this.fusedInputSlots = fusedInputSlots;
        this.fusedOutputOf = fusedOutputOf;
        this.intermediateTypes = intermediateTypes;
    }

    static CpuSubgraphProgram compile(Graph subgraph, Node fusedNode, KernelThreads threads) {
        Map<String, Integer> slotOf = new HashMap<>();
        List<Integer> fusedOutputOf = new ArrayList<>();
        List<ElementType> intermediateTypes = new ArrayList<>();
        int[] fusedInputSlots = new int[fusedNode.inputs().size()];
        for (int i = 0; i < fusedInputSlots.length; i++) {
            String name = nameOf(fusedNode.inputs().get(i));
            fusedInputSlots[i] = name == null ? NONE : slotOf.computeIfAbsent(name, n -> {
                fusedOutputOf.add(NONE);
                intermediateTypes.add(null);
                return fusedOutputOf.size() - 1;
            });
        }
        Map<String, Integer> fusedOutputIndex = new HashMap<>();
        for (int i = 0; i < fusedNode.outputs().size(); i++) {
            String name = nameOf(fusedNode.outputs().get(i));
            if (name != null) {
                fusedOutputIndex.put(name, i);
            }
        }
        List<Step> steps = new ArrayList<>();
        for (Node node : subgraph.nodes()) { // ORT lists them in topological order
            CpuKernel kernel = CpuKernels.forNode(node).orElseThrow(() -> new UnsupportedOperationException(
                    "javaep: JavaCpuExecutionProvider has no kernel for " + node.opType() + " (opset " + node.sinceVersion()
                            + ") node '" + node.name() + "'"));
            int[] inputs = new int[node.inputs().size()];
            for (int i = 0; i < inputs.length; i++) {
                String name = nameOf(node.inputs().get(i));
                // A name the group does not know is handed to the kernel as an omitted input, as before slots.
                inputs[i] = name == null ? NONE : slotOf.getOrDefault(name, NONE);
            }
            int[] outputs = new int[node.outputs().size()];
            for (int i = 0; i < outputs.length; i++) {
                ValueInfo info = node.outputs().get(i);
                String name = nameOf(info);
                if (name == null) {
                    outputs[i] = NONE;
                    continue;
                }
                int slot = fusedOutputOf.size();
                slotOf.put(name, slot); // a later writer of the same name is the one later readers see, as before
                Integer fusedOutput = fusedOutputIndex.get(name);
                fusedOutputOf.add(fusedOutput == null ? NONE : fusedOutput);
                intermediateTypes.add(fusedOutput == null ? info.elementType() : null);
                outputs[i] = slot;
            }
            steps.add(new Step(node, kernel, readsValuesForShapes(kernel), inputs, outputs));
        }
        return new CpuSubgraphProgram(threads, steps.toArray(Step[]::new), fusedOutputOf.size(), fusedInputSlots,
                fusedOutputOf.stream().mapToInt(Integer::intValue).toArray(), intermediateTypes.toArray(ElementType[]::new));
    }

    private static String nameOf(ValueInfo info) {
        return info == null || info.name().isEmpty() ? null : info.name();
    }

    /**
     * Whether the kernel's output shapes may depend on input values it does not name: it overrides
     * {@link CpuKernel#outputShapes(List)} and is no {@link PlannedKernel} (whose plans name the inputs they read).
     */
    private static boolean readsValuesForShapes(CpuKernel kernel) {
        if (kernel instanceof PlannedKernel) {
            return false;
        }
        try {
            return kernel.getClass().getMethod("outputShapes", List.class).getDeclaringClass() != CpuKernel.class;
        } catch (NoSuchMethodException e) {
            return true;
        }
    }

    @Override
    public void compute(KernelContext context) {
        Scratch scratch = scratches.get();
        Tensor[] values = scratch.values;
        scratch.used = 0;
        KernelThreads previousThreads = KernelThreads.enter(threads);
        try {
            for (int i = 0; i < fusedInputSlots.length; i++) {
                if (fusedInputSlots[i] != NONE) {
                    values[fusedInputSlots[i]] = context.input(i);
                }
            }
            StepProfiler profiler = context.stepProfiler(); // null unless ORT profiles the session
            for (int s = 0; s < steps.length; s++) {
                long startNanos = profiler == null ? 0L : System.nanoTime();
                run(steps[s], scratch.stepScratch[s], scratch, context);
                if (profiler != null) {
                    Node node = steps[s].node();
                    profiler.hostStep(node.opType(), node.name(), startNanos, System.nanoTime() - startNanos);
                }
            }
        } finally {
            scratch.endRun();
            KernelThreads.leave(previousThreads);
        }
    }

    private void run(Step step, StepScratch stepScratch, Scratch scratch, KernelContext context) {
        Tensor[] values = scratch.values;
        Tensor[] inputs = stepScratch.inputs;
        for (int i = 0; i < inputs.length; i++) {
            int slot = step.inputSlots()[i];
            inputs[i] = slot == NONE ? null : values[slot];
        }
        long[][] outputShapes = stepScratch.outputShapes(step);
        Tensor[] outputs = stepScratch.outputs;
        for (int i = 0; i < outputs.length; i++) {
            int slot = step.outputSlots()[i];
            if (slot == NONE || i >= outputShapes.length) {
                outputs[i] = null;
                continue;
            }
            int fusedOutput = fusedOutputOf[slot];
            Tensor output = fusedOutput != NONE ? context.output(fusedOutput, outputShapes[i])
                    : scratch.intermediate(slot, intermediateTypes[slot], outputShapes[i]);
            outputs[i] = output;
            values[slot] = output;
        }
        if (stepScratch.plan != null) {
            stepScratch.plan.compute(stepScratch.inputList, stepScratch.outputList);
        } else {
            step.kernel().compute(stepScratch.inputList, stepScratch.outputList);
        }
    }

    @Override
    public void close() {
        for (Scratch scratch; (scratch = allScratches.poll()) != null; ) {
            scratch.free();
        }
        scratches.remove(); // the releasing thread's entry; other threads' go stale once this program is unreachable
    }

    private Scratch newScratch() {
        Scratch scratch = new Scratch(slotCount, steps);
        allScratches.add(scratch);
        return scratch;
    }

    /** One step's lists and its last shapes, on one thread. */
    private static final class StepScratch {
        final Tensor[] inputs;
        final Tensor[] outputs;
        final List<Tensor> inputList;
        final List<Tensor> outputList;
        /** The input shapes {@link #shapes} answers for (copies), or null before the first Run. */
        long[][] inputShapes;
        long[][] shapes;
        /** A {@link PlannedKernel}'s plan for {@link #inputShapes}, else null. */
        PlannedKernel.Plan plan;
        /** Per input: a copy of the bytes the plan was made from ({@link PlannedKernel.Plan#valueInputs()}), else null. */
        MemorySegment[] planValues;

        StepScratch(Step step) {
            inputs = new Tensor[step.inputSlots().length];
            outputs = new Tensor[step.outputSlots().length];
            inputList = Arrays.asList(inputs);
            outputList = Arrays.asList(outputs);
        }

        /** The kernel's output shapes for this Run's inputs: asked again only when a shape changed (or values matter). */
        long[][] outputShapes(Step step) {
            if (step.shapesReadValues()) {
                return step.kernel().outputShapes(inputList);
            }
            if (inputShapes != null && sameShapes() && sameValues()) {
                return shapes;
            }
            long[][] current = new long[inputs.length][];
            for (int i = 0; i < inputs.length; i++) {
                current[i] = inputs[i] == null ? null : inputs[i].shape().clone();
            }
            PlannedKernel.Plan newPlan = step.kernel() instanceof PlannedKernel planned ? planned.plan(inputList) : null;
            long[][] result = newPlan != null ? newPlan.outputShapes() : step.kernel().outputShapes(inputList);
            MemorySegment[] values = null;
            long valueInputs = newPlan == null ? 0 : newPlan.valueInputs();
            if (valueInputs != 0) {
                values = new MemorySegment[inputs.length];
                for (int i = 0; i < inputs.length; i++) {
                    if ((valueInputs & 1L << i) != 0 && inputs[i] != null) {
                        values[i] = MemorySegment.ofArray(inputs[i].data().toArray(ValueLayout.JAVA_BYTE));
                    }
                }
            }
            inputShapes = current;
            shapes = result;
            plan = newPlan;
            planValues = values;
            return result;
        }

        /** Whether the inputs the plan read values of still hold the same bytes. */
        private boolean sameValues() {
            if (planValues == null) {
                return true;
            }
            for (int i = 0; i < inputs.length; i++) {
                MemorySegment seen = planValues[i];
                if (seen != null) {
                    MemorySegment data = inputs[i].data();
                    if (data.byteSize() != seen.byteSize()
                            || MemorySegment.mismatch(data, 0, data.byteSize(), seen, 0, seen.byteSize()) != -1) {
                        return false;
                    }
                }
            }
            return true;
        }

        private boolean sameShapes() {
            for (int i = 0; i < inputs.length; i++) {
                long[] seen = inputShapes[i];
                if (inputs[i] == null ? seen != null : seen == null || !Arrays.equals(seen, inputs[i].shape())) {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * A thread's values, step lists and intermediate buffer. Static, so that it holds no reference to its program: a
     * thread's {@code ThreadLocalMap} holds it strongly, and a value that reaches its own {@code ThreadLocal} key keeps
     * the entry (and the program, ~1.9 KB a session on JavaCpu) alive for as long as the thread lives.
     */
    private static final class Scratch {
        final Tensor[] values;
        final StepScratch[] stepScratch;
        /** Per slot: the intermediate tensor handed out last Run, reused while its place and shape stay the same. */
        final HostTensor[] intermediates;
        final long[] offsets;
        Arena bufferArena = Arena.ofShared();
        MemorySegment buffer = MemorySegment.NULL;
        /** Bytes of the buffer this Run has laid out (may pass the buffer's size: then the rest is in {@link #overflow}). */
        long used;
        Arena overflow;

        Scratch(int slotCount, Step[] steps) {
            values = new Tensor[slotCount];
            stepScratch = new StepScratch[steps.length];
            intermediates = new HostTensor[slotCount];
            offsets = new long[slotCount];
            for (int s = 0; s < steps.length; s++) {
                stepScratch[s] = new StepScratch(steps[s]);
            }
        }

        HostTensor intermediate(int slot, ElementType type, long[] shape) {
            long elements = 1;
            for (long d : shape) {
                elements = Math.multiplyExact(elements, d);
            }
            long bytes = Math.multiplyExact(elements, type.byteSize());
            long offset = used;
            used = Math.addExact(used, (bytes + ALIGNMENT - 1) & -ALIGNMENT);
            HostTensor last = intermediates[slot];
            if (used <= buffer.byteSize()) {
                if (last != null && offsets[slot] == offset && last.elementType() == type && Arrays.equals(last.shape(), shape)
                        && last.data().address() == buffer.address() + offset) {
                    return last;
                }
                HostTensor tensor = new HostTensor(type, shape, bytes == 0 ? MemorySegment.NULL.reinterpret(0)
                        : buffer.asSlice(offset, bytes));
                intermediates[slot] = tensor;
                offsets[slot] = offset;
                return tensor;
            }
            if (overflow == null) {
                overflow = Arena.ofShared(); // shared: the kernel threads read and write its tensors
            }
            intermediates[slot] = null;
            return new HostTensor(type, shape, bytes == 0 ? MemorySegment.NULL.reinterpret(0) : overflow.allocate(bytes, ALIGNMENT));
        }

        /** Drops this Run's overflow and grows the buffer to the Run's size, so the next Run with these shapes fits. */
        void endRun() {
            Arrays.fill(values, null);
            for (StepScratch s : stepScratch) {
                Arrays.fill(s.inputs, null);
                Arrays.fill(s.outputs, null);
            }
            if (overflow != null) {
                overflow.close();
                overflow = null;
            }
            if (used > buffer.byteSize()) {
                Arena grown = Arena.ofShared();
                buffer = grown.allocate(used, ALIGNMENT);
                bufferArena.close();
                bufferArena = grown;
                Arrays.fill(intermediates, null);
            }
        }

        void free() {
            buffer = MemorySegment.NULL;
            Arrays.fill(intermediates, null);
            bufferArena.close();
        }
    }
}
