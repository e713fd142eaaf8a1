package dev.javaep.cuda.kernel.tensor;

import static dev.javaep.spi.ops.KernelRows.mover;
import static dev.javaep.spi.ops.KernelRows.row;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.cuda.driver.Nvrtc;
import dev.javaep.cuda.kernel.CudaKernelFactory;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.OpSchema;
import dev.javaep.spi.ops.ShapeRules;
import dev.javaep.spi.ops.SplitRule;
import dev.javaep.spi.ops.TensorOps;
import dev.javaep.spi.ops.TensorOps.PadMode;
import dev.javaep.spi.ops.TensorOps.ScatterReduction;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * JavaCuda's rows for {@link TensorOps}, mirroring JavaCpu's {@code dev.javaep.cpu.kernel.tensor.TensorKernels}:
 * every schema version, every element type of 1, 2, 4, 8 or 16 bytes. Reshape, Flatten, Squeeze, Unsqueeze and
 * Identity are device-to-device copies; Shape, Size and Constant are computed on the host; everything else is a
 * CUDA C kernel, so those rows decline when NVRTC is absent.
 */
public final class TensorKernels {
    private TensorKernels() {}

    public static List<KernelTable.Row<CudaKernelFactory>> rows() {
        List<KernelTable.Row<CudaKernelFactory>> rows = new ArrayList<>();
        rows.add(mover(TensorOps.IDENTITY, "V", node -> IdentityNode::new));

        for (OpSchema schema : ShapeRules.VIEWS) {
            rows.add(mover(schema, node -> view(node, ShapeRules.view(schema, node)::apply)));
        }

        for (OpSchema schema : ShapeRules.REARRANGEMENTS) {
            rows.add(mover(schema, node -> rearrange(node, ShapeRules.rearrangement(schema, node)::apply)));
        }

        rows.add(mover(TensorOps.CONCAT_1, node -> concat(node.intAttribute("axis", 1))));
        rows.add(mover(TensorOps.CONCAT_4, node -> concat(TensorOps.requiredInt(node, "axis"))));
        for (OpSchema schema : SplitRule.SCHEMAS) {
            rows.add(mover(schema, node -> split(schema, node)));
        }

        rows.add(mover(TensorOps.PAD_1, node -> padWithAttributes(node, "paddings")));
        rows.add(mover(TensorOps.PAD_2, node -> padWithAttributes(node, "pads")));
        for (OpSchema pad : List.of(TensorOps.PAD_11, TensorOps.PAD_18, TensorOps.PAD_19)) {
            rows.add(mover(pad, node -> {
                PadMode mode = PadMode.of(node);
                requireNvrtc();
                return device -> new PadNode(device, mode, null, null);
            }));
        }

        rows.add(mover(TensorOps.GATHER, node -> {
            long axis = node.intAttribute("axis", 0);
            requireNvrtc();
            return device -> new GatherNode(device, axis);
        }));
        rows.add(mover(TensorOps.GATHER_ELEMENTS, node -> {
            long axis = node.intAttribute("axis", 0);
            requireNvrtc();
            return device -> new GatherElementsNode(device, axis);
        }));
        for (OpSchema scatter : List.of(TensorOps.SCATTER_ND_11, TensorOps.SCATTER_ND_16, TensorOps.SCATTER_ND_18)) {
            rows.add(mover(scatter, node -> {
                ScatterReduction reduction = ScatterReduction.of(node);
                ElementType type = scatter.typeOf(node, "T");
                if (reduction != ScatterReduction.NONE && !ScatterNDNode.REDUCIBLE.contains(type)) {
                    throw new IllegalArgumentException("ScatterND: JavaCuda reduces (" + reduction + ") only "
                            + ScatterNDNode.REDUCIBLE + ", the node is " + type);
                }
                requireNvrtc();
                return device -> new ScatterNDNode(device, reduction, type);
            }));
        }

        for (OpSchema hostComputed : List.of(TensorOps.SHAPE_1, TensorOps.SHAPE_15, TensorOps.SIZE, TensorOps.CONSTANT_1,
                TensorOps.CONSTANT_12)) {
            rows.add(mover(hostComputed, node -> {
                CpuKernel kernel = CpuKernels.forNode(node).orElseThrow(() -> new IllegalArgumentException(
                        node.opType() + ": " + CpuKernels.support(node)));
                return device -> new HostComputedNode(device, node.opType(), kernel);
            }));
        }
        rows.add(mover(TensorOps.CONSTANT_OF_SHAPE, "T2", node -> {
            var fill = TensorOps.fillValue(node);
            requireNvrtc();
            return device -> new FillNode(device, fill);
        }));
        rows.add(row(TensorOps.RANGE, "T", TensorOps.RANGE.types().get("T"), node -> {
            requireNvrtc();
            return device -> new FillNode(device, null);
        }));
        return List.copyOf(rows);
    }

    private static void requireNvrtc() {
        if (!CudaKernelLibrary.compilesSources()) {
            throw new UnsupportedOperationException("JavaCuda compiles this op's kernel with NVRTC: " + Nvrtc.absenceReason());
        }
    }

    private static CudaKernelFactory view(Node node, Function<DeviceInputs, long[]> rule) {
        String op = node.opType();
        return device -> new ViewNode(device, op, rule);
    }

    private static CudaKernelFactory rearrange(Node node, Function<DeviceInputs, TensorOps.Rearrangement> rule) {
        requireNvrtc();
        String op = node.opType();
        return device -> new RearrangeNode(device, op, rule);
    }

    private static CudaKernelFactory concat(long axis) {
        requireNvrtc();
        return device -> new ConcatNode(device, axis);
    }

    private static CudaKernelFactory split(OpSchema schema, Node node) {
        SplitRule rule = SplitRule.of(schema, node);
        requireNvrtc();
        return device -> new SplitNode(device, rule);
    }

    private static CudaKernelFactory padWithAttributes(Node node, String padsAttribute) {
        ElementType type = node.inputs().getFirst().elementType();
        PadMode mode = PadMode.of(node);
        long[] pads = TensorOps.requiredInts(node, padsAttribute);
        byte[] value = TensorOps.padValueBits(node.floatAttribute("value", 0f), type);
        requireNvrtc();
        return device -> new PadNode(device, mode, pads, value);
    }
}
