package dev.javaep.harness.onnx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.javaep.harness.onnx.proto.StringStringEntryProto;
import dev.javaep.harness.onnx.proto.TensorProto;
import dev.javaep.spi.ElementType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TensorProtoReaderTest {

    private static OnnxTensorData read(String test, String file) throws IOException {
        return TensorProtoReader.read(NodeTests.dataSet(test).resolve(file));
    }

    @Test
    void readsTheFloatInputsOfTestAddAndTheirSumMatchesTheExpectedOutput() throws IOException {
        OnnxTensorData x = read("test_add", "input_0.pb");
        OnnxTensorData y = read("test_add", "input_1.pb");
        OnnxTensorData sum = read("test_add", "output_0.pb");
        assertEquals("x", x.name());
        assertEquals(ElementType.FLOAT, x.elementType());
        assertArrayEquals(new long[] {3, 4, 5}, x.dims());
        assertEquals(60 * 4, x.data().length);
        assertEquals(ElementType.FLOAT, sum.elementType());
        float[] a = x.toFloatArray();
        float[] b = y.toFloatArray();
        float[] c = sum.toFloatArray();
        for (int i = 0; i < c.length; i++) {
            assertEquals(a[i] + b[i], c[i], 1e-6f, "element " + i);
        }
    }

    @Test
    void readsIntegerTensors() throws IOException {
        OnnxTensorData u8 = read("test_add_uint8", "input_0.pb");
        assertEquals(ElementType.UINT8, u8.elementType());
        assertArrayEquals(new long[] {3, 4, 5}, u8.dims());
        assertEquals(60, u8.data().length);

        OnnxTensorData a = read("test_div_int16", "input_0.pb");
        OnnxTensorData b = read("test_div_int16", "input_1.pb");
        OnnxTensorData q = read("test_div_int16", "output_0.pb");
        assertEquals(ElementType.INT16, a.elementType());
        assertEquals(ElementType.INT16, q.elementType());
        assertArrayEquals(new long[] {3, 4, 5}, q.dims());
        assertEquals(120, q.data().length);
        for (int i = 0; i < 60; i++) {
            short x = a.buffer().getShort(2 * i);
            short z = b.buffer().getShort(2 * i);
            assertEquals((short) (x / z), q.buffer().getShort(2 * i), "element " + i);
        }

        OnnxTensorData u64 = read("test_sub_uint64", "input_0.pb");
        assertEquals(ElementType.UINT64, u64.elementType());
        assertArrayEquals(new long[] {3, 4, 5}, u64.dims());
        assertEquals(480, u64.data().length);
        assertEquals(ElementType.UINT64, read("test_sub_uint64", "output_0.pb").elementType());
    }

    /** A TensorProto with the given dims and data type, for the typed-field cases below. */
    private static TensorProto.Builder tensor(ElementType type, long... dims) {
        TensorProto.Builder t = TensorProto.newBuilder().setDataType(type.onnxValue()).setName("t");
        for (long d : dims) {
            t.addDims(d);
        }
        return t;
    }

    private static OnnxTensorData parse(TensorProto.Builder tensor) {
        return TensorProtoReader.parse(tensor.build().toByteArray());
    }

    private static ByteBuffer le(OnnxTensorData t) {
        return ByteBuffer.wrap(t.data()).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void typedFieldsBecomeRawLittleEndianBytes() {
        assertArrayEquals(new float[] {1.5f, -2f}, parse(tensor(ElementType.FLOAT, 2).addFloatData(1.5f).addFloatData(-2f)).toFloatArray());

        OnnxTensorData i8 = parse(tensor(ElementType.INT8, 3).addInt32Data(-1).addInt32Data(127).addInt32Data(-128));
        assertArrayEquals(new byte[] {-1, 127, -128}, i8.data());

        OnnxTensorData bool = parse(tensor(ElementType.BOOL, 2).addInt32Data(1).addInt32Data(0));
        assertArrayEquals(new byte[] {1, 0}, bool.data());

        OnnxTensorData u16 = parse(tensor(ElementType.UINT16, 1).addInt32Data(65535));
        assertEquals((short) 0xFFFF, le(u16).getShort(0));

        OnnxTensorData f16 = parse(tensor(ElementType.FLOAT16, 1).addInt32Data(0x3C00));
        assertArrayEquals(new byte[] {0x00, 0x3C}, f16.data(), "float16 1.0 stored as its bits");

        OnnxTensorData bf16 = parse(tensor(ElementType.BFLOAT16, 1).addInt32Data(0xC040));
        assertEquals(-3f, Float.intBitsToFloat(le(bf16).getShort(0) << 16), "bfloat16 -3.0 stored as its bits");

        OnnxTensorData i32 = parse(tensor(ElementType.INT32, 2).addInt32Data(-5).addInt32Data(1 << 30));
        assertEquals(-5, le(i32).getInt(0));
        assertEquals(1 << 30, le(i32).getInt(4));

        OnnxTensorData i64 = parse(tensor(ElementType.INT64, 1).addInt64Data(Long.MIN_VALUE));
        assertEquals(Long.MIN_VALUE, le(i64).getLong(0));

        OnnxTensorData u32 = parse(tensor(ElementType.UINT32, 1).addUint64Data(0xFFFF_FFFFL));
        assertEquals(4, u32.data().length);
        assertEquals(-1, le(u32).getInt(0));

        OnnxTensorData u64 = parse(tensor(ElementType.UINT64, 1).addUint64Data(-2L));
        assertEquals(-2L, le(u64).getLong(0));

        OnnxTensorData f64 = parse(tensor(ElementType.DOUBLE, 1, 1).addDoubleData(Math.E));
        assertArrayEquals(new long[] {1, 1}, f64.dims());
        assertEquals(Math.E, le(f64).getDouble(0));

        OnnxTensorData c64 = parse(tensor(ElementType.COMPLEX64, 1).addFloatData(1f).addFloatData(2f));
        assertEquals(2f, le(c64).getFloat(4), "complex: real and imaginary parts interleaved");

        OnnxTensorData scalar = parse(tensor(ElementType.FLOAT).addFloatData(7f));
        assertArrayEquals(new long[0], scalar.dims());
        assertArrayEquals(new float[] {7f}, scalar.toFloatArray());

        OnnxTensorData empty = parse(tensor(ElementType.FLOAT, 0, 3));
        assertEquals(0, empty.data().length);

        OnnxTensorData raw = parse(tensor(ElementType.UINT8, 2, 1).setRawData(ByteString.copyFrom(new byte[] {4, 5})).addInt32Data(9));
        assertArrayEquals(new byte[] {4, 5}, raw.data(), "raw_data, when present, is the data");
    }

    @Test
    void unsupportedOrInconsistentTensorsAreRejectedWithAReason() {
        var external = assertThrows(UnsupportedOperationException.class, () -> parse(tensor(ElementType.FLOAT, 1)
                .setDataLocation(TensorProto.DataLocation.EXTERNAL)
                .addExternalData(StringStringEntryProto.newBuilder().setKey("location").setValue("weights.bin"))));
        assertTrue(external.getMessage().contains("external"), external.getMessage());

        assertThrows(UnsupportedOperationException.class, () -> parse(tensor(ElementType.STRING, 1)
                .addStringData(ByteString.copyFromUtf8("hi"))));
        assertThrows(UnsupportedOperationException.class, () -> parse(tensor(ElementType.FLOAT, 1).addFloatData(1f)
                .setSegment(TensorProto.Segment.newBuilder().setBegin(0).setEnd(1))));

        var count = assertThrows(IllegalArgumentException.class, () -> parse(tensor(ElementType.FLOAT, 3).addFloatData(1f)));
        assertTrue(count.getMessage().contains("12 bytes"), count.getMessage());

        assertThrows(ProtobufFormatException.class, () -> parse(tensor(ElementType.FLOAT, 1).addInt64Data(1)),
                "values in the field of another type");
        assertThrows(ProtobufFormatException.class, () -> parse(TensorProto.newBuilder().addDims(1)
                .setRawData(ByteString.copyFrom(new byte[4]))), "no data_type");
        assertThrows(ProtobufFormatException.class, () -> parse(tensor(ElementType.FLOAT, 1).setDataType(99)));
    }

    @Test
    void writerAndReaderRoundTrip(@TempDir Path dir) throws IOException {
        OnnxTensorData original = new OnnxTensorData("w", ElementType.INT64, new long[] {2, 1},
                ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(-3).putLong(1L << 40).array());
        Path file = dir.resolve("input_0.pb");
        TensorProtoWriter.write(original, file);
        assertEquals(original, TensorProtoReader.read(file));

        OnnxTensorData floats = OnnxTensorData.ofFloats("", new float[] {1, 2, 3}, 3);
        assertEquals(floats, TensorProtoReader.parse(TensorProtoWriter.serialize(floats)));
    }

    @Test
    void writerProducesTheSameBytesAsOnnx() throws IOException {
        // onnx.numpy_helper.from_array wrote these; byte equality shows we write fields the same way.
        for (String test : java.util.List.of("test_add_uint8", "test_max_float16", "test_celu_bfloat16")) {
            Path file = NodeTests.dataSet(test).resolve("input_0.pb");
            byte[] onnxBytes = Files.readAllBytes(file);
            OnnxTensorData tensor = TensorProtoReader.parse(onnxBytes);
            assertArrayEquals(onnxBytes, TensorProtoWriter.serialize(tensor), file.toString());
            assertEquals(test.substring(test.lastIndexOf('_') + 1).toUpperCase(java.util.Locale.ROOT), tensor.elementType().name());
        }
    }

    @Test
    void aCorruptFileNamesTheFile(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("bad.pb");
        Files.write(file, new byte[] {0x08, (byte) 0x80});
        var e = assertThrows(IOException.class, () -> TensorProtoReader.read(file));
        assertTrue(e.getMessage().contains("bad.pb"), e.getMessage());
    }
}
