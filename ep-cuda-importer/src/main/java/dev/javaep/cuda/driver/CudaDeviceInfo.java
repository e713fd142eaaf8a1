package dev.javaep.cuda.driver;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What javaep needs to know about one CUDA device, read once: the identities an application uses to
 * pick the same GPU in another API (UUID for Vulkan's {@code deviceUUID}, PCI bus id for ORT's Linux
 * {@code pci_bus_id} metadata, LUID for D3D12 on Windows) and the numbers the EP reports or plans with.
 *
 * @param ordinal the CUDA ordinal ({@code cuDeviceGet}'s argument; subject to {@code CUDA_VISIBLE_DEVICES})
 * @param handle the {@code CUdevice}
 * @param uuid the 16 bytes of {@code cuDeviceGetUuid_v2}
 * @param pciBusId as Linux sysfs names it: lowercase, 4-hex-digit domain, e.g. {@code 0000:65:00.0}
 * @param luid the Windows adapter LUID as a little-endian uint64 (LowPart | HighPart << 32, what
 *     {@code Long.toUnsignedString} prints as ORT's decimal {@code "LUID"}); empty off Windows or if
 *     {@code cuDeviceGetLuid} failed
 * @param memoryClockKhz peak memory clock ({@code CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE})
 */
public record CudaDeviceInfo(
        int ordinal,
        int handle,
        String name,
        byte[] uuid,
        String pciBusId,
        OptionalLong luid,
        int computeCapabilityMajor,
        int computeCapabilityMinor,
        long totalMemoryBytes,
        int multiprocessorCount,
        int memoryClockKhz,
        int memoryBusWidthBits) {

    private static final HexFormat HEX = HexFormat.of();
    private static final Pattern PCI_BUS_ID = Pattern.compile(
            "(?:([0-9a-f]{1,8}):)?([0-9a-f]{1,2}):([0-9a-f]{1,2})\\.([0-7])");

    public CudaDeviceInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(uuid, "uuid");
        Objects.requireNonNull(pciBusId, "pciBusId");
        Objects.requireNonNull(luid, "luid");
        if (uuid.length != 16) {
            throw new IllegalArgumentException("a CUDA device UUID has 16 bytes, got " + uuid.length);
        }
        uuid = uuid.clone();
    }

    /** A copy of the 16 UUID bytes (records cannot share arrays safely). */
    @Override
    public byte[] uuid() {
        return uuid.clone();
    }

    /** {@code GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}, lowercase, as {@code nvidia-smi -L} prints it. */
    public String uuidString() {
        String hex = uuidHex();
        return "GPU-" + hex.substring(0, 8) + "-" + hex.substring(8, 12) + "-" + hex.substring(12, 16) + "-"
                + hex.substring(16, 20) + "-" + hex.substring(20);
    }

    /** 32 lowercase hex digits, no dashes: how Vulkan's {@code VkPhysicalDeviceIDProperties.deviceUUID} prints. */
    public String uuidHex() {
        return HEX.formatHex(uuid);
    }

    /**
     * The nominal peak DRAM bandwidth: 2 transfers per clock (DDR) × memory clock × bus width in bytes.
     * A datasheet figure from two attributes, not a measurement: achievable copy bandwidth is lower
     * (typically 80–90 %), and clocks may be reported differently on some memory types.
     */
    public double peakMemoryBandwidthBytesPerSecond() {
        return 2.0 * memoryClockKhz * 1000.0 * (memoryBusWidthBits / 8.0);
    }

    /**
     * The PCI address as Linux sysfs and ORT's {@code pci_bus_id} metadata write it: lowercase hex,
     * domain padded to 4 digits (a wider domain is kept whole), bus and device to 2. CUDA prints
     * {@code 0000:65:00.0}, nvidia-smi and NVML {@code 00000000:65:00.0}, some tools drop the domain;
     * all become {@code 0000:65:00.0}.
     *
     * @throws IllegalArgumentException when the text is not {@code [domain:]bus:device.function}
     */
    public static String normalizePciBusId(String pciBusId) {
        Objects.requireNonNull(pciBusId, "pciBusId");
        Matcher m = PCI_BUS_ID.matcher(pciBusId.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("not a PCI bus id: \"" + pciBusId
                    + "\" (expected [domain:]bus:device.function in hex, e.g. 0000:65:00.0)");
        }
        long domain = m.group(1) == null ? 0 : Long.parseLong(m.group(1), 16);
        int bus = Integer.parseInt(m.group(2), 16);
        int device = Integer.parseInt(m.group(3), 16);
        return String.format(Locale.ROOT, "%04x:%02x:%02x.%s", domain, bus, device, m.group(4));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CudaDeviceInfo d
                && ordinal == d.ordinal
                && handle == d.handle
                && name.equals(d.name)
                && Arrays.equals(uuid, d.uuid)
                && pciBusId.equals(d.pciBusId)
                && luid.equals(d.luid)
                && computeCapabilityMajor == d.computeCapabilityMajor
                && computeCapabilityMinor == d.computeCapabilityMinor
                && totalMemoryBytes == d.totalMemoryBytes
                && multiprocessorCount == d.multiprocessorCount
                && memoryClockKhz == d.memoryClockKhz
                && memoryBusWidthBits == d.memoryBusWidthBits;
    }

    @Override
    public int hashCode() {
        return Objects.hash(ordinal, handle, name, Arrays.hashCode(uuid), pciBusId, luid);
    }

    @Override
    public String toString() {
        return "CudaDeviceInfo[" + ordinal + ": " + name + ", " + uuidString() + ", pci " + pciBusId
                + (luid.isPresent() ? ", luid " + Long.toUnsignedString(luid.getAsLong()) : "")
                + ", sm_" + computeCapabilityMajor + computeCapabilityMinor
                + ", " + totalMemoryBytes + " bytes, " + multiprocessorCount + " SMs, "
                + memoryClockKhz + " kHz x " + memoryBusWidthBits + " bit]";
    }
}
