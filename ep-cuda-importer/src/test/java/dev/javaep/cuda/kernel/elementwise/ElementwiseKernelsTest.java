package dev.javaep.cuda.kernel.elementwise;

import static dev.javaep.cpu.kernel.TestNodes.node;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaOps;
import dev.javaep.cuda.kernel.CudaSource;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.ops.ElementwiseOps;
import dev.javaep.spi.ops.KernelTable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** JavaCuda's elementwise rows and the template's plans, without a GPU. */
class ElementwiseKernelsTest {
    private static final ElementType F = ElementType.FLOAT;
    private static final ElementType H = ElementType.FLOAT16;

    /** A node of each row's schema and each of the row's types (the other inputs and the output of the same type, or bool). */
    private static List<Node> everyRowsNodes() {
        List<Node> nodes = new ArrayList<>();
        for (KernelTable.Row<?> row : ElementwiseKernels.rows()) {
            var schema = row.schema();
            for (ElementType t : row.types()) {
                int inputs = Math.min(schema.inputs().size(), 3);
                List<ElementType> types = new ArrayList<>();
                for (int i = 0; i < inputs; i++) {
                    String parameter = schema.inputs().get(i);
                    types.add(parameter.equals(row.typeParameter()) || parameter.equals("T1") && schema.opType().equals("Pow") ? t
                            : ElementType.BOOL);
                }
                String outputParameter = schema.outputs().getFirst();
                ElementType out = outputParameter.equals(row.typeParameter()) || schema.opType().equals("Where") ? t
                        : schema.opType().equals("Cast") ? t : ElementType.BOOL;
                List<Attribute> attributes = new ArrayList<>();
                if (schema.opType().equals("Cast")) {
                    attributes.add(new Attribute.IntValue("to", out.onnxValue()));
                }
                if (schema.opType().equals("Mod") && (t == F || t == H)) {
                    attributes.add(new Attribute.IntValue("fmod", 1));
                }
                nodes.add(node(schema.opType(), schema.since(), types, out, attributes.toArray(Attribute[]::new)));
            }
        }
        return nodes;
    }

    @Test
    void everyRowsTypesHaveAPlanWithOneEntryPerSource() {
        Map<String, String> codeByEntry = new HashMap<>();
        int plans = 0;
        for (Node node : everyRowsNodes()) {
            ElementwiseNode.Plan plan = ElementwiseKernels.plan(node);
            plans++;
            for (ElementwiseSource.Form form : ElementwiseSource.Form.values()) {
                CudaSource source = plan.spec().source(form);
                assertTrue(source.code().startsWith(CudaSource.PRELUDE), node.toString());
                assertTrue(source.code().contains("#define RESULT "), node.toString());
                String other = codeByEntry.putIfAbsent(source.entry(), source.code());
                assertTrue(other == null || other.equals(source.code()), "two sources named " + source.entry());
            }
        }
        assertTrue(plans > 200, "plans: " + plans);
    }

    @Test
    void expressionsAreTheOnesJavaCpuComputes() {
        assertEquals("pymod(x0, x1)", ElementwiseKernels.plan(node("Mod", 13, List.of(ElementType.INT64, ElementType.INT64),
                ElementType.INT64)).spec().result());
        assertEquals("(x0 % x1)", ElementwiseKernels.plan(node("Mod", 13, List.of(ElementType.INT64, ElementType.INT64),
                ElementType.INT64, new Attribute.IntValue("fmod", 1))).spec().result());
        assertEquals("vmax(vmax(x0, x1), x2)", ElementwiseKernels.plan(node("Max", 13, List.of(H, H, H), H)).spec().result());
        assertEquals("((x0 + x1) / 2.0f)", ElementwiseKernels.plan(node("Mean", 13, List.of(F, F), F)).spec().result());
        ElementwiseNode.Plan clip = ElementwiseKernels.plan(node("Clip", 13, java.util.Arrays.asList(H, null, H), H));
        assertEquals("clip_hi(x0, x1)", clip.spec().result());
        assertArrayEquals(new int[] {0, 2}, clip.inputIndices(), "an omitted min is not passed");
        ElementwiseNode.Plan leaky = ElementwiseKernels.plan(node("LeakyRelu", 16, List.of(H), H));
        assertEquals(0.01f, leaky.params()[0]);
        assertEquals(List.of("ld_bool", "ld_bits16", "ld_bits16"), ElementwiseKernels.plan(node("Where", 16,
                List.of(ElementType.BOOL, H, H), H)).spec().loaders());
        assertEquals("to_u64((double) x0)", ElementwiseKernels.plan(node("Cast", 13, List.of(H), ElementType.UINT64,
                new Attribute.IntValue("to", ElementType.UINT64.onnxValue()))).spec().result());
    }

    @Test
    void nodesTheRowsCannotRunAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> ElementwiseKernels.plan(node("Mod", 13, List.of(F, F), F)),
                "fmod=0 on floats");
        assertThrows(IllegalArgumentException.class, () -> ElementwiseKernels.plan(node("Sum", 13, Collections.nCopies(9, F), F)),
                "more inputs than the template takes");
        assertThrows(UnsupportedOperationException.class, () -> ElementwiseKernels.plan(node("Cast", 13, List.of(F), ElementType.STRING,
                new Attribute.IntValue("to", ElementType.STRING.onnxValue()))));
    }

    @Test
    void withoutNvrtcOnlyThePtxKernelsRemain() {
        assumeFalse(CudaKernelLibrary.compilesSources(), "NVRTC is here: the template's rows are supported");
        assertEquals(NodeSupport.compiled(), CudaOps.support(node("Add", 14, List.of(F, F), F)));
        assertEquals(NodeSupport.compiled(), CudaOps.support(node("Relu", 14, List.of(F), F)));
        NodeSupport.Declined d = assertInstanceOf(NodeSupport.Declined.class, CudaOps.support(node("Add", 14, List.of(H, H), H)));
        assertEquals(DeclineCode.ATTRIBUTE, d.code());
        assertTrue(d.reason().contains("NVRTC"), d.reason());
        assertInstanceOf(NodeSupport.Declined.class, CudaOps.support(node("Erf", 13, List.of(F), F)));
    }

    @Test
    void typesOutsideTheRowsAreDeclinedForTheirType() {
        NodeSupport.Declined d = assertInstanceOf(NodeSupport.Declined.class,
                CudaOps.support(node("Exp", 13, List.of(ElementType.DOUBLE), ElementType.DOUBLE)));
        assertEquals(DeclineCode.ELEMENT_TYPE, d.code());
    }

    @Test
    void layoutsTakeTheContiguousFormWhereTheyCanAndMergeDimensionsOtherwise() {
        ElementwiseLayout same = ElementwiseLayout.of(new long[] {2, 3}, new long[] {2, 3}, new long[] {1}, new long[] {1, 1});
        assertNull(same.shape());
        assertArrayEquals(new long[] {1, 0, 0}, same.steps(), "scalars step 0");
        ElementwiseLayout bias = ElementwiseLayout.of(new long[] {2, 3, 4}, new long[] {2, 3, 4}, new long[] {4});
        assertArrayEquals(new long[] {6, 4}, bias.shape(), "the two leading dimensions merge");
        assertArrayEquals(new long[] {4, 1}, java.util.Arrays.copyOfRange(bias.strides(), 0, 2));
        assertArrayEquals(new long[] {0, 1}, java.util.Arrays.copyOfRange(bias.strides(), 8, 10));
        ElementwiseLayout outer = ElementwiseLayout.of(new long[] {3, 5}, new long[] {3, 1}, new long[] {1, 5});
        assertArrayEquals(new long[] {3, 5}, outer.shape());
        assertArrayEquals(new long[] {1, 0}, java.util.Arrays.copyOfRange(outer.strides(), 0, 2));
        assertArrayEquals(new long[] {0, 1}, java.util.Arrays.copyOfRange(outer.strides(), 8, 10));
        long[] a = {2, 1, 2, 1, 2, 1, 2, 1, 2};
        long[] b = {1, 2, 1, 2, 1, 2, 1, 2, 1};
        long[] out = ElementwiseOps.broadcastShape(a, b);
        var e = assertThrows(IllegalArgumentException.class, () -> ElementwiseLayout.of(out, a, b));
        assertTrue(e.getMessage().contains("9 dimensions"), e.getMessage());
    }
}
