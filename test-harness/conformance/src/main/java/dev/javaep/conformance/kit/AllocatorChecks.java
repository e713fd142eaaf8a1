package dev.javaep.conformance.kit;

import dev.javaep.host.Allocator;
import dev.javaep.host.DeviceMemoryType;
import dev.javaep.host.MemoryInfo;
import dev.javaep.host.OrtTensor;
import dev.javaep.host.Session;
import dev.javaep.spi.ElementType;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The EP's allocators as a host reaches them: {@code CreateAllocator} on a session for each memory info the EP
 * registered, tensors allocated from them. An EP that registers no memory info is served by ORT's CPU allocator and
 * these checks skip.
 */
final class AllocatorChecks {
    /** ORT's own allocators align to 64 bytes ({@code kAllocAlignment}); kernels may assume it. */
    static final long ALIGNMENT = 64;

    private AllocatorChecks() {}

    static CheckGroup group() {
        return new CheckGroup("allocators", "the EP's allocators through CreateAllocator", List.of(
                new Check("allocators.create-release",
                        "CreateAllocator / allocate / free / ReleaseAllocator pair up, three times over",
                        AllocatorChecks::createRelease),
                new Check("allocators.alignment",
                        "allocations of odd sizes are aligned to " + ALIGNMENT + " bytes",
                        AllocatorChecks::alignment),
                new Check("allocators.zero-size",
                        "a zero-element tensor allocates (or fails with a status) and frees",
                        AllocatorChecks::zeroSize),
                new Check("allocators.huge",
                        "absurd requests (2^50 bytes, 2^63 - 1 bytes, 2^62 floats: past size_t) end in a status or NULL,"
                                + " never a crash or a block smaller than asked",
                        AllocatorChecks::huge),
                new Check("allocators.repeatable",
                        "two sessions' allocators for one memory info describe the same memory",
                        AllocatorChecks::repeatable)));
    }

    /** The memory infos the EP registered on its first device; skips when none. */
    static List<MemoryInfo> memoryInfos(KitContext context) {
        List<MemoryInfo> infos = new ArrayList<>();
        for (DeviceMemoryType type : DeviceMemoryType.values()) {
            context.device().memoryInfo(type).ifPresent(infos::add);
        }
        if (infos.isEmpty()) {
            throw Check.skip(context.epName() + " registers no memory info: ORT's CPU allocator serves it");
        }
        return infos;
    }

    private static String createRelease(KitContext context) {
        List<MemoryInfo> infos = memoryInfos(context);
        try (Session session = context.session(KitContext.addModel(), true)) {
            for (int round = 0; round < 3; round++) {
                for (MemoryInfo info : infos) {
                    try (Allocator allocator = session.allocator(info);
                         OrtTensor tensor = OrtTensor.allocate(allocator, ElementType.FLOAT, 256)) {
                        if (tensor.dataAddress() == 0) {
                            throw Check.fail("a 1 KiB allocation from " + info.describe() + " has a NULL address");
                        }
                    }
                }
            }
        }
        return infos.size() + " memory info(s), 3 rounds";
    }

    private static String alignment(KitContext context) {
        List<MemoryInfo> infos = memoryInfos(context);
        List<String> misaligned = new ArrayList<>();
        try (Session session = context.session(KitContext.addModel(), true)) {
            for (MemoryInfo info : infos) {
                try (Allocator allocator = session.allocator(info)) {
                    for (long elements : new long[] {1, 3, 17, 1001, 65_537}) {
                        try (OrtTensor tensor = OrtTensor.allocate(allocator, ElementType.UINT8, elements)) {
                            if (tensor.dataAddress() % ALIGNMENT != 0) {
                                misaligned.add(elements + " bytes at 0x" + Long.toHexString(tensor.dataAddress()) + " from "
                                        + info.describe().name());
                            }
                        }
                    }
                }
            }
        }
        if (!misaligned.isEmpty()) {
            throw Check.fail("not " + ALIGNMENT + "-byte aligned: " + String.join(", ", misaligned));
        }
        return "5 sizes × " + infos.size() + " memory info(s)";
    }

    private static String zeroSize(KitContext context) {
        List<MemoryInfo> infos = memoryInfos(context);
        List<String> outcomes = new ArrayList<>();
        try (Session session = context.session(KitContext.addModel(), true)) {
            for (MemoryInfo info : infos) {
                try (Allocator allocator = session.allocator(info)) {
                    try (OrtTensor tensor = OrtTensor.allocate(allocator, ElementType.FLOAT, 0)) {
                        outcomes.add(info.describe().name() + ": allocated, " + tensor.byteSize() + " bytes");
                    } catch (RuntimeException e) {
                        outcomes.add(info.describe().name() + ": status " + e.getMessage());
                    }
                }
            }
        }
        return String.join("; ", outcomes);
    }

    /**
     * The requests of {@code allocators.huge}: 1 PiB (beyond any device), the largest size a host can ask for
     * (2^63 - 1 bytes: an allocator that rounds it up to its alignment wraps to a few bytes and returns a block far
     * too small), and a byte count past size_t (ORT's own size computation must refuse it before the allocator sees it).
     */
    private static final List<HugeRequest> HUGE = List.of(new HugeRequest("2^50 bytes", ElementType.UINT8, 1L << 50),
            new HugeRequest("2^63 - 1 bytes", ElementType.UINT8, Long.MAX_VALUE),
            new HugeRequest("2^62 floats (2^64 bytes)", ElementType.FLOAT, 1L << 62));

    private record HugeRequest(String what, ElementType type, long elements) {}

    /**
     * An allocator says no by returning NULL; ORT (1.29) then hands the host either a status or a tensor with no data
     * (CreateTensorAsOrtValue does not look at what a plugin allocator returned), and both are a refusal. A real
     * address for 2^63 - 1 bytes is not: no process has that much address space, so the allocator wrapped the size.
     */
    private static String huge(KitContext context) {
        List<MemoryInfo> infos = memoryInfos(context);
        List<String> outcomes = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        try (Session session = context.session(KitContext.addModel(), true)) {
            for (MemoryInfo info : infos) {
                try (Allocator allocator = session.allocator(info)) {
                    for (HugeRequest request : HUGE) {
                        String where = request.what() + " from " + info.describe().name();
                        try (OrtTensor tensor = OrtTensor.allocate(allocator, request.type(), request.elements())) {
                            long address = tensor.dataAddress();
                            if (address == 0) {
                                outcomes.add(where + ": NULL (refused)");
                            } else if (request.elements() == Long.MAX_VALUE) {
                                problems.add(where + ": a block at 0x" + Long.toHexString(address) + ", which cannot be"
                                        + " that large: the allocator's size arithmetic wrapped");
                            } else {
                                outcomes.add(where + ": allocated at 0x" + Long.toHexString(address));
                            }
                        } catch (RuntimeException e) {
                            outcomes.add(where + ": status (" + CapabilityChecks.firstLine(e.getMessage()) + ")");
                        }
                    }
                }
            }
        }
        if (!problems.isEmpty()) {
            throw Check.fail(String.join("; ", problems));
        }
        return String.join("; ", outcomes);
    }

    private static String repeatable(KitContext context) {
        List<MemoryInfo> infos = memoryInfos(context);
        try (Session first = context.session(KitContext.addModel(), true);
             Session second = context.session(KitContext.addModel(), true)) {
            for (MemoryInfo info : infos) {
                try (Allocator a = first.allocator(info); Allocator b = second.allocator(info)) {
                    if (!a.memoryInfo().sameAs(b.memoryInfo()) || !a.memoryInfo().sameAs(info)) {
                        throw Check.fail("allocators for " + info.describe() + " describe " + a.memoryInfo().describe()
                                + " and " + b.memoryInfo().describe());
                    }
                }
                Optional<Allocator> shared = context.env().sharedAllocator(info);
                Optional<Allocator> again = context.env().sharedAllocator(info);
                if (shared.isPresent() != again.isPresent()
                        || shared.isPresent() && !shared.get().handle().equals(again.get().handle())) {
                    throw Check.fail("GetSharedAllocator(" + info.describe().name() + ") answers differently when asked twice");
                }
            }
        }
        return infos.size() + " memory info(s)";
    }
}
