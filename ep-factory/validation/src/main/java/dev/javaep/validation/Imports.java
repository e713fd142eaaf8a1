package dev.javaep.validation;

import static dev.javaep.validation.Proxy.MEMORY;

import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtInteropLayouts;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.spi.ExternalSemaphoreType;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * The importer's own checks, for {@link Site}: whether an import descriptor is one an importer could take, and whether
 * an importer's {@code Import*} agrees with what its {@code CanImport*} answered for that type.
 */
final class Imports {
    private Imports() {}

    /** Descriptor fields; the memory and semaphore descriptors share {@code version} and the type at offset 4. */
    private static final long VERSION = OrtInteropLayouts.offset(OrtInteropLayouts.MEMORY_DESCRIPTOR, "version");
    private static final long TYPE = OrtInteropLayouts.offset(OrtInteropLayouts.MEMORY_DESCRIPTOR, "handle_type");
    private static final long SIZE = OrtInteropLayouts.offset(OrtInteropLayouts.MEMORY_DESCRIPTOR, "size_bytes");
    private static final long OFFSET = OrtInteropLayouts.offset(OrtInteropLayouts.MEMORY_DESCRIPTOR, "offset_bytes");
    /** One more than the largest handle type ORT defines (API 30), per kind of handle. */
    private static final int MEMORY_TYPES = 1 + Arrays.stream(ExternalMemoryType.values())
            .mapToInt(ExternalMemoryType::ortValue).max().orElseThrow();
    private static final int SEMAPHORE_TYPES = 1 + Arrays.stream(ExternalSemaphoreType.values())
            .mapToInt(ExternalSemaphoreType::ortValue).max().orElseThrow();
    /** Type values whose CanImport answers are kept: two bits each in one half of {@link Proxy#answers}. */
    private static final int KEPT_TYPES = 16;
    private static final int ASKED = 1;
    private static final int ANSWERED_TRUE = 2;

    /** What is wrong with the descriptor at {@code d} for an import of {@code handles}, or null. */
    static String descriptorProblem(ObjectKind handles, long d) {
        if (d == 0) {
            return "the descriptor is NULL";
        }
        int version = MEMORY.get(ValueLayout.JAVA_INT, d + VERSION);
        if (version < OrtInteropLayouts.FIRST_VERSION || version > OrtInteropLayouts.NEWEST_KNOWN_VERSION) {
            return "descriptor version " + version + " is none javaep knows (" + OrtInteropLayouts.FIRST_VERSION + ".."
                    + OrtInteropLayouts.NEWEST_KNOWN_VERSION + "; 0: not set)";
        }
        boolean memory = handles == ObjectKind.MEMORY_HANDLE;
        int type = MEMORY.get(ValueLayout.JAVA_INT, d + TYPE);
        int types = memory ? MEMORY_TYPES : SEMAPHORE_TYPES;
        if (type < 0 || type >= types) {
            return (memory ? "handle_type " : "type ") + type + " is out of range (0.." + (types - 1) + ")";
        }
        if (memory) {
            long size = MEMORY.get(ValueLayout.JAVA_LONG, d + SIZE);
            long offset = MEMORY.get(ValueLayout.JAVA_LONG, d + OFFSET);
            if (size == 0) {
                return "size_bytes is 0";
            }
            if (Long.compareUnsigned(offset, size) >= 0) {
                return "offset_bytes " + Long.toUnsignedString(offset) + " is not below size_bytes " + Long.toUnsignedString(size);
            }
        }
        return null;
    }

    /** Keeps {@code importer}'s answer to {@code CanImport*(type)} for handles of {@code handles}. */
    static void remember(Proxy importer, ObjectKind handles, long type, boolean answer) {
        if (type < 0 || type >= KEPT_TYPES) {
            return;
        }
        int shift = shift(handles, (int) type);
        long mask = 3L << shift;
        long bits = (long) (answer ? ASKED | ANSWERED_TRUE : ASKED) << shift;
        long before;
        do {
            before = importer.answers.get();
        } while (!importer.answers.compareAndSet(before, (before & ~mask) | bits));
    }

    /**
     * The lie in an import of the type in descriptor {@code d} that {@code succeeded} (or failed with
     * {@code failedCode}), given what the importer's CanImport answered for it; null when none (or never asked).
     */
    static String lie(Proxy importer, ObjectKind handles, String callback, long d, boolean succeeded, OrtErrorCode failedCode) {
        if (d == 0) {
            return null;
        }
        int type = MEMORY.get(ValueLayout.JAVA_INT, d + TYPE);
        if (type < 0 || type >= KEPT_TYPES) {
            return null;
        }
        int answer = (int) (importer.answers.get() >>> shift(handles, type)) & 3;
        if ((answer & ASKED) == 0) {
            return null;
        }
        String asked = (handles == ObjectKind.MEMORY_HANDLE ? "CanImportMemory(" : "CanImportSemaphore(") + type + ")";
        boolean claimed = (answer & ANSWERED_TRUE) != 0;
        if (claimed && !succeeded && failedCode == OrtErrorCode.NOT_IMPLEMENTED) {
            return asked + " answered true, but " + callback + " of that type failed with ORT_NOT_IMPLEMENTED (on "
                    + importer.describe() + ")";
        }
        if (!claimed && succeeded) {
            return asked + " answered false, but " + callback + " of that type succeeded (on " + importer.describe() + ")";
        }
        return null;
    }

    private static int shift(ObjectKind handles, int type) {
        return (handles == ObjectKind.SEMAPHORE_HANDLE ? 32 : 0) + 2 * type;
    }
}
