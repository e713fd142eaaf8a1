package dev.javaep.harness.onnx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProtoWireTest {

    @Test
    void varintsUseTheStandardEncoding() {
        // Known encodings from the protobuf documentation: 150 -> 96 01, 300 -> ac 02.
        assertEquals("089601", HexFormat.of().formatHex(new ProtoWriter().varint(1, 150).toByteArray()));
        assertEquals("10ac02", HexFormat.of().formatHex(new ProtoWriter().varint(2, 300).toByteArray()));
        // A negative int64 always takes ten bytes.
        assertEquals(11, new ProtoWriter().varint(1, -1).toByteArray().length);
    }

    @Test
    void everyWireTypeRoundTrips() {
        long[] varints = {0, 1, 127, 128, 300, Integer.MAX_VALUE, -1, Long.MAX_VALUE, Long.MIN_VALUE};
        ProtoWriter w = new ProtoWriter();
        for (long v : varints) {
            w.varint(1, v);
        }
        w.floatValue(2, -1.5f).fixed64(3, Double.doubleToRawLongBits(Math.PI)).string(4, "héllo")
                .bytes(5, new byte[] {0, -1, 7}).message(6, new ProtoWriter().varint(1, 42).string(2, "inner"));
        ProtoReader r = new ProtoReader(w.toByteArray());
        for (long v : varints) {
            assertTrue(r.next());
            assertEquals(1, r.fieldNumber());
            assertEquals(v, r.readVarint());
        }
        assertTrue(r.next());
        assertEquals(-1.5f, r.readFloat());
        assertTrue(r.next());
        assertEquals(Math.PI, r.readDouble());
        assertTrue(r.next());
        assertEquals("héllo", r.readString());
        assertTrue(r.next());
        assertArrayEquals(new byte[] {0, -1, 7}, r.readBytes());
        assertTrue(r.next());
        ProtoReader inner = r.readMessage();
        assertTrue(inner.next());
        assertEquals(42, inner.readVarint());
        assertTrue(inner.next());
        assertEquals("inner", inner.readString());
        assertFalse(inner.next());
        assertFalse(r.next());
    }

    @Test
    void repeatedNumbersAreReadPackedOrUnpacked() {
        ProtoWriter packed = new ProtoWriter().bytes(1, HexFormat.of().parseHex("0396" + "01" + "ac02"));
        ProtoWriter unpacked = new ProtoWriter().varint(1, 3).varint(1, 150).varint(1, 300);
        for (ProtoWriter w : List.of(packed, unpacked)) {
            List<Long> values = new ArrayList<>();
            ProtoReader r = new ProtoReader(w.toByteArray());
            while (r.next()) {
                r.readRepeatedVarint(values::add);
            }
            assertEquals(List.of(3L, 150L, 300L), values);
        }
        byte[] twoFloats = new byte[8];
        java.nio.ByteBuffer.wrap(twoFloats).order(java.nio.ByteOrder.LITTLE_ENDIAN).putFloat(1f).putFloat(-2f);
        ProtoReader r = new ProtoReader(new ProtoWriter().bytes(4, twoFloats).floatValue(4, 3f).toByteArray());
        List<Float> floats = new ArrayList<>();
        while (r.next()) {
            r.readRepeatedFloat(floats::add);
        }
        assertEquals(List.of(1f, -2f, 3f), floats);
    }

    @Test
    void unknownFieldsOfEveryWireTypeAreSkipped() {
        // field 9 start-group (9<<3|3 = 0x4b) containing varint field 1, closed by end-group (0x4c)
        byte[] group = HexFormat.of().parseHex("4b" + "0805" + "4c");
        ProtoWriter w = new ProtoWriter().varint(10, 1).fixed64(11, 2).bytes(12, new byte[5]).fixed32(13, 3);
        byte[] bytes = concat(w.toByteArray(), group, new ProtoWriter().varint(1, 77).toByteArray());
        ProtoReader r = new ProtoReader(bytes);
        long found = -1;
        while (r.next()) {
            if (r.fieldNumber() == 1) {
                found = r.readVarint();
            } else {
                r.skip();
            }
        }
        assertEquals(77, found);
    }

    @Test
    void malformedInputIsReportedNotMisread() {
        byte[] truncated = Arrays.copyOf(new ProtoWriter().string(1, "abcdef").toByteArray(), 4);
        ProtoReader r = new ProtoReader(truncated);
        assertTrue(r.next());
        assertThrows(ProtobufFormatException.class, r::readString);

        ProtoReader wrongType = new ProtoReader(new ProtoWriter().varint(1, 5).toByteArray());
        assertTrue(wrongType.next());
        assertThrows(ProtobufFormatException.class, wrongType::readString);

        assertThrows(ProtobufFormatException.class, () -> new ProtoReader(new byte[] {0x0e}).next(), "wire type 6");
        assertThrows(ProtobufFormatException.class, () -> new ProtoReader(new byte[] {(byte) 0x80}).next(), "cut varint");
        ProtoReader badPacked = new ProtoReader(new ProtoWriter().bytes(4, new byte[3]).toByteArray());
        assertTrue(badPacked.next());
        assertThrows(ProtobufFormatException.class, () -> badPacked.readRepeatedFloat(f -> { }));
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }
}
