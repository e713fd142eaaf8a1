package dev.javaep.cpu;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The layout of memory fds Mesa's llvmpipe exports (lavapipe's {@code VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT}):
 * the memfd starts with a header, and the allocation's bytes follow at the offset it names (4096 in
 * Mesa 22.3). Header: {@code uint64 file size, uint64 data offset}, then the first 16 bytes of
 * SHA-1("llvmpipe"), Mesa's driver identity for these fds. Any other fd holds its data from byte 0.
 */
final class MesaMemoryFd {
    private MesaMemoryFd() {}

    private static final long SIZE_FIELD = 0;
    private static final long OFFSET_FIELD = 8;
    private static final long IDENTITY_FIELD = 16;
    private static final byte[] LLVMPIPE_IDENTITY = hex("6cb9ee074a0bad7b012e1be9697e530f");

    /** Where the data starts in a mapped fd: after an llvmpipe header when there is one, else at 0. */
    static long dataOffset(MemorySegment file) {
        if (file.byteSize() < IDENTITY_FIELD + LLVMPIPE_IDENTITY.length) {
            return 0;
        }
        MemorySegment identity = file.asSlice(IDENTITY_FIELD, LLVMPIPE_IDENTITY.length);
        if (MemorySegment.mismatch(identity, 0, identity.byteSize(), MemorySegment.ofArray(LLVMPIPE_IDENTITY), 0,
                LLVMPIPE_IDENTITY.length) != -1) {
            return 0;
        }
        long size = file.get(ValueLayout.JAVA_LONG_UNALIGNED, SIZE_FIELD);
        long offset = file.get(ValueLayout.JAVA_LONG_UNALIGNED, OFFSET_FIELD);
        if (size != file.byteSize() || offset < IDENTITY_FIELD + LLVMPIPE_IDENTITY.length || offset > size) {
            throw new IllegalArgumentException("javaep: the fd carries Mesa llvmpipe's identity but a header javaep does not"
                    + " understand (file size " + file.byteSize() + ", header size " + size + ", data offset " + offset + ")");
        }
        return offset;
    }

    private static byte[] hex(String text) {
        byte[] bytes = new byte[text.length() / 2];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) Integer.parseInt(text.substring(2 * i, 2 * i + 2), 16);
        }
        return bytes;
    }
}
