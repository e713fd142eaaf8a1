package dev.javaep.cpu.kernel.conv;

import static dev.javaep.cpu.kernel.conv.KernelRun.TABLE;
import static dev.javaep.cpu.kernel.conv.KernelRun.ints;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.ValueInfo;
import dev.javaep.spi.ops.ConvOps;
import dev.javaep.spi.ops.OnnxOps;
import dev.javaep.spi.ops.PoolOps;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which conv and pool nodes JavaCpu takes, and why it leaves the others. */
class ConvKernelsTest {
    private static final ElementType F = ElementType.FLOAT;
    private static final long[] X4 = {1, 2, 5, 5};

    private static NodeSupport.Declined declined(Node node) {
        return assertInstanceOf(NodeSupport.Declined.class, TABLE.support(node), node::toString);
    }

    @Test
    void everyVersionOfEveryOpHasARow() {
        assertTrue(OnnxOps.all().containsAll(ConvOps.SCHEMAS));
        assertTrue(OnnxOps.all().containsAll(PoolOps.SCHEMAS));
        for (int version : new int[] {1, 8, 10, 11, 12, 22}) {
            assertEquals(NodeSupport.compiled(), TABLE.support(KernelRun.node("MaxPool", version, F, new long[][] {X4},
                    ints("kernel_shape", 2, 2))), "MaxPool-" + version);
        }
        for (int version : new int[] {1, 7, 10, 11, 19, 22}) {
            assertEquals(NodeSupport.compiled(), TABLE.support(KernelRun.node("AveragePool", version, ElementType.FLOAT16,
                    new long[][] {X4}, ints("kernel_shape", 2, 2))), "AveragePool-" + version);
        }
        for (String op : List.of("Conv", "ConvTranspose")) {
            for (int version : new int[] {1, 11, 22}) {
                assertEquals(NodeSupport.compiled(), TABLE.support(KernelRun.node(op, version, F,
                        new long[][] {X4, {2, 2, 3, 3}, {2}})), op + "-" + version);
            }
        }
        assertEquals(NodeSupport.compiled(), TABLE.support(KernelRun.node("MaxPool", 12, ElementType.UINT8, new long[][] {X4},
                ints("kernel_shape", 2, 2))));
    }

    @Test
    void declinesWhatItCannotRunExactly() {
        // MaxPool's Indices output is int64 (and arrived in version 8: MaxPoolIndicesTest)
        Node int32Indices = new Node(1, "n", "MaxPool", "", 12, List.of(new ValueInfo("x", F, X4, true)),
                List.of(new ValueInfo("y", F, null, true), new ValueInfo("i", ElementType.INT32, null, true)),
                Map.of("kernel_shape", ints("kernel_shape", 2, 2)));
        assertEquals(DeclineCode.ELEMENT_TYPE, declined(int32Indices).code());
        // an attribute the version does not have
        assertEquals(DeclineCode.ATTRIBUTE, declined(KernelRun.node("MaxPool", 8, F, new long[][] {X4},
                ints("kernel_shape", 2, 2), ints("dilations", 2, 2))).code());
        assertEquals(DeclineCode.ATTRIBUTE, declined(KernelRun.node("AveragePool", 11, F, new long[][] {X4},
                ints("kernel_shape", 2, 2), ints("dilations", 2, 2))).code());
        // int8 MaxPool before opset 12; double anywhere
        assertEquals(DeclineCode.ELEMENT_TYPE, declined(KernelRun.node("MaxPool", 11, ElementType.INT8, new long[][] {X4},
                ints("kernel_shape", 2, 2))).code());
        assertEquals(DeclineCode.ELEMENT_TYPE, declined(KernelRun.node("Conv", 11, ElementType.DOUBLE,
                new long[][] {X4, {2, 2, 3, 3}})).code());
        // malformed attributes say what is wrong
        NodeSupport.Declined bad = declined(KernelRun.node("Conv", 11, F, new long[][] {X4, {2, 2, 3, 3}},
                new Attribute.StringValue("auto_pad", "SAME")));
        assertEquals(DeclineCode.ATTRIBUTE, bad.code());
        assertTrue(bad.reason().contains("auto_pad 'SAME'"), bad.reason());
        // four spatial axes
        NodeSupport.Declined fourD = declined(KernelRun.node("Conv", 11, F, new long[][] {{1, 1, 3, 3, 3, 3}, {1, 1, 2, 2, 2, 2}}));
        assertTrue(fourD.reason().contains("1 to 3 spatial axes"), fourD.reason());
        assertEquals(DeclineCode.ATTRIBUTE, declined(KernelRun.node("MaxPool", 12, F, new long[][] {{1, 1, 3, 3, 3, 3}},
                ints("kernel_shape", 2, 2, 2, 2))).code());
    }
}
