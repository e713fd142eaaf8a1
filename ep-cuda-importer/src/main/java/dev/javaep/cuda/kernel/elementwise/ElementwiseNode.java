package dev.javaep.cuda.kernel.elementwise;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.cuda.kernel.CudaSource;
import dev.javaep.cuda.kernel.KernelArguments;
import dev.javaep.cuda.kernel.ptx.LaunchShape;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.ElementwiseOps;
import java.util.Arrays;
import java.util.List;

/**
 * An elementwise op run by {@link ElementwiseSource}'s template: the node's present inputs, broadcast together
 * (PRelu: the slope to X; Clip: scalar bounds to X), one launch per Run in the contiguous or broadcast form.
 */
final class ElementwiseNode extends CudaNode {
    /** How the output shape follows from the inputs'. */
    enum ShapeRule { MULTIDIRECTIONAL, PRELU, CLIP }

    /**
     * What a node compiles to, decided without a GPU: the template's specialisation and how to feed it.
     *
     * @param inputIndices the node's inputs the kernel reads, in the order of {@code spec}'s loaders (omitted optional
     *                     inputs are left out)
     * @param inputTypes   their element types
     * @param params       the template's {@code params.v[]} (attributes), at most 8
     */
    record Plan(String op, ElementwiseSource.Spec spec, int[] inputIndices, List<ElementType> inputTypes,
                ElementType outputType, ShapeRule rule, float[] params) {
        Plan {
            inputIndices = inputIndices.clone();
            inputTypes = List.copyOf(inputTypes);
            params = params.clone();
            if (inputIndices.length != spec.loaders().size() || inputTypes.size() != inputIndices.length || params.length > 8) {
                throw new IllegalArgumentException(op + ": inconsistent plan");
            }
        }
    }

    private final int[] inputIndices;
    private final List<ElementType> inputTypes;
    private final ElementType outputType;
    private final ShapeRule rule;
    private final float[] params;
    private final CudaSource contiguous;
    private final CudaSource broadcast;

    ElementwiseNode(CudaDevice device, Plan plan) {
        super(device, plan.op());
        this.inputIndices = plan.inputIndices();
        this.inputTypes = plan.inputTypes();
        this.outputType = plan.outputType();
        this.rule = plan.rule();
        this.params = plan.params();
        this.contiguous = plan.spec().source(ElementwiseSource.Form.CONTIGUOUS);
        this.broadcast = plan.spec().source(ElementwiseSource.Form.BROADCAST);
    }

    /**
     * The launch plan of the input shapes this node saw last (output shape, layout, grid): a Run with the same shapes,
     * the steady state, reuses it after comparing the shapes in place and allocates nothing.
     */
    private record ShapePlan(long[][] inputShapes, long[] outShape, ElementwiseLayout layout, LaunchShape launch, long n,
                             CudaKernelLibrary kernels) {
        boolean matches(KernelContext context, int[] inputIndices, CudaKernelLibrary on) {
            if (on != kernels) {
                return false;
            }
            for (int k = 0; k < inputIndices.length; k++) {
                if (!Arrays.equals(inputShapes[k], context.input(inputIndices[k]).shape())) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Per thread: the input addresses of the Run being launched (the kernel's pointer struct). */
    private static final ThreadLocal<long[]> POINTERS = ThreadLocal.withInitial(() -> new long[ElementwiseSource.MAX_INPUTS]);

    private volatile ShapePlan last;

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        int count = inputIndices.length;
        long[] pointers = POINTERS.get();
        for (int k = 0; k < count; k++) {
            Tensor t = context.input(inputIndices[k]);
            if (t == null) {
                throw new IllegalArgumentException(op + ": input " + inputIndices[k] + " is missing");
            }
            if (t.elementType() != inputTypes.get(k)) {
                throw new IllegalArgumentException(op + ": input " + inputIndices[k] + " is " + t.elementType()
                        + ", the kernel was built for " + inputTypes.get(k));
            }
            pointers[k] = address(t);
        }
        ShapePlan plan = last;
        if (plan == null || !plan.matches(context, inputIndices, kernels)) {
            plan = plan(context, kernels);
            last = plan;
        }
        Tensor y = context.output(0, plan.outShape());
        if (y.elementType() != outputType) {
            throw new IllegalArgumentException(op + ": the output is " + y.elementType() + ", the kernel was built for " + outputType);
        }
        long n = plan.n();
        if (n == 0) {
            return;
        }
        ElementwiseLayout layout = plan.layout();
        KernelArguments args = KernelArguments.begin().u64(address(y)).longs(pointers, ElementwiseSource.MAX_INPUTS).i64(n);
        if (layout.contiguous()) {
            args.longs(layout.steps(), ElementwiseSource.MAX_RANK).floats(params, 8);
            kernels.launch(contiguous, plan.launch(), 0, stream, args);
        } else {
            args.i32(layout.shape().length).longs(layout.shape(), ElementwiseSource.MAX_RANK)
                    .longs(layout.strides(), ElementwiseSource.MAX_INPUTS * ElementwiseSource.MAX_RANK).floats(params, 8);
            kernels.launch(broadcast, plan.launch(), 0, stream, args);
        }
    }

    /** The launch plan of this Run's input shapes (which the shape rule checks). */
    private ShapePlan plan(KernelContext context, CudaKernelLibrary kernels) {
        int count = inputIndices.length;
        long[][] shapes = new long[count][];
        for (int k = 0; k < count; k++) {
            shapes[k] = context.input(inputIndices[k]).shape().clone(); // kept: the tensor's array is not ours
        }
        long[] outShape = switch (rule) {
            case MULTIDIRECTIONAL -> ElementwiseOps.broadcastShape(shapes);
            case PRELU -> ElementwiseOps.preluShape(shapes[0], shapes[1]);
            case CLIP -> {
                for (int k = 1; k < count; k++) {
                    ElementwiseOps.requireClipBound(shapes[k], "bound " + k);
                }
                yield shapes[0].clone();
            }
        };
        long n = Tensor.elementCount(outShape);
        return new ShapePlan(shapes, outShape, n == 0 ? null : ElementwiseLayout.of(outShape, shapes),
                n == 0 ? null : kernels.linear(n), n, kernels);
    }
}
