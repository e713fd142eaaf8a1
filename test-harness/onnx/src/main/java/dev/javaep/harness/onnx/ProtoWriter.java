package dev.javaep.harness.onnx;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Builds one protobuf message in memory. Each method writes one field (tag, then value) and returns
 * this writer; an embedded message is built in its own writer and added with {@link #message}.
 * Repeated numbers are written unpacked, as ONNX's proto2 schema declares them (except
 * TensorProto.float_data and friends, which we never write: tensors go out as raw_data).
 */
final class ProtoWriter {
    private byte[] buffer = new byte[64];
    private int size;

    ProtoWriter varint(int field, long value) {
        tag(field, WireType.VARINT);
        rawVarint(value);
        return this;
    }

    ProtoWriter fixed32(int field, int bits) {
        tag(field, WireType.FIXED32);
        rawFixed32(bits);
        return this;
    }

    ProtoWriter floatValue(int field, float value) {
        return fixed32(field, Float.floatToRawIntBits(value));
    }

    ProtoWriter fixed64(int field, long bits) {
        tag(field, WireType.FIXED64);
        rawFixed32((int) bits);
        rawFixed32((int) (bits >>> 32));
        return this;
    }

    ProtoWriter bytes(int field, byte[] value) {
        return lengthDelimited(field, value, value.length);
    }

    ProtoWriter string(int field, String value) {
        return bytes(field, value.getBytes(StandardCharsets.UTF_8));
    }

    ProtoWriter message(int field, ProtoWriter message) {
        return lengthDelimited(field, message.buffer, message.size);
    }

    byte[] toByteArray() {
        return Arrays.copyOf(buffer, size);
    }

    private ProtoWriter lengthDelimited(int field, byte[] value, int length) {
        tag(field, WireType.LENGTH_DELIMITED);
        rawVarint(length);
        ensure(length);
        System.arraycopy(value, 0, buffer, size, length);
        size += length;
        return this;
    }

    private void tag(int field, WireType type) {
        if (field <= 0 || field > 0x1FFF_FFFF) {
            throw new IllegalArgumentException("invalid protobuf field number " + field);
        }
        rawVarint((long) field << 3 | type.id);
    }

    private void rawVarint(long value) {
        ensure(10);
        while ((value & ~0x7FL) != 0) {
            buffer[size++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        buffer[size++] = (byte) value;
    }

    private void rawFixed32(int bits) {
        ensure(4);
        buffer[size++] = (byte) bits;
        buffer[size++] = (byte) (bits >>> 8);
        buffer[size++] = (byte) (bits >>> 16);
        buffer[size++] = (byte) (bits >>> 24);
    }

    private void ensure(int extra) {
        if (buffer.length - size < extra) {
            long wanted = Math.max((long) buffer.length * 2, (long) size + extra);
            if (wanted > Integer.MAX_VALUE - 8) {
                throw new IllegalStateException("protobuf message larger than 2 GiB; protobuf itself caps messages at 2 GiB");
            }
            buffer = Arrays.copyOf(buffer, (int) wanted);
        }
    }
}
