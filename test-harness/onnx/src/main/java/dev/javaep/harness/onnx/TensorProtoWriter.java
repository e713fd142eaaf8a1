package dev.javaep.harness.onnx;

import dev.javaep.harness.onnx.OnnxSchema.StringStringEntryProto;
import dev.javaep.harness.onnx.OnnxSchema.TensorProto;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes {@link OnnxTensorData} as an ONNX {@code TensorProto} with its values in raw_data, the
 * form {@code onnx.numpy_helper.from_array} produces and the node tests' .pb files use.
 */
public final class TensorProtoWriter {
    private TensorProtoWriter() {}

    public static byte[] serialize(OnnxTensorData tensor) {
        return message(tensor).toByteArray();
    }

    /** Writes a file in the format of the node tests' {@code input_N.pb}. */
    public static void write(OnnxTensorData tensor, Path file) throws IOException {
        Files.write(file, serialize(tensor));
    }

    static ProtoWriter message(OnnxTensorData tensor) {
        ProtoWriter message = new ProtoWriter();
        for (long d : tensor.dims()) {
            message.varint(TensorProto.DIMS, d);
        }
        message.varint(TensorProto.DATA_TYPE, tensor.elementType().onnxValue());
        if (!tensor.name().isEmpty()) {
            message.string(TensorProto.NAME, tensor.name());
        }
        return message.bytes(TensorProto.RAW_DATA, tensor.data());
    }

    /** The TensorProto of a tensor whose bytes sit in {@code location} (a file beside the model) at {@code offset}. */
    static ProtoWriter externalMessage(OnnxTensorData tensor, String location, long offset) {
        ProtoWriter message = new ProtoWriter();
        for (long d : tensor.dims()) {
            message.varint(TensorProto.DIMS, d);
        }
        message.varint(TensorProto.DATA_TYPE, tensor.elementType().onnxValue());
        message.string(TensorProto.NAME, tensor.name());
        for (String[] entry : new String[][] {{"location", location}, {"offset", Long.toString(offset)},
                {"length", Integer.toString(tensor.data().length)}}) {
            message.message(TensorProto.EXTERNAL_DATA, new ProtoWriter()
                    .string(StringStringEntryProto.KEY, entry[0]).string(StringStringEntryProto.VALUE, entry[1]));
        }
        return message.varint(TensorProto.DATA_LOCATION, TensorProto.LOCATION_EXTERNAL);
    }
}
