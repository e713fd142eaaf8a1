package dev.javaep.conformance.models;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32;
import java.util.zip.DeflaterOutputStream;

/**
 * Writes an RGBA image as a PNG file with java.base alone (the distribution's embedded runtime has no
 * java.desktop): signature, IHDR (8-bit RGBA), one zlib-compressed IDAT of filter-0 scanlines, IEND.
 */
public final class Png {
    private Png() {}

    /** {@code rgba}: row-major, 4 bytes a pixel. */
    public static void write(Path file, byte[] rgba, int height, int width) throws IOException {
        if (rgba.length != height * width * 4) {
            throw new IllegalArgumentException(rgba.length + " bytes is not a " + width + "x" + height + " RGBA image");
        }
        ByteArrayOutputStream png = new ByteArrayOutputStream();
        png.write(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'});
        ByteBuffer header = ByteBuffer.allocate(13).putInt(width).putInt(height)
                .put((byte) 8).put((byte) 6).put((byte) 0).put((byte) 0).put((byte) 0); // 8 bits, RGBA, deflate, filter 0, no interlace
        chunk(png, "IHDR", header.array());
        ByteArrayOutputStream pixels = new ByteArrayOutputStream();
        try (DeflaterOutputStream deflate = new DeflaterOutputStream(pixels)) {
            for (int y = 0; y < height; y++) {
                deflate.write(0); // scanline filter: none
                deflate.write(rgba, y * width * 4, width * 4);
            }
        }
        chunk(png, "IDAT", pixels.toByteArray());
        chunk(png, "IEND", new byte[0]);
        Files.write(file, png.toByteArray());
    }

    private static void chunk(ByteArrayOutputStream png, String type, byte[] data) throws IOException {
        byte[] name = type.getBytes(StandardCharsets.US_ASCII);
        png.write(ByteBuffer.allocate(4).putInt(data.length).array());
        png.write(name);
        png.write(data);
        CRC32 crc = new CRC32();
        crc.update(name);
        crc.update(data);
        png.write(ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
    }
}
