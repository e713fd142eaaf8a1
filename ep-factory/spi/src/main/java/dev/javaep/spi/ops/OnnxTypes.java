package dev.javaep.spi.ops;

import dev.javaep.spi.ElementType;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

/** The element-type sets ONNX's type constraints name again and again (facts from the ONNX operator spec). */
public final class OnnxTypes {
    private OnnxTypes() {}

    /** tensor(float16), tensor(float), tensor(double), tensor(bfloat16). */
    public static final Set<ElementType> FLOATS = Set.copyOf(EnumSet.of(ElementType.FLOAT16, ElementType.FLOAT,
            ElementType.DOUBLE, ElementType.BFLOAT16));
    /** Every signed and unsigned integer type of 8 to 64 bits. */
    public static final Set<ElementType> INTEGERS = Set.copyOf(EnumSet.of(ElementType.UINT8, ElementType.UINT16,
            ElementType.UINT32, ElementType.UINT64, ElementType.INT8, ElementType.INT16, ElementType.INT32,
            ElementType.INT64));
    /** Add/Sub/Mul/Div-14's T: every numeric type but the 4-bit and 8-bit float ones. */
    public static final Set<ElementType> NUMERIC = union(FLOATS, INTEGERS);
    /** Every tensor element type (Identity's V, Reshape's T, ...). */
    public static final Set<ElementType> ANY = Set.copyOf(Arrays.stream(ElementType.values())
            .filter(t -> t != ElementType.UNDEFINED).toList());
    /** The element types whose elements are whole bytes: what a byte-moving kernel (copy, transpose) can move. */
    public static final Set<ElementType> FIXED_SIZE = Set.copyOf(ANY.stream().filter(t -> t.byteSize() > 0).toList());
    /** tensor(int32), tensor(int64): indices, axes, shapes. */
    public static final Set<ElementType> INDICES = Set.of(ElementType.INT32, ElementType.INT64);

    @SafeVarargs
    public static Set<ElementType> union(Set<ElementType>... sets) {
        EnumSet<ElementType> all = EnumSet.noneOf(ElementType.class);
        for (Set<ElementType> s : sets) {
            all.addAll(s);
        }
        return Set.copyOf(all);
    }
}
