package dev.javaep.harness.onnx;

import com.google.protobuf.UnsafeByteOperations;
import dev.javaep.harness.onnx.proto.StringStringEntryProto;
import dev.javaep.harness.onnx.proto.TensorProto;
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

    static TensorProto message(OnnxTensorData tensor) {
        // Wrapped, not copied: OnnxTensorData's bytes are not modified after construction (its contract),
        // and a model's weights would otherwise be held twice while it is written.
        return header(tensor).setRawData(UnsafeByteOperations.unsafeWrap(tensor.data())).build();
    }

    /** The TensorProto of a tensor whose bytes sit in {@code location} (a file beside the model) at {@code offset}. */
    static TensorProto externalMessage(OnnxTensorData tensor, String location, long offset) {
        TensorProto.Builder message = header(tensor);
        for (String[] entry : new String[][] {{"location", location}, {"offset", Long.toString(offset)},
                {"length", Integer.toString(tensor.data().length)}}) {
            message.addExternalData(StringStringEntryProto.newBuilder().setKey(entry[0]).setValue(entry[1]));
        }
        return message.setDataLocation(TensorProto.DataLocation.EXTERNAL).build();
    }

    private static TensorProto.Builder header(OnnxTensorData tensor) {
        TensorProto.Builder message = TensorProto.newBuilder().setDataType(tensor.elementType().onnxValue());
        for (long d : tensor.dims()) {
            message.addDims(d);
        }
        if (!tensor.name().isEmpty()) {
            message.setName(tensor.name());
        }
        return message;
    }
}
