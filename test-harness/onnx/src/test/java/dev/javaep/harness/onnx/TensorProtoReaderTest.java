package dev.javaep.harness.onnx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.harness.onnx.OnnxSchema.TensorProto;
import dev.javaep.spi.ElementType;
import java.io.ByteArrayOutputStream;
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
    private static ProtoWriter tensor(ElementType type, long... dims) {
        ProtoWriter w = new ProtoWriter();
        for (long d : dims) {
            w.varint(TensorProto.DIMS, d);
        }
        return w.varint(TensorProto.DATA_TYPE, type.onnxValue()).string(TensorProto.NAME, "t");
    }

    private static ByteBuffer le(OnnxTensorData t) {
        return ByteBuffer.wrap(t.data()).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void typedFieldsBecomeRawLittleEndianBytes() {
        ProtoWriter floats = tensor(ElementType.FLOAT, 2).floatValue(TensorProto.FLOAT_DATA, 1.5f)
                .floatValue(TensorProto.FLOAT_DATA, -2f);
        assertArrayEquals(new float[] {1.5f, -2f}, TensorProtoReader.parse(floats.toByteArray()).toFloatArray());

        OnnxTensorData i8 = TensorProtoReader.parse(tensor(ElementType.INT8, 3)
                .varint(TensorProto.INT32_DATA, -1).varint(TensorProto.INT32_DATA, 127).varint(TensorProto.INT32_DATA, -128)
                .toByteArray());
        assertArrayEquals(new byte[] {-1, 127, -128}, i8.data());

        OnnxTensorData bool = TensorProtoReader.parse(tensor(ElementType.BOOL, 2)
                .varint(TensorProto.INT32_DATA, 1).varint(TensorProto.INT32_DATA, 0).toByteArray());
        assertArrayEquals(new byte[] {1, 0}, bool.data());

        OnnxTensorData u16 = TensorProtoReader.parse(tensor(ElementType.UINT16, 1).varint(TensorProto.INT32_DATA, 65535).toByteArray());
        assertEquals((short) 0xFFFF, le(u16).getShort(0));

        OnnxTensorData f16 = TensorProtoReader.parse(tensor(ElementType.FLOAT16, 1).varint(TensorProto.INT32_DATA, 0x3C00).toByteArray());
        assertArrayEquals(new byte[] {0x00, 0x3C}, f16.data(), "float16 1.0 stored as its bits");

        OnnxTensorData i32 = TensorProtoReader.parse(tensor(ElementType.INT32, 2)
                .bytes(TensorProto.INT32_DATA, packedVarints(-5, 1 << 30)).toByteArray());
        assertEquals(-5, le(i32).getInt(0));
        assertEquals(1 << 30, le(i32).getInt(4));

        OnnxTensorData i64 = TensorProtoReader.parse(tensor(ElementType.INT64, 1).varint(TensorProto.INT64_DATA, Long.MIN_VALUE).toByteArray());
        assertEquals(Long.MIN_VALUE, le(i64).getLong(0));

        OnnxTensorData u32 = TensorProtoReader.parse(tensor(ElementType.UINT32, 1).varint(TensorProto.UINT64_DATA, 0xFFFF_FFFFL).toByteArray());
        assertEquals(4, u32.data().length);
        assertEquals(-1, le(u32).getInt(0));

        OnnxTensorData u64 = TensorProtoReader.parse(tensor(ElementType.UINT64, 1).varint(TensorProto.UINT64_DATA, -2L).toByteArray());
        assertEquals(-2L, le(u64).getLong(0));

        OnnxTensorData f64 = TensorProtoReader.parse(tensor(ElementType.DOUBLE, 1, 1)
                .fixed64(TensorProto.DOUBLE_DATA, Double.doubleToLongBits(Math.E)).toByteArray());
        assertArrayEquals(new long[] {1, 1}, f64.dims());
        assertEquals(Math.E, le(f64).getDouble(0));

        OnnxTensorData c64 = TensorProtoReader.parse(tensor(ElementType.COMPLEX64, 1)
                .floatValue(TensorProto.FLOAT_DATA, 1f).floatValue(TensorProto.FLOAT_DATA, 2f).toByteArray());
        assertEquals(2f, le(c64).getFloat(4), "complex: real and imaginary parts interleaved");

        OnnxTensorData scalar = TensorProtoReader.parse(tensor(ElementType.FLOAT).floatValue(TensorProto.FLOAT_DATA, 7f).toByteArray());
        assertArrayEquals(new long[0], scalar.dims());
        assertArrayEquals(new float[] {7f}, scalar.toFloatArray());

        OnnxTensorData empty = TensorProtoReader.parse(tensor(ElementType.FLOAT, 0, 3).toByteArray());
        assertEquals(0, empty.data().length);

        OnnxTensorData packedDims = TensorProtoReader.parse(new ProtoWriter().bytes(TensorProto.DIMS, packedVarints(2, 1))
                .varint(TensorProto.DATA_TYPE, ElementType.UINT8.onnxValue()).bytes(TensorProto.RAW_DATA, new byte[] {4, 5}).toByteArray());
        assertArrayEquals(new long[] {2, 1}, packedDims.dims());
    }

    @Test
    void unsupportedOrInconsistentTensorsAreRejectedWithAReason() {
        var external = assertThrows(UnsupportedOperationException.class, () -> TensorProtoReader.parse(tensor(ElementType.FLOAT, 1)
                .varint(TensorProto.DATA_LOCATION, 1).message(TensorProto.EXTERNAL_DATA, new ProtoWriter().string(1, "location")
                        .string(2, "weights.bin")).toByteArray()));
        assertTrue(external.getMessage().contains("external"), external.getMessage());

        assertThrows(UnsupportedOperationException.class, () -> TensorProtoReader.parse(tensor(ElementType.STRING, 1)
                .string(TensorProto.STRING_DATA, "hi").toByteArray()));

        var count = assertThrows(IllegalArgumentException.class, () -> TensorProtoReader.parse(tensor(ElementType.FLOAT, 3)
                .floatValue(TensorProto.FLOAT_DATA, 1f).toByteArray()));
        assertTrue(count.getMessage().contains("12 bytes"), count.getMessage());

        assertThrows(ProtobufFormatException.class, () -> TensorProtoReader.parse(tensor(ElementType.FLOAT, 1)
                .varint(TensorProto.INT64_DATA, 1).toByteArray()), "values in the field of another type");
        assertThrows(ProtobufFormatException.class, () -> TensorProtoReader.parse(new ProtoWriter().varint(TensorProto.DIMS, 1)
                .bytes(TensorProto.RAW_DATA, new byte[4]).toByteArray()), "no data_type");
        assertThrows(ProtobufFormatException.class, () -> TensorProtoReader.parse(tensor(ElementType.FLOAT, 1)
                .varint(TensorProto.DATA_TYPE, 99).toByteArray()));
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
        Path file = NodeTests.dataSet("test_add_uint8").resolve("input_1.pb");
        byte[] onnxBytes = Files.readAllBytes(file);
        assertArrayEquals(onnxBytes, TensorProtoWriter.serialize(TensorProtoReader.parse(onnxBytes)));
    }

    @Test
    void aCorruptFileNamesTheFile(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("bad.pb");
        Files.write(file, new byte[] {0x08, (byte) 0x80});
        var e = assertThrows(IOException.class, () -> TensorProtoReader.read(file));
        assertTrue(e.getMessage().contains("bad.pb"), e.getMessage());
    }

    /** The payload of a packed repeated varint field. */
    private static byte[] packedVarints(long... values) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (long v : values) {
            while ((v & ~0x7FL) != 0) {
                out.write((int) (v & 0x7F) | 0x80);
                v >>>= 7;
            }
            out.write((int) v);
        }
        return out.toByteArray();
    }
}
