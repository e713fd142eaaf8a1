package dev.javaep.harness.onnx;

/** Protobuf wire types: how a field's value is encoded, from the low three bits of its tag. */
enum WireType {
    VARINT(0),
    FIXED64(1),
    LENGTH_DELIMITED(2),
    START_GROUP(3),
    END_GROUP(4),
    FIXED32(5);

    private static final WireType[] BY_ID = values();

    final int id;

    WireType(int id) {
        this.id = id;
    }

    static WireType of(int id) {
        if (id < 0 || id >= BY_ID.length) {
            throw new ProtobufFormatException("invalid protobuf wire type " + id);
        }
        return BY_ID[id];
    }
}
