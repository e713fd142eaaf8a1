package dev.javaep.harness.onnx;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.javaep.harness.onnx.proto.TensorProto;
import dev.javaep.spi.ElementType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

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
        try {
            return fromMessage(TensorProto.parseFrom(bytes));
        } catch (InvalidProtocolBufferException e) {
            throw new ProtobufFormatException("not a TensorProto: " + e.getMessage(), e);
        }
    }

    /** The folder of the model file being read, where its external data files are; unbound when reading bytes. */
    static final ScopedValue<Path> MODEL_DIRECTORY = ScopedValue.newInstance();

    /** A tensor whose bytes are in a file beside the model (location, offset, length entries, as onnx writes them). */
    private static OnnxTensorData external(String what, TensorProto message) {
        if (!MODEL_DIRECTORY.isBound()) {
            throw new UnsupportedOperationException(what + " keeps its data in an external file (data_location=EXTERNAL);"
                    + " read the model from its file (OnnxModelReader.read(Path)) so the data file beside it is found");
        }
        String location = null;
        long offset = 0;
        long length = -1;
        for (var entry : message.getExternalDataList()) {
            switch (entry.getKey()) {
                case "location" -> location = entry.getValue();
                case "offset" -> offset = Long.parseLong(entry.getValue());
                case "length" -> length = Long.parseLong(entry.getValue());
                default -> { } // checksum: not checked
            }
        }
        if (location == null) {
            throw new ProtobufFormatException(what + " is EXTERNAL but names no location");
        }
        Path file = MODEL_DIRECTORY.get().resolve(location).normalize();
        if (!file.startsWith(MODEL_DIRECTORY.get().normalize())) {
            throw new ProtobufFormatException(what + ": external data location " + location + " leaves the model's folder");
        }
        ElementType type = ElementType.fromOnnx(message.getDataType());
        long[] shape = message.getDimsList().stream().mapToLong(Long::longValue).toArray();
        try (var channel = java.nio.channels.FileChannel.open(file)) {
            long bytes = length >= 0 ? length : channel.size() - offset;
            java.nio.ByteBuffer data = java.nio.ByteBuffer.allocate(Math.toIntExact(bytes));
            while (data.hasRemaining() && channel.read(data, offset + data.position()) >= 0) {
                // read until full or end of file
            }
            if (data.hasRemaining()) {
                throw new ProtobufFormatException(what + ": " + file + " ends before offset " + offset + " + length " + bytes);
            }
            return new OnnxTensorData(message.getName(), type, shape, data.array());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(what + ": cannot read external data " + file, e);
        }
    }

    static OnnxTensorData fromMessage(TensorProto message) {
        String what = "tensor '" + message.getName() + "'";
        if (message.getDataLocation() == TensorProto.DataLocation.EXTERNAL || message.getExternalDataCount() > 0) {
            return external(what, message);
        }
        if (message.hasSegment()) {
            throw new UnsupportedOperationException(what + " is split into segments, which javaep does not read");
        }
        ElementType type;
        try {
            type = ElementType.fromOnnx(message.getDataType());
        } catch (IllegalArgumentException e) {
            throw new ProtobufFormatException(what + ": unknown data_type " + message.getDataType());
        }
        if (type == ElementType.UNDEFINED) {
            throw new ProtobufFormatException(what + " has no data_type");
        }
        if (type == ElementType.STRING || message.getStringDataCount() > 0) {
            throw new UnsupportedOperationException(what + " holds strings; javaep reads numeric tensors only");
        }
        long[] shape = message.getDimsList().stream().mapToLong(Long::longValue).toArray();
        byte[] data = message.hasRawData() ? message.getRawData().toByteArray() : fromTypedFields(what, type, message);
        return new OnnxTensorData(message.getName(), type, shape, data);
    }

    /** The typed field that ONNX uses for {@code type}, converted to raw element bytes. */
    private static byte[] fromTypedFields(String what, ElementType type, TensorProto m) {
        byte[] data = switch (type) {
            case FLOAT, COMPLEX64 -> littleEndian(m.getFloatDataCount(), 4, (b, i) -> b.putFloat(m.getFloatData(i)));
            case DOUBLE, COMPLEX128 -> littleEndian(m.getDoubleDataCount(), 8, (b, i) -> b.putDouble(m.getDoubleData(i)));
            case INT64 -> littleEndian(m.getInt64DataCount(), 8, (b, i) -> b.putLong(m.getInt64Data(i)));
            case UINT64 -> littleEndian(m.getUint64DataCount(), 8, (b, i) -> b.putLong(m.getUint64Data(i)));
            case UINT32 -> littleEndian(m.getUint64DataCount(), 4, (b, i) -> b.putInt((int) m.getUint64Data(i)));
            case INT32 -> littleEndian(m.getInt32DataCount(), 4, (b, i) -> b.putInt(m.getInt32Data(i)));
            case INT16, UINT16, FLOAT16, BFLOAT16 ->
                    littleEndian(m.getInt32DataCount(), 2, (b, i) -> b.putShort((short) m.getInt32Data(i)));
            // One element per int32 for 8-bit types; for 4-bit types one int32 carries a byte of two packed elements.
            case INT8, UINT8, BOOL, FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ, INT4, UINT4, FLOAT4E2M1 ->
                    littleEndian(m.getInt32DataCount(), 1, (b, i) -> b.put((byte) m.getInt32Data(i)));
            case STRING, UNDEFINED -> throw new IllegalStateException("handled by the caller: " + type);
        };
        int present = m.getFloatDataCount() + m.getInt32DataCount() + m.getInt64DataCount() + m.getUint64DataCount()
                + m.getDoubleDataCount();
        if (data.length == 0 && present > 0) {
            throw new ProtobufFormatException(what + " is " + type + " but its values are in a field for another type");
        }
        return data;
    }

    /** Puts element {@code i} of a typed field into {@code buffer}. */
    private interface ElementPut {
        void put(ByteBuffer buffer, int i);
    }

    private static byte[] littleEndian(int count, int elementBytes, ElementPut element) {
        long byteCount = (long) count * elementBytes;
        if (byteCount > Integer.MAX_VALUE - 8) {
            throw new UnsupportedOperationException("tensor data larger than 2 GiB");
        }
        ByteBuffer buffer = ByteBuffer.allocate((int) byteCount).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < count; i++) {
            element.put(buffer, i);
        }
        return buffer.array();
    }
}
