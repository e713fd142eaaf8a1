package dev.javaep.bridge;

import dev.javaep.ort.CallbackSlot;
import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtException;
import dev.javaep.spi.EpLog;
import dev.javaep.spi.EpLogger;
import java.lang.foreign.AddressLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Objects;

/**
 * The one exception firewall every ORT→Java upcall goes through. A {@link Throwable} escaping an FFM
 * upcall kills the JVM and the host process with it; the guard catches everything at the stub:
 * status-returning callbacks return an {@code OrtStatus} (error code chosen by {@link #errorCodeOf},
 * message naming the callback and the cause), all others return a safe zero value and log.
 */
public final class UpcallGuard {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();

    private UpcallGuard() {}

    /**
     * Builds the upcall stub for {@code slot}, calling {@code target} (whose type must match the
     * slot's descriptor) behind the guard. Stubs live as long as {@code arena}.
     */
    public static MemorySegment stub(CallbackSlot slot, MethodHandle target, Arena arena) {
        FunctionDescriptor descriptor = slot.descriptor();
        MethodType expected = descriptor.toMethodType();
        if (!target.type().equals(expected)) {
            // A hot callback may take and return its pointers as long addresses: the stub then makes no
            // MemorySegment per argument (the JIT does not scalar-replace them across the upcall).
            FunctionDescriptor asLongs = addressesAsLongs(descriptor);
            if (!target.type().equals(asLongs.toMethodType())) {
                throw new IllegalArgumentException("upcall target for " + slot.name() + " has type " + target.type()
                        + ", the C signature needs " + expected + " (or " + asLongs.toMethodType() + ")");
            }
            descriptor = asLongs;
        }
        return LINKER.upcallStub(guard(slot, target), descriptor, arena);
    }

    /** {@code descriptor} with every pointer a {@code JAVA_LONG} (the same C signature on 64-bit platforms). */
    public static FunctionDescriptor addressesAsLongs(FunctionDescriptor descriptor) {
        MemoryLayout[] arguments = descriptor.argumentLayouts().stream().map(UpcallGuard::asLong).toArray(MemoryLayout[]::new);
        return descriptor.returnLayout().map(r -> FunctionDescriptor.of(asLong(r), arguments))
                .orElseGet(() -> FunctionDescriptor.ofVoid(arguments));
    }

    private static MemoryLayout asLong(MemoryLayout layout) {
        return layout instanceof AddressLayout ? ValueLayout.JAVA_LONG : layout;
    }

    /** {@code target} wrapped so that no Throwable escapes it. */
    static MethodHandle guard(CallbackSlot slot, MethodHandle target) {
        String callback = slot.getClass().getSimpleName().replace("Struct", "") + "::" + slot.name();
        Class<?> returnType = target.type().returnType();
        MethodHandle handler = failureHandler(slot.returnsStatus(), returnType).bindTo(callback);
        handler = MethodHandles.dropArguments(handler, 1, target.type().parameterList());
        return MethodHandles.catchException(target, Throwable.class, handler);
    }

    private static MethodHandle failureHandler(boolean returnsStatus, Class<?> returnType) {
        try {
            String name;
            if (returnsStatus && returnType == long.class) {
                name = "failWithStatusAddress";
            } else if (returnsStatus) {
                name = "failWithStatus";
            } else if (returnType == void.class) {
                name = "failVoid";
            } else if (returnType == MemorySegment.class) {
                name = "failPointer";
            } else if (returnType == boolean.class) {
                name = "failBoolean";
            } else if (returnType == int.class) {
                name = "failInt";
            } else if (returnType == long.class) {
                name = "failLong";
            } else {
                throw new IllegalArgumentException("no safe value for upcall return type " + returnType);
            }
            return LOOKUP.findStatic(UpcallGuard.class, name,
                    MethodType.methodType(returnType, String.class, Throwable.class));
        } catch (ReflectiveOperationException e) {
            throw new LinkageError("UpcallGuard handlers missing", e);
        }
    }

    /** The ORT error code an exception maps to. */
    public static OrtErrorCode errorCodeOf(Throwable t) {
        return switch (t) {
            case OrtException e -> e.code();
            case IllegalArgumentException _ -> OrtErrorCode.INVALID_ARGUMENT;
            case UnsupportedOperationException _ -> OrtErrorCode.NOT_IMPLEMENTED;
            default -> OrtErrorCode.EP_FAIL;
        };
    }

    /** The status message for an exception: what failed, and why. */
    public static String messageOf(String callback, Throwable t) {
        String detail = Objects.requireNonNullElse(t.getMessage(), t.getClass().getName());
        if (detail.startsWith("javaep")) {
            return detail + " (in " + callback + ")";
        }
        String kind = t instanceof OrtException ? "" : t.getClass().getSimpleName() + ": ";
        return "javaep: " + callback + " failed: " + kind + detail;
    }

    // Handlers. Each is itself guarded: if building the status fails too, report and return NULL,
    // which is the only thing left that cannot take the process down.

    private static MemorySegment failWithStatus(String callback, Throwable t) {
        try {
            EpLog.warning(messageOf(callback, t), t);
            return OrtRuntime.current().api().createStatus(errorCodeOf(t), messageOf(callback, t));
        } catch (Throwable secondary) {
            emergency(callback, t, secondary);
            return MemorySegment.NULL;
        }
    }

    /** {@link #failWithStatus} for a callback that returns its status as a long address. */
    private static long failWithStatusAddress(String callback, Throwable t) {
        return failWithStatus(callback, t).address();
    }

    private static void failVoid(String callback, Throwable t) {
        logQuietly(callback, t);
    }

    private static MemorySegment failPointer(String callback, Throwable t) {
        logQuietly(callback, t);
        return MemorySegment.NULL;
    }

    private static boolean failBoolean(String callback, Throwable t) {
        logQuietly(callback, t);
        return false;
    }

    private static int failInt(String callback, Throwable t) {
        logQuietly(callback, t);
        return 0;
    }

    private static long failLong(String callback, Throwable t) {
        logQuietly(callback, t);
        return 0L;
    }

    private static void logQuietly(String callback, Throwable t) {
        try {
            EpLog.warning(messageOf(callback, t), t);
        } catch (Throwable secondary) {
            emergency(callback, t, secondary);
        }
    }

    private static void emergency(String callback, Throwable t, Throwable secondary) {
        try {
            EpLog.log(EpLogger.Level.ERROR, "javaep: " + callback + " failed (" + t + ") and reporting it failed too ("
                    + secondary + ")");
        } catch (Throwable ignored) {
            // Nothing else can be done without risking the host process.
        }
    }
}
