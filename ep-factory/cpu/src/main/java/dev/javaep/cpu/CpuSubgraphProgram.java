package dev.javaep.cpu;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.Graph;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Node;
import dev.javaep.spi.StepProfiler;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ValueInfo;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A fused subgraph compiled to a list of kernel steps. Values are looked up by name: the fused node's
 * inputs come from the kernel context, its outputs go straight into ORT's output tensors, and
 * intermediates live in a per-call arena. Holds no mutable state, so concurrent runs are safe.
 */
final class CpuSubgraphProgram implements CompiledNode {
    private record Step(Node node, CpuKernel kernel) {}

    private final List<Step> steps;
    private final List<String> inputNames;
    private final Map<String, Integer> outputIndex;

    private CpuSubgraphProgram(List<Step> steps, List<String> inputNames, Map<String, Integer> outputIndex) {
        this.steps = steps;
        this.inputNames = inputNames;
        this.outputIndex = outputIndex;
    }

    static CpuSubgraphProgram compile(Graph subgraph, Node fusedNode) {
        List<Step> steps = new ArrayList<>();
        for (Node node : subgraph.nodes()) { // ORT lists them in topological order
            CpuKernel kernel = CpuKernels.forNode(node).orElseThrow(() -> new UnsupportedOperationException(
                    "javaep: JavaCpuExecutionProvider has no kernel for " + node.opType() + " (opset " + node.sinceVersion()
                            + ") node '" + node.name() + "'"));
            steps.add(new Step(node, kernel));
        }
        List<String> inputs = fusedNode.inputs().stream().map(v -> v == null ? null : v.name()).toList();
        Map<String, Integer> outputs = new HashMap<>();
        for (int i = 0; i < fusedNode.outputs().size(); i++) {
            ValueInfo output = fusedNode.outputs().get(i);
            if (output != null) {
                outputs.put(output.name(), i);
            }
        }
        return new CpuSubgraphProgram(List.copyOf(steps), inputs, Map.copyOf(outputs));
    }

    @Override
    public void compute(KernelContext context) {
        Map<String, Tensor> values = new HashMap<>();
        for (int i = 0; i < inputNames.size(); i++) {
            if (inputNames.get(i) != null) {
                values.put(inputNames.get(i), context.input(i));
            }
        }
        try (Arena intermediates = Arena.ofConfined()) {
            StepProfiler profiler = context.stepProfiler(); // null unless ORT profiles the session
            for (Step step : steps) {
                long startNanos = profiler == null ? 0L : System.nanoTime();
                run(step, values, context, intermediates);
                if (profiler != null) {
                    profiler.hostStep(step.node().opType(), step.node().name(), startNanos, System.nanoTime() - startNanos);
                }
            }
        }
    }

    private void run(Step step, Map<String, Tensor> values, KernelContext context, Arena intermediates) {
        List<ValueInfo> inputInfos = step.node().inputs();
        List<Tensor> inputs = new ArrayList<>(inputInfos.size());
        for (int i = 0; i < inputInfos.size(); i++) {
            ValueInfo info = inputInfos.get(i);
            Tensor tensor = info == null || info.name().isEmpty() ? null : values.get(info.name());
            inputs.add(tensor);
        }
        long[][] outputShapes = step.kernel().outputShapes(inputs);
        List<ValueInfo> outputInfos = step.node().outputs();
        List<Tensor> outputs = new ArrayList<>(outputInfos.size());
        for (int i = 0; i < outputInfos.size(); i++) {
            ValueInfo info = outputInfos.get(i);
            if (info == null || i >= outputShapes.length) {
                outputs.add(null);
                continue;
            }
            Integer index = outputIndex.get(info.name());
            Tensor output = index != null
                    ? context.output(index, outputShapes[i])
                    : intermediate(info, outputShapes[i], intermediates);
            outputs.add(output);
            values.put(info.name(), output);
        }
        step.kernel().compute(inputs, outputs);
    }

    private static Tensor intermediate(ValueInfo info, long[] shape, Arena arena) {
        long elements = 1;
        for (long d : shape) {
            elements = Math.multiplyExact(elements, d);
        }
        long bytes = Math.multiplyExact(elements, info.elementType().byteSize());
        MemorySegment data = bytes == 0 ? MemorySegment.NULL.reinterpret(0) : arena.allocate(bytes, 64);
        return new HostTensor(info.elementType(), shape, data);
    }
}
