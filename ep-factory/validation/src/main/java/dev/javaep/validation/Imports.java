package dev.javaep.validation;

import static dev.javaep.validation.Proxy.MEMORY;

import dev.javaep.bridge.InteropDescriptors;
import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtInteropLayouts;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The importer's own checks, for {@link Site}: whether an import descriptor is one an importer could take, and whether
 * an importer's {@code Import*} agrees with what its {@code CanImport*} answered for that type.
 */
final class Imports {
    private Imports() {}

    /** The descriptors' type field; the memory and semaphore descriptors share its offset. */
    private static final long TYPE = OrtInteropLayouts.offset(OrtInteropLayouts.MEMORY_DESCRIPTOR, "handle_type");
    /** Type values whose CanImport answers are kept: two bits each in one half of {@link Proxy#answers}. */
    private static final int KEPT_TYPES = 16;
    private static final int ASKED = 1;
    private static final int ANSWERED_TRUE = 2;

    /**
     * What is wrong with the descriptor at {@code d} for an import of {@code handles}, or null: what javaep's own
     * importers refuse as ORT_INVALID_ARGUMENT before any importer sees it, in the same words.
     */
    static String descriptorProblem(ObjectKind handles, long d) {
        MemorySegment descriptor = MemorySegment.ofAddress(d);
        return handles == ObjectKind.MEMORY_HANDLE ? InteropDescriptors.memoryProblem(descriptor)
                : InteropDescriptors.semaphoreProblem(descriptor);
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
