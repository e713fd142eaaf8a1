package dev.javaep.harness.onnx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.WireFormat;
import dev.javaep.harness.onnx.proto.AttributeProto;
import dev.javaep.harness.onnx.proto.GraphProto;
import dev.javaep.harness.onnx.proto.ModelProto;
import dev.javaep.harness.onnx.proto.NodeProto;
import dev.javaep.harness.onnx.proto.TensorProto;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The wire format of {@code onnx-subset.proto}: that its declarations (numbers, types, packing) agree with
 * what ONNX writes, and how the readers meet bytes that are not what they expect.
 */
class ProtoWireTest {

    /** A message written field by field, for bytes the generated builders would not write. */
    private interface Fields {
        void write(CodedOutputStream out) throws IOException;
    }

    private static byte[] bytes(Fields fields) throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(buffer);
        fields.write(out);
        out.flush();
        return buffer.toByteArray();
    }

    @Test
    void repeatedNumbersAreWrittenAsOnnxDeclaresThem() {
        // onnx.proto is proto2: dims and the attribute lists are unpacked (a tag per value), the typed data fields packed.
        assertEquals("0802" + "0803", HexFormat.of().formatHex(TensorProto.newBuilder().addDims(2).addDims(3).build().toByteArray()));
        assertEquals("4001" + "4002", HexFormat.of().formatHex(AttributeProto.newBuilder().addInts(1).addInts(2).build().toByteArray()));
        assertEquals("3d0000803f", HexFormat.of().formatHex(AttributeProto.newBuilder().addFloats(1f).build().toByteArray()));
        assertEquals("2208" + "0000803f" + "00000040",
                HexFormat.of().formatHex(TensorProto.newBuilder().addFloatData(1f).addFloatData(2f).build().toByteArray()));
        assertEquals("2a03" + "01" + "ac02", HexFormat.of().formatHex(TensorProto.newBuilder().addInt32Data(1).addInt32Data(300)
                .build().toByteArray()));
    }

    @Test
    void repeatedNumbersAreReadPackedOrUnpacked() throws IOException {
        // Parsers must take both forms; other writers (onnx.proto3's users) pack what onnx.proto leaves unpacked.
        byte[] packedDims = bytes(out -> {
            out.writeTag(TensorProto.DIMS_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            out.writeUInt32NoTag(CodedOutputStream.computeInt64SizeNoTag(2) + CodedOutputStream.computeInt64SizeNoTag(300));
            out.writeInt64NoTag(2);
            out.writeInt64NoTag(300);
            out.writeInt32(TensorProto.DATA_TYPE_FIELD_NUMBER, ElementType.FLOAT.onnxValue());
            out.writeFloat(TensorProto.FLOAT_DATA_FIELD_NUMBER, 1.5f); // unpacked, though declared packed
            for (int i = 1; i < 600; i++) {
                out.writeFloat(TensorProto.FLOAT_DATA_FIELD_NUMBER, -i);
            }
        });
        OnnxTensorData t = TensorProtoReader.parse(packedDims);
        assertArrayEquals(new long[] {2, 300}, t.dims());
        assertEquals(1.5f, t.toFloatArray()[0]);
        assertEquals(-599f, t.toFloatArray()[599]);

        byte[] packedInts = bytes(out -> {
            out.writeString(AttributeProto.NAME_FIELD_NUMBER, "axes");
            out.writeTag(AttributeProto.INTS_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            out.writeUInt32NoTag(2);
            out.writeInt64NoTag(0);
            out.writeInt64NoTag(1);
        });
        byte[] model = ModelProto.newBuilder().setGraph(GraphProto.newBuilder()
                .addNode(NodeProto.newBuilder().setOpType("Squeeze")
                        .addAttribute(AttributeProto.parseFrom(packedInts)))).build().toByteArray();
        assertEquals(new Attribute.IntList("axes", List.of(0L, 1L)),
                OnnxModelReader.parse(model).graph().nodes().getFirst().attributes().get("axes"),
                "an attribute without a type (before IR version 2) takes the kind of the field that is set");
    }

    @Test
    void fieldsOutsideTheSubsetAreSkipped() throws IOException {
        byte[] model = bytes(out -> {
            out.writeInt64(ModelProto.IR_VERSION_FIELD_NUMBER, 9);
            out.writeString(3, "producer_version");
            out.writeString(6, "doc_string");
            out.writeByteArray(ModelProto.GRAPH_FIELD_NUMBER, bytes(graph -> {
                graph.writeString(10, "doc_string");
                graph.writeByteArray(11, bytes(input -> { // input: a sequence of float tensors (TypeProto.sequence_type, 4)
                    input.writeString(1, "seq");
                    input.writeByteArray(2, bytes(type -> type.writeByteArray(4, bytes(sequence -> sequence.writeByteArray(1,
                            bytes(element -> element.writeByteArray(1, bytes(tensor -> tensor.writeInt32(1, 1)))))))));
                }));
                graph.writeByteArray(13, bytes(valueInfo -> valueInfo.writeString(1, "value_info")));
                graph.writeFixed64(1000, 7); // a field ONNX does not have
                graph.writeTag(1001, WireFormat.WIRETYPE_START_GROUP); // a proto2 group, a wire type ONNX never uses
                graph.writeInt32(1, 5);
                graph.writeTag(1001, WireFormat.WIRETYPE_END_GROUP);
            }));
            out.writeByteArray(14, bytes(entry -> entry.writeString(1, "metadata_props")));
        });
        OnnxModel read = OnnxModelReader.parse(model);
        assertEquals(9, read.irVersion());
        assertEquals(List.of(new OnnxValueInfo("seq", ElementType.UNDEFINED, null, false)), read.graph().inputs(),
                "a sequence is not a tensor");
    }

    @Test
    void malformedInputIsReportedNotMisread() throws IOException {
        byte[] model = new OnnxModelWriter("g").input("x", ElementType.FLOAT, Dim.of(2)).toByteArray();
        assertThrows(ProtobufFormatException.class, () -> OnnxModelReader.parse(Arrays.copyOf(model, model.length - 3)), "truncated");
        assertThrows(ProtobufFormatException.class, () -> OnnxModelReader.parse(new byte[] {0x0e}), "wire type 6");
        assertThrows(ProtobufFormatException.class, () -> OnnxModelReader.parse(new byte[] {0x08, (byte) 0x80}), "cut varint");
        var noGraph = assertThrows(ProtobufFormatException.class, () -> OnnxModelReader.parse(new byte[] {0x08, 0x08}));
        assertTrue(noGraph.getMessage().contains("no graph"), noGraph.getMessage());
        byte[] tensor = TensorProtoWriter.serialize(OnnxTensorData.ofFloats("t", new float[] {1, 2}, 2));
        assertThrows(ProtobufFormatException.class, () -> TensorProtoReader.parse(Arrays.copyOf(tensor, tensor.length - 1)));
        var tooLong = assertThrows(ProtobufFormatException.class, () -> TensorProtoReader.parse(new byte[] {0x4a, 0x10, 0}));
        assertTrue(tooLong.getMessage().startsWith("not a TensorProto"), "raw_data of 16 bytes holding 1: " + tooLong.getMessage());
    }

    /**
     * Every file of the ONNX node tests parses with no declared field among the unknown ones: protobuf keeps a
     * field whose wire type differs from the declaration as unknown, so one there would mean the subset
     * declares a type other than the one ONNX writes.
     */
    @Test
    void theSubsetAgreesWithEveryNodeTestFile() throws IOException {
        List<String> mismatches = new ArrayList<>();
        int files = 0;
        try (Stream<Path> tests = Files.list(NodeTests.dir())) {
            for (Path test : tests.sorted().toList()) {
                Path model = test.resolve("model.onnx");
                if (Files.isRegularFile(model)) {
                    undeclaredFields(ModelProto.parseFrom(Files.readAllBytes(model)), test.getFileName().toString(), mismatches);
                    files++;
                }
                Path dataSet = test.resolve("test_data_set_0");
                if (Files.isDirectory(dataSet)) {
                    try (Stream<Path> pbs = Files.list(dataSet)) {
                        for (Path pb : pbs.filter(p -> p.toString().endsWith(".pb")).toList()) {
                            // inputs that are sequences or optionals are other messages (onnx-data.proto); skip them
                            TensorProto tensor = TensorProto.parseFrom(Files.readAllBytes(pb));
                            if (tensor.hasDataType()) {
                                undeclaredFields(tensor, test.getFileName() + "/" + pb.getFileName(), mismatches);
                                files++;
                            }
                        }
                    }
                }
            }
        }
        assertTrue(files > 2000, "only " + files + " files checked");
        assertEquals(List.of(), mismatches);
    }

    /** Adds "where: field N" for each declared field that {@code message} (or one inside it) holds as unknown. */
    private static void undeclaredFields(Message message, String where, List<String> mismatches) {
        for (int number : message.getUnknownFields().asMap().keySet()) {
            if (message.getDescriptorForType().findFieldByNumber(number) != null) {
                mismatches.add(where + ": " + message.getDescriptorForType().getName() + " field " + number);
            }
        }
        for (Map.Entry<FieldDescriptor, Object> field : message.getAllFields().entrySet()) {
            if (field.getKey().getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
                continue;
            }
            List<?> values = field.getKey().isRepeated() ? (List<?>) field.getValue() : List.of(field.getValue());
            for (Object value : values) {
                undeclaredFields((Message) value, where, mismatches);
            }
        }
    }
}
