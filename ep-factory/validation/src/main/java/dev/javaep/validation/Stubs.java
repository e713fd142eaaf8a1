package dev.javaep.validation;

import dev.javaep.bridge.UpcallGuard;
import dev.javaep.ort.CallbackSlot;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;

/**
 * The layer's upcall stubs, one per (kind, slot) for the whole process, shared by every proxy of that kind. Each stub
 * widens its arguments to {@code long} and calls {@code forwardN(site, this, ...)}: one Java method per arity instead
 * of one per slot, and no boxing: the {@link Site} is bound into the stub, so the JIT sees its downcall as a constant.
 */
@SuppressWarnings("restricted") // the layer stands between two C libraries: raw pointers and native calls are its work
final class Stubs {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle[] FORWARD = new MethodHandle[7];

    static {
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        for (int arity = 0; arity < FORWARD.length; arity++) {
            MethodType type = MethodType.methodType(long.class, Site.class, long.class);
            for (int i = 0; i < arity; i++) {
                type = type.appendParameterTypes(long.class);
            }
            try {
                FORWARD[arity] = lookup.findStatic(Forwarding.class, "forward" + arity, type);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }

    private final Map<ObjectKind, Map<CallbackSlot, MemorySegment>> stubs = new EnumMap<>(ObjectKind.class);

    synchronized MemorySegment stub(ObjectKind kind, CallbackSlot slot) {
        return stubs.computeIfAbsent(kind, _ -> new HashMap<>()).computeIfAbsent(slot, s -> make(kind, s));
    }

    private static MemorySegment make(ObjectKind kind, CallbackSlot slot) {
        FunctionDescriptor asLongs = UpcallGuard.addressesAsLongs(slot.descriptor());
        int arity = asLongs.argumentLayouts().size() - 1;
        // The vendor's function, called with every argument as long: (long function, long this, long...) -> long.
        MethodHandle downcall = LINKER.downcallHandle(asLongs);
        downcall = MethodHandles.filterArguments(downcall, 0, OF_ADDRESS);
        downcall = MethodHandles.explicitCastArguments(downcall,
                MethodType.methodType(long.class, Collections.nCopies(arity + 2, long.class)));
        Site site = new Site(kind, slot, ((Enum<?>) slot).ordinal(), kind.callbackName(slot), SlotRule.of(slot),
                slot.returnsStatus(), downcall);
        MethodHandle target = MethodHandles.insertArguments(FORWARD[arity], 0, site);
        target = MethodHandles.explicitCastArguments(target, asLongs.toMethodType());
        return UpcallGuard.stub(slot, target, Arena.global());
    }

    private static final MethodHandle OF_ADDRESS;

    static {
        try {
            OF_ADDRESS = MethodHandles.lookup().findStatic(MemorySegment.class, "ofAddress",
                    MethodType.methodType(MemorySegment.class, long.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
