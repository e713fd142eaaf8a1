package dev.javaep.harness.onnx;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.DoubleConsumer;
import java.util.function.IntConsumer;
import java.util.function.LongConsumer;

/**
 * Reads one protobuf message from bytes, field by field: call {@link #next()}, switch on
 * {@link #fieldNumber()}, then read the value with the method for the field's type or
 * {@link #skip()} it. Repeated numeric fields are accepted both packed and unpacked, as the
 * protobuf spec requires of parsers.
 */
final class ProtoReader {
    private final byte[] bytes;
    private final int end;
    private int position;
    private int fieldNumber;
    private WireType wireType;

    ProtoReader(byte[] bytes) {
        this(bytes, 0, bytes.length);
    }

    private ProtoReader(byte[] bytes, int start, int end) {
        this.bytes = bytes;
        this.position = start;
        this.end = end;
    }

    /** Advances to the next field; false at the end of the message. */
    boolean next() {
        if (position >= end) {
            return false;
        }
        long tag = rawVarint();
        fieldNumber = (int) (tag >>> 3);
        wireType = WireType.of((int) (tag & 7));
        if (fieldNumber <= 0 || tag >>> 3 > 0x1FFF_FFFF) {
            throw new ProtobufFormatException("invalid protobuf field number " + (tag >>> 3) + " at byte " + position);
        }
        return true;
    }

    int fieldNumber() {
        return fieldNumber;
    }

    WireType wireType() {
        return wireType;
    }

    /** An int32/int64/uint64/enum/bool field's value as the 64 bits on the wire. */
    long readVarint() {
        expect(WireType.VARINT);
        return rawVarint();
    }

    /** An int32 or enum field: the wire carries 64 bits (sign-extended), the value is the low 32. */
    int readInt32() {
        return (int) readVarint();
    }

    float readFloat() {
        expect(WireType.FIXED32);
        return Float.intBitsToFloat(rawFixed32());
    }

    double readDouble() {
        expect(WireType.FIXED64);
        return Double.longBitsToDouble(rawFixed64());
    }

    byte[] readBytes() {
        expect(WireType.LENGTH_DELIMITED);
        int length = rawLength();
        byte[] value = Arrays.copyOfRange(bytes, position, position + length);
        position += length;
        return value;
    }

    String readString() {
        expect(WireType.LENGTH_DELIMITED);
        int length = rawLength();
        String value = new String(bytes, position, length, StandardCharsets.UTF_8);
        position += length;
        return value;
    }

    /** An embedded message field, as a reader over its bytes (no copy). */
    ProtoReader readMessage() {
        expect(WireType.LENGTH_DELIMITED);
        int length = rawLength();
        ProtoReader message = new ProtoReader(bytes, position, position + length);
        position += length;
        return message;
    }

    /** One element of a repeated varint field, or all of them when the field is packed. */
    void readRepeatedVarint(LongConsumer sink) {
        if (wireType == WireType.LENGTH_DELIMITED) {
            ProtoReader packed = readMessage();
            while (packed.position < packed.end) {
                sink.accept(packed.rawVarint());
            }
        } else {
            sink.accept(readVarint());
        }
    }

    /** One element of a repeated fixed32 field (float, fixed32), or all of them when packed. */
    void readRepeatedFixed32(IntConsumer sink) {
        if (wireType == WireType.LENGTH_DELIMITED) {
            ProtoReader packed = readPackedOf(Integer.BYTES);
            while (packed.position < packed.end) {
                sink.accept(packed.rawFixed32());
            }
        } else {
            expect(WireType.FIXED32);
            sink.accept(rawFixed32());
        }
    }

    /** One element of a repeated fixed64 field (double, fixed64), or all of them when packed. */
    void readRepeatedFixed64(LongConsumer sink) {
        if (wireType == WireType.LENGTH_DELIMITED) {
            ProtoReader packed = readPackedOf(Long.BYTES);
            while (packed.position < packed.end) {
                sink.accept(packed.rawFixed64());
            }
        } else {
            expect(WireType.FIXED64);
            sink.accept(rawFixed64());
        }
    }

    void readRepeatedFloat(FloatSink sink) {
        readRepeatedFixed32(bits -> sink.accept(Float.intBitsToFloat(bits)));
    }

    void readRepeatedDouble(DoubleConsumer sink) {
        readRepeatedFixed64(bits -> sink.accept(Double.longBitsToDouble(bits)));
    }

    @FunctionalInterface
    interface FloatSink {
        void accept(float value);
    }

    /** Skips the current field's value, whatever its type (how unknown fields are ignored). */
    void skip() {
        switch (wireType) {
            case VARINT -> rawVarint();
            case FIXED64 -> advance(8);
            case FIXED32 -> advance(4);
            case LENGTH_DELIMITED -> advance(rawLength());
            case START_GROUP -> skipGroup(fieldNumber);
            case END_GROUP -> throw new ProtobufFormatException("unexpected end-group tag for field " + fieldNumber);
        }
    }

    /** Groups are deprecated and unused by ONNX, but skipping one keeps an unknown field harmless. */
    private void skipGroup(int group) {
        while (true) {
            if (!next()) {
                throw new ProtobufFormatException("group " + group + " is not terminated");
            }
            if (wireType == WireType.END_GROUP) {
                if (fieldNumber != group) {
                    throw new ProtobufFormatException("group " + group + " ended by end-group tag of field " + fieldNumber);
                }
                return;
            }
            skip();
        }
    }

    private ProtoReader readPackedOf(int elementSize) {
        ProtoReader packed = readMessage();
        if ((packed.end - packed.position) % elementSize != 0) {
            throw new ProtobufFormatException("packed field " + fieldNumber + " has " + (packed.end - packed.position)
                    + " bytes, not a multiple of " + elementSize);
        }
        return packed;
    }

    private void expect(WireType expected) {
        if (wireType != expected) {
            throw new ProtobufFormatException("field " + fieldNumber + " has wire type " + wireType + ", expected " + expected);
        }
    }

    private long rawVarint() {
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (position >= end) {
                throw truncated("varint");
            }
            byte b = bytes[position++];
            value |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                return value;
            }
        }
        throw new ProtobufFormatException("varint longer than 10 bytes at byte " + position);
    }

    private int rawFixed32() {
        require(4, "fixed32");
        int value = (bytes[position] & 0xFF) | (bytes[position + 1] & 0xFF) << 8
                | (bytes[position + 2] & 0xFF) << 16 | (bytes[position + 3] & 0xFF) << 24;
        position += 4;
        return value;
    }

    private long rawFixed64() {
        long low = rawFixed32() & 0xFFFF_FFFFL;
        long high = rawFixed32() & 0xFFFF_FFFFL;
        return low | high << 32;
    }

    private int rawLength() {
        long length = rawVarint();
        if (length < 0 || length > end - position) {
            throw new ProtobufFormatException("field " + fieldNumber + " claims " + length + " bytes but only "
                    + (end - position) + " remain");
        }
        return (int) length;
    }

    private void advance(int count) {
        require(count, "field " + fieldNumber);
        position += count;
    }

    private void require(int count, String what) {
        if (end - position < count) {
            throw truncated(what);
        }
    }

    private ProtobufFormatException truncated(String what) {
        return new ProtobufFormatException("message truncated while reading " + what + " at byte " + position);
    }
}
