package dev.javaep.cpu.kernel.elementwise;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Cast between float16, float32, float64, the integer types and bool, with C++'s conversions as ONNX Runtime's
 * CPU kernel applies them: floats narrow with round-to-nearest-even (float64 to float16 through float32, as ONNX
 * Runtime does), floats to integers truncate toward zero (ONNX leaves out-of-range values undefined; here they
 * wrap after saturating to int64, NaN gives 0), integers to floats round to nearest, anything to bool is
 * {@code != 0} (NaN is true), bool is 0 or 1, integers to narrower integers keep the low bits.
 */
record CastKernel(ElementType from, ElementType to) implements CpuKernel {
    private static final ValueLayout.OfShort F16 = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    CastKernel {
        for (ElementType t : new ElementType[] {from, to}) {
            if (!Lanes.isFloat(t) && !Lanes.isInteger(t)) {
                throw new IllegalArgumentException("Cast is not implemented for " + from + " -> " + to);
            }
        }
    }

    @Override
    public long[][] outputShapes(long[][] inputShapes) {
        return Shapes.likeTheOnlyInput("Cast", inputShapes);
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        Tensor x = inputs.get(0);
        Tensor y = outputs.get(0);
        Shapes.requireTypes("Cast", x, from, y, to);
        Shapes.requireOutputShape("Cast", outputs, x.shape());
        MemorySegment in = x.data();
        MemorySegment out = y.data();
        long count = x.elementCount();
        if (from == to) {
            MemorySegment.copy(in, 0, out, 0, x.byteSize());
            return;
        }
        if (Lanes.isFloat(from)) {
            double[] values = Lanes.threadDoubles();
            long[] integers = Lanes.isFloat(to) ? null : Lanes.threadLongs();
            for (long c = 0; c < count; c += Lanes.CHUNK) {
                int n = (int) Math.min(Lanes.CHUNK, count - c);
                Lanes.load(in, from, c, 1, values, n);
                if (integers == null) {
                    Lanes.store(out, to, c, values, n);
                    continue;
                }
                switch (to) {
                    case BOOL -> { for (int i = 0; i < n; i++) integers[i] = values[i] != 0 ? 1 : 0; }
                    case UINT64 -> { for (int i = 0; i < n; i++) integers[i] = Lanes.doubleToUnsigned(values[i]); }
                    default -> { for (int i = 0; i < n; i++) integers[i] = (long) values[i]; }
                }
                Lanes.store(out, to, c, integers, n);
            }
        } else {
            long[] integers = Lanes.threadLongs();
            boolean unsigned64 = from == ElementType.UINT64;
            for (long c = 0; c < count; c += Lanes.CHUNK) {
                int n = (int) Math.min(Lanes.CHUNK, count - c);
                Lanes.load(in, from, c, 1, integers, n);
                switch (to) {
                    // Integers round once, straight to the target's precision (through double would round twice).
                    case FLOAT -> {
                        for (int i = 0; i < n; i++) out.setAtIndex(F32, c + i, unsigned64 ? Lanes.unsignedToFloat(integers[i]) : (float) integers[i]);
                    }
                    case FLOAT16 -> {
                        for (int i = 0; i < n; i++) out.setAtIndex(F16, c + i, Float.floatToFloat16(unsigned64 ? Lanes.unsignedToFloat(integers[i]) : (float) integers[i]));
                    }
                    case DOUBLE -> {
                        for (int i = 0; i < n; i++) out.setAtIndex(F64, c + i, unsigned64 ? Lanes.unsignedToDouble(integers[i]) : (double) integers[i]);
                    }
                    default -> Lanes.store(out, to, c, integers, n);
                }
            }
        }
    }
}
