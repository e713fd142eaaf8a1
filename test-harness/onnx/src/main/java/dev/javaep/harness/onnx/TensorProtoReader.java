package dev.javaep.harness.onnx;

import dev.javaep.harness.onnx.OnnxSchema.TensorProto;
import dev.javaep.spi.ElementType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.DoubleStream;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

/**
 * Reads ONNX {@code TensorProto} messages (the node tests' {@code input_N.pb}/{@code output_N.pb}
 * files, and initializers inside models) into {@link OnnxTensorData}, converting whichever field
 * holds the values (raw_data, float_data, int32_data, ...) to raw little-endian element bytes.
 */
public final class TensorProtoReader {
    private TensorProtoReader() {}

    /** Reads a file that holds one serialized TensorProto. */
    public static OnnxTensorData read(Path file) throws IOException {
        try {
            return parse(Files.readAllBytes(file));
        } catch (ProtobufFormatException | IllegalArgumentException | UnsupportedOperationException e) {
            throw new IOException("cannot read ONNX tensor from " + file + ": " + e.getMessage(), e);
        }
    }

    public static OnnxTensorData parse(byte[] bytes) {
        return parse(new ProtoReader(bytes));
    }

    static OnnxTensorData parse(ProtoReader message) {
        LongStream.Builder dims = LongStream.builder();
        int dataType = 0;
        String name = "";
        byte[] raw = null;
        IntStream.Builder floatBits = IntStream.builder();
        IntStream.Builder int32s = IntStream.builder();
        LongStream.Builder int64s = LongStream.builder();
        LongStream.Builder uint64s = LongStream.builder();
        DoubleStream.Builder doubles = DoubleStream.builder();
        boolean hasStrings = false;
        boolean external = false;
        boolean segmented = false;
        while (message.next()) {
            switch (message.fieldNumber()) {
                case TensorProto.DIMS -> message.readRepeatedVarint(dims);
                case TensorProto.DATA_TYPE -> dataType = message.readInt32();
                case TensorProto.SEGMENT -> {
                    segmented = true;
                    message.skip();
                }
                case TensorProto.FLOAT_DATA -> message.readRepeatedFixed32(floatBits);
                case TensorProto.INT32_DATA -> message.readRepeatedVarint(v -> int32s.accept((int) v));
                case TensorProto.STRING_DATA -> {
                    hasStrings = true;
                    message.skip();
                }
                case TensorProto.INT64_DATA -> message.readRepeatedVarint(int64s);
                case TensorProto.NAME -> name = message.readString();
                case TensorProto.RAW_DATA -> raw = message.readBytes();
                case TensorProto.DOUBLE_DATA -> message.readRepeatedDouble(doubles);
                case TensorProto.UINT64_DATA -> message.readRepeatedVarint(uint64s);
                case TensorProto.EXTERNAL_DATA -> {
                    external = true;
                    message.skip();
                }
                case TensorProto.DATA_LOCATION -> external |= message.readInt32() == TensorProto.LOCATION_EXTERNAL;
                default -> message.skip();
            }
        }

        String what = "tensor '" + name + "'";
        if (external) {
            throw new UnsupportedOperationException(what + " keeps its data in an external file (data_location=EXTERNAL);"
                    + " javaep reads only embedded data: save it with onnx.save(..., save_as_external_data=False)");
        }
        if (segmented) {
            throw new UnsupportedOperationException(what + " is split into segments, which javaep does not read");
        }
        ElementType type;
        try {
            type = ElementType.fromOnnx(dataType);
        } catch (IllegalArgumentException e) {
            throw new ProtobufFormatException(what + ": unknown data_type " + dataType);
        }
        if (type == ElementType.UNDEFINED) {
            throw new ProtobufFormatException(what + " has no data_type");
        }
        if (type == ElementType.STRING || hasStrings) {
            throw new UnsupportedOperationException(what + " holds strings; javaep reads numeric tensors only");
        }
        long[] shape = dims.build().toArray();
        byte[] data = raw != null ? raw : fromTypedFields(what, type, floatBits.build().toArray(), int32s.build().toArray(),
                int64s.build().toArray(), uint64s.build().toArray(), doubles.build().toArray());
        return new OnnxTensorData(name, type, shape, data);
    }

    /** The typed field that ONNX uses for {@code type}, converted to raw element bytes. */
    private static byte[] fromTypedFields(String what, ElementType type, int[] floatBits, int[] int32s, long[] int64s,
                                          long[] uint64s, double[] doubles) {
        int present = (floatBits.length > 0 ? 1 : 0) + (int32s.length > 0 ? 1 : 0) + (int64s.length > 0 ? 1 : 0)
                + (uint64s.length > 0 ? 1 : 0) + (doubles.length > 0 ? 1 : 0);
        byte[] data = switch (type) {
            case FLOAT, COMPLEX64 -> littleEndian(floatBits.length * 4L, b -> b.asIntBuffer().put(floatBits));
            case DOUBLE, COMPLEX128 -> littleEndian(doubles.length * 8L, b -> b.asDoubleBuffer().put(doubles));
            case INT64 -> littleEndian(int64s.length * 8L, b -> b.asLongBuffer().put(int64s));
            case UINT64 -> littleEndian(uint64s.length * 8L, b -> b.asLongBuffer().put(uint64s));
            case UINT32 -> littleEndian(uint64s.length * 4L, b -> {
                for (long v : uint64s) {
                    b.putInt((int) v);
                }
            });
            case INT32 -> littleEndian(int32s.length * 4L, b -> b.asIntBuffer().put(int32s));
            case INT16, UINT16, FLOAT16, BFLOAT16 -> littleEndian(int32s.length * 2L, b -> {
                for (int v : int32s) {
                    b.putShort((short) v);
                }
            });
            // One element per int32 for 8-bit types; for 4-bit types one int32 carries a byte of two packed elements.
            case INT8, UINT8, BOOL, FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ, INT4, UINT4, FLOAT4E2M1 -> {
                byte[] bytes = new byte[int32s.length];
                for (int i = 0; i < bytes.length; i++) {
                    bytes[i] = (byte) int32s[i];
                }
                yield bytes;
            }
            case STRING, UNDEFINED -> throw new IllegalStateException("handled by the caller: " + type);
        };
        if (data.length == 0 && present > 0) {
            throw new ProtobufFormatException(what + " is " + type + " but its values are in a field for another type");
        }
        return data;
    }

    private interface BufferFill {
        void fill(ByteBuffer buffer);
    }

    private static byte[] littleEndian(long byteCount, BufferFill fill) {
        if (byteCount > Integer.MAX_VALUE - 8) {
            throw new UnsupportedOperationException("tensor data larger than 2 GiB");
        }
        ByteBuffer buffer = ByteBuffer.allocate((int) byteCount).order(ByteOrder.LITTLE_ENDIAN);
        fill.fill(buffer);
        return buffer.array();
    }
}
