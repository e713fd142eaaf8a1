package dev.javaep.host;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiSlot;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * An {@code OrtMemoryInfo}: where a tensor's bytes live (device type, vendor, device id, default or
 * host-accessible memory) and how they are allocated.
 *
 * <p>Two kinds: <b>owned</b> ones come from {@link #create} or {@link #cpu()} and are released by
 * {@link #close()}; <b>borrowed</b> ones are views of infos ORT owns (an EP device's, a tensor's, a
 * session's, an allocator's). A borrowed info is valid only while its owner lives, and closing it
 * only ends this Java view; {@link #isOwned()} says which one you hold.
 */
public final class MemoryInfo implements AutoCloseable {
    /** The name ORT gives host memory. */
    public static final String CPU = "Cpu";

    // CreateCpuMemoryInfo: OrtDeviceAllocator, OrtMemTypeDefault
    private static final int DEVICE_ALLOCATOR = 0;
    private static final int MEM_TYPE_DEFAULT = 0;

    /** What a memory info says, read once; {@code vendorId} prints in hex, as PCI vendor ids are written. */
    public record Description(String name, MemoryDeviceType deviceType, DeviceMemoryType deviceMemoryType, int vendorId,
                              int deviceId, AllocatorType allocatorType) {
        /** CPU memory, or device memory the host can read and write directly. */
        public boolean hostAccessible() {
            return deviceType == MemoryDeviceType.CPU || deviceMemoryType == DeviceMemoryType.HOST_ACCESSIBLE;
        }

        @Override
        public String toString() {
            return "MemoryInfo[name=" + name + ", deviceType=" + deviceType + ", deviceMemoryType=" + deviceMemoryType
                    + ", vendorId=0x" + Integer.toHexString(vendorId) + ", deviceId=" + deviceId
                    + ", allocatorType=" + allocatorType + "]";
        }
    }

    private final OrtApi api;
    private final boolean owned;
    private MemorySegment info;

    private MemoryInfo(OrtApi api, MemorySegment info, boolean owned) {
        this.api = api;
        this.info = info;
        this.owned = owned;
    }

    /**
     * {@code CreateMemoryInfo_V2}. For an EP's device memory prefer the EP's own info
     * ({@link EpDevice#memoryInfo}): ORT finds allocators by comparing infos.
     *
     * @param alignment 0 for the device's default
     */
    public static MemoryInfo create(String name, MemoryDeviceType deviceType, int vendorId, int deviceId,
                                    DeviceMemoryType memoryType, long alignment, AllocatorType allocatorType) {
        OrtApi api = OrtHost.shared().api();
        return new MemoryInfo(api, api.createMemoryInfoV2(name, deviceType.value(), vendorId, deviceId, memoryType.value(),
                alignment, allocatorType.value()), true);
    }

    /** {@code CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault)}: plain host memory. */
    public static MemoryInfo cpu() {
        OrtApi api = OrtHost.shared().api();
        return new MemoryInfo(api, api.createCpuMemoryInfo(DEVICE_ALLOCATOR, MEM_TYPE_DEFAULT), true);
    }

    /** A non-owning view of an info ORT owns; NULL gives {@code null}. */
    static MemoryInfo borrowed(OrtApi api, MemorySegment info) {
        return info.equals(MemorySegment.NULL) ? null : new MemoryInfo(api, info, false);
    }

    /** Whether {@link #close()} releases the native info (false for views of ORT's own infos). */
    public boolean isOwned() {
        return owned;
    }

    /** The {@code OrtMemoryInfo*}. */
    public MemorySegment handle() {
        return OrtCalls.live(info, "MemoryInfo");
    }

    public String name() {
        return OrtApi.cString(OrtCalls.pointerOut(api, OrtApiSlot.MemoryInfoGetName, handle()));
    }

    public MemoryDeviceType deviceType() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            api.table().handle(OrtApiSlot.MemoryInfoGetDeviceType).invokeExact(handle(), out);
            return MemoryDeviceType.of(out.get(JAVA_INT, 0));
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    public DeviceMemoryType deviceMemoryType() {
        return DeviceMemoryType.of(api.table().callInt(OrtApiSlot.MemoryInfoGetDeviceMemType, handle()));
    }

    /** The PCI vendor id (0x10de NVIDIA, ...); 0 where ORT does not know one (plain CPU memory). */
    public int vendorId() {
        return api.table().callInt(OrtApiSlot.MemoryInfoGetVendorId, handle());
    }

    /** The device ordinal ({@code MemoryInfoGetId}). */
    public int deviceId() {
        return intOut(OrtApiSlot.MemoryInfoGetId);
    }

    public AllocatorType allocatorType() {
        return AllocatorType.of(intOut(OrtApiSlot.MemoryInfoGetType));
    }

    /** CPU memory, or device memory the host can read and write directly (HOST_ACCESSIBLE). */
    public boolean isHostAccessible() {
        return deviceType() == MemoryDeviceType.CPU || deviceMemoryType() == DeviceMemoryType.HOST_ACCESSIBLE;
    }

    /** {@code CompareMemoryInfo}: whether ORT considers both infos the same location. */
    public boolean sameAs(MemoryInfo other) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            api.check(api.table().call(OrtApiSlot.CompareMemoryInfo, handle(), other.handle(), out));
            return out.get(JAVA_INT, 0) == 0;
        }
    }

    /** Every field, read now. */
    public Description describe() {
        return new Description(name(), deviceType(), deviceMemoryType(), vendorId(), deviceId(), allocatorType());
    }

    @Override
    public String toString() {
        if (info == null) {
            return "MemoryInfo[closed]";
        }
        return describe() + (owned ? "" : " (borrowed)");
    }

    private int intOut(OrtApiSlot slot) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            api.check(api.table().call(slot, handle(), out));
            return out.get(JAVA_INT, 0);
        }
    }

    /** Releases an owned info; for a borrowed one only ends this view (ORT keeps its info). */
    @Override
    public void close() {
        if (info != null && owned) {
            api.releaseMemoryInfo(info);
        }
        info = null;
    }
}
