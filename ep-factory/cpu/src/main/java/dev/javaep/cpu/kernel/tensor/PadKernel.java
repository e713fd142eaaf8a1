package dev.javaep.cpu.kernel.tensor;

import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.TensorOps;
import dev.javaep.spi.ops.TensorOps.PadMode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Pad in any mode. Pads come from the attribute ({@code padsAttribute}, opset 1..10) or input 1; the constant
 * from {@code valueBits} (opset 1..10's float attribute, as the element's bytes) or input 2 (its bytes, zero
 * when omitted); the axes from input 3 (opset 18 and later). Every output element is either the constant or the
 * input element {@link PadMode#sourceIndex} maps it to, axis by axis; a row's in-range middle is copied in bulk.
 */
record PadKernel(PadMode mode, long[] padsAttribute, byte[] valueBits) implements TensorKernel.Unplanned {
    @Override
    public String op() {
        return "Pad";
    }

    private TensorOps.Padding padding(InputValues inputs) {
        long[] x = Shapes.checked(inputs.shape(0));
        long[] pads = padsAttribute != null ? padsAttribute : inputs.longs(1);
        if (pads == null) {
            throw new IllegalArgumentException("Pad: pads are required");
        }
        return TensorOps.pad(x, pads, inputs.longs(3), mode);
    }

    @Override
    public long[][] outputShapes(InputValues inputs) {
        return new long[][] {padding(inputs).outputShape()};
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        Tensor x = inputs.get(0);
        Tensor y = outputs.get(0);
        Shapes.requireType(op(), "output", y, x.elementType());
        TensorOps.Padding p = padding(InputValues.of(op(), inputs));
        Shapes.requireOutputShape(op(), outputs, p.outputShape());
        long[] out = p.outputShape();
        long total = Shapes.elementCount(out);
        if (total == 0) {
            return;
        }
        int size = x.elementType().byteSize();
        int rank = out.length;
        long[] in = x.shape();
        long[] inStrides = TensorOps.contiguousStrides(in);
        long rowLength = rank == 0 ? 1 : out[rank - 1];
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment constantRow = arena.allocate(rowLength * size);
            MemorySegment value = constant(inputs, size, arena);
            for (long i = 0; i < rowLength; i++) {
                MemorySegment.copy(value, 0, constantRow, i * size, size);
            }
            if (rank == 0) {
                MemorySegment.copy(x.data(), 0, y.data(), 0, size);
                return;
            }
            long rows = total / rowLength;
            long[] idx = new long[rank - 1];
            int last = rank - 1;
            long dim = in[last];
            long begin = p.begin()[last];
            // the output positions whose source is the input's own row, contiguous: [from, to)
            long from = Math.clamp(begin, 0, rowLength);
            long to = Math.clamp(begin + dim, 0, rowLength);
            for (long row = 0; row < rows; row++) {
                long target = row * rowLength * size;
                long source = 0;
                boolean constantRowHere = false;
                for (int k = 0; k < last; k++) {
                    long s = mode.sourceIndex(idx[k] - p.begin()[k], in[k]);
                    if (s < 0) {
                        constantRowHere = true;
                        break;
                    }
                    source += s * inStrides[k];
                }
                if (constantRowHere) {
                    MemorySegment.copy(constantRow, 0, y.data(), target, rowLength * size);
                } else {
                    for (long j = 0; j < from; j++) {
                        copyOne(x, source, mode.sourceIndex(j - begin, dim), constantRow, y, target + j * size, size);
                    }
                    if (to > from) {
                        MemorySegment.copy(x.data(), (source + from - begin) * size, y.data(), target + from * size,
                                (to - from) * size);
                    }
                    for (long j = Math.max(to, from); j < rowLength; j++) {
                        copyOne(x, source, mode.sourceIndex(j - begin, dim), constantRow, y, target + j * size, size);
                    }
                }
                for (int k = last - 1; k >= 0; k--) {
                    if (++idx[k] < out[k]) {
                        break;
                    }
                    idx[k] = 0;
                }
            }
        }
    }

    private static void copyOne(Tensor x, long rowStart, long s, MemorySegment constantRow, Tensor y, long target, int size) {
        if (s < 0) {
            MemorySegment.copy(constantRow, 0, y.data(), target, size);
        } else {
            MemorySegment.copy(x.data(), (rowStart + s) * size, y.data(), target, size);
        }
    }

    /** One element holding the pad constant: the attribute's bits, input 2's element, or zeros. */
    private MemorySegment constant(List<? extends Tensor> inputs, int size, Arena arena) {
        MemorySegment value = arena.allocate(size);
        if (valueBits != null) {
            MemorySegment.copy(MemorySegment.ofArray(valueBits), 0, value, 0, size);
        } else if (inputs.size() > 2 && inputs.get(2) != null) {
            Tensor c = inputs.get(2);
            if (c.elementCount() != 1) {
                throw new IllegalArgumentException("Pad: constant_value must hold one element, it has " + c.elementCount());
            }
            MemorySegment.copy(c.data(), 0, value, 0, size);
        }
        return value;
    }
}
