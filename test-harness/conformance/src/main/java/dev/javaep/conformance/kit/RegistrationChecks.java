package dev.javaep.conformance.kit;

import dev.javaep.host.DeviceMemoryType;
import dev.javaep.host.EpDevice;
import dev.javaep.host.MemoryDeviceType;
import dev.javaep.host.MemoryInfo;
import dev.javaep.host.Session;
import dev.javaep.host.TensorData;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** What the library tells ORT when it registers: factories, names, devices, memory infos. */
final class RegistrationChecks {
    private static final Set<String> HARDWARE_TYPES = Set.of("CPU", "GPU", "NPU");

    private RegistrationChecks() {}

    static CheckGroup group() {
        return new CheckGroup("registration", "CreateEpFactories and the EP devices ORT lists", List.of(
                new Check("registration.library-registers",
                        "RegisterExecutionProviderLibrary succeeds and the library adds EP devices of the EP",
                        RegistrationChecks::libraryRegisters),
                new Check("registration.factory-names",
                        "every EP device names its EP and vendor, and carries the factory's version (API 23+)",
                        RegistrationChecks::factoryNames),
                new Check("registration.hardware-devices",
                        "every EP device is on a CPU, GPU or NPU hardware device with a vendor",
                        RegistrationChecks::hardwareDevices),
                new Check("registration.memory-infos",
                        "a GPU/NPU device registers DEFAULT memory on that device; HOST_ACCESSIBLE memory is host-reachable",
                        RegistrationChecks::memoryInfos),
                new Check("registration.creates-ep",
                        "a session with the EP appended (CPU fallback on) creates and runs the probe model",
                        RegistrationChecks::createsEp),
                new Check("registration.ort-invariants",
                        "what a host sees of ORT's own conformance invariants (ep_conformance_invariants.h): the EP's name"
                                + " is non-empty and the same on every device of it; every memory info it registers has a"
                                + " name and a valid allocator type",
                        RegistrationChecks::ortInvariants),
                new Check("registration.ort-version-supported",
                        "every factory's ort_version_supported is a plugin-EP API version (22+) and no newer than it could"
                                + " be; against the host's API (the kit calls CreateEpFactories itself, with a NULL logger:"
                                + " a host has no OrtLogger)",
                        FactoryVersions::check)));
    }

    private static String libraryRegisters(KitContext context) {
        List<EpDevice> devices = context.devices();
        return devices.size() + " EP device(s) of " + devices.getFirst().epName();
    }

    private static String factoryNames(KitContext context) {
        List<String> problems = new ArrayList<>();
        for (EpDevice device : context.devices()) {
            if (blank(device.epName())) {
                problems.add("an EP device has an empty EP name");
            }
            if (blank(device.epVendor())) {
                problems.add(device.epName() + ": empty vendor (OrtEpFactory::GetVendor)");
            }
            String version = device.epMetadata().get("version");
            if (blank(version)) {
                problems.add(device.epName() + ": no version in the EP metadata (OrtEpFactory::GetVersion, API 23)");
            } else if (!version.matches("\\d+\\.\\d+\\.\\d+.*")) {
                problems.add(device.epName() + ": version '" + version + "' is not semantic (MAJOR.MINOR.PATCH)");
            }
        }
        if (!problems.isEmpty()) {
            throw Check.fail(String.join("; ", problems));
        }
        EpDevice first = context.device();
        return first.epName() + " by " + first.epVendor() + ", version " + first.epMetadata().get("version");
    }

    private static String hardwareDevices(KitContext context) {
        List<String> problems = new ArrayList<>();
        for (EpDevice device : context.devices()) {
            if (!HARDWARE_TYPES.contains(device.hardwareType())) {
                problems.add(device.epName() + ": hardware device type " + device.hardwareType());
            }
            // ORT's own discovery may know a device's PCI vendor id but not its name (an NVIDIA GPU on a cloud VM
            // reads "vendor 0x10de" with an empty name): that device is ORT's, not the EP's; no id and no name is not
            if (blank(device.hardwareVendor()) && device.hardwareVendorId() == 0) {
                problems.add(device.epName() + ": hardware device with neither a vendor name nor a vendor id");
            }
        }
        if (!problems.isEmpty()) {
            throw Check.fail(String.join("; ", problems));
        }
        return context.devices().stream()
                .map(d -> d.hardwareType() + " " + (blank(d.hardwareVendor())
                        ? String.format("vendor 0x%04x (no vendor name from ORT's discovery)", d.hardwareVendorId())
                        : d.hardwareVendor()))
                .distinct().toList().toString();
    }

    private static String memoryInfos(KitContext context) {
        List<String> problems = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (EpDevice device : context.devices()) {
            Optional<MemoryInfo.Description> defaultMemory = device.memoryInfo(DeviceMemoryType.DEFAULT).map(MemoryInfo::describe);
            Optional<MemoryInfo.Description> hostAccessible = device.memoryInfo(DeviceMemoryType.HOST_ACCESSIBLE)
                    .map(MemoryInfo::describe);
            defaultMemory.ifPresent(d -> seen.add("DEFAULT " + d.deviceType()));
            hostAccessible.ifPresent(d -> seen.add("HOST_ACCESSIBLE " + d.deviceType()));
            boolean accelerator = !device.hardwareType().equals("CPU");
            if (accelerator && defaultMemory.isEmpty()) {
                problems.add(device.epName() + " on a " + device.hardwareType() + " registers no DEFAULT memory info:"
                        + " ORT will hand it host memory and copy nothing to the device");
            }
            defaultMemory.ifPresent(d -> {
                MemoryDeviceType expected = switch (device.hardwareType()) {
                    case "GPU" -> MemoryDeviceType.GPU;
                    case "NPU" -> MemoryDeviceType.NPU;
                    default -> MemoryDeviceType.CPU;
                };
                if (d.deviceType() != expected && !(expected == MemoryDeviceType.CPU && d.deviceType() == MemoryDeviceType.FPGA)) {
                    problems.add(device.epName() + ": DEFAULT memory on " + d.deviceType() + " for a " + device.hardwareType()
                            + " device");
                }
            });
            hostAccessible.ifPresent(d -> {
                if (!d.hostAccessible()) {
                    problems.add(device.epName() + ": HOST_ACCESSIBLE memory info " + d + " is not host-accessible");
                }
            });
        }
        if (!problems.isEmpty()) {
            throw Check.fail(String.join("; ", problems));
        }
        return seen.isEmpty() ? "no memory infos (host memory through ORT's CPU allocator)" : String.join(", ", seen);
    }

    private static String createsEp(KitContext context) {
        try (Session session = context.session(KitContext.addModel(), true)) {
            Map<String, TensorData> out = session.run(Map.of("a", TensorData.ofFloats(new long[] {3}, 1, 2, 3),
                    "b", TensorData.ofFloats(new long[] {3}, 10, 20, 30)));
            float[] y = out.get("y").floats();
            if (y[0] != 11 || y[1] != 22 || y[2] != 33) {
                throw Check.fail("Add([1,2,3], [10,20,30]) gave " + java.util.Arrays.toString(y));
            }
            return "session created and ran";
        }
    }

    private static String ortInvariants(KitContext context) {
        List<String> problems = new ArrayList<>();
        List<EpDevice> devices = context.devices();
        EpDevice first = devices.getFirst();
        for (EpDevice device : devices) {
            // CheckTypeIsNonEmptyAndStable: ORT keys kernel registries and node assignment on the EP's name
            if (blank(device.epName()) || !device.epName().equals(first.epName())
                    || !device.epVendor().equals(first.epVendor())) {
                problems.add("EP device " + device + " names " + device.epName() + "/" + device.epVendor() + ", the first "
                        + first.epName() + "/" + first.epVendor());
            }
            // CheckPreferredAllocatorInfoIsConsistent: the memory infos key allocator lookup
            for (DeviceMemoryType type : DeviceMemoryType.values()) {
                device.memoryInfo(type).ifPresent(info -> {
                    if (blank(info.name())) {
                        problems.add(device.epName() + ": the " + type + " memory info has an empty name");
                    }
                    if (info.allocatorType() == dev.javaep.host.AllocatorType.INVALID) {
                        problems.add(device.epName() + ": the " + type + " memory info " + info.name()
                                + " has allocator type OrtInvalidAllocator");
                    }
                });
            }
        }
        if (!problems.isEmpty()) {
            throw Check.fail(String.join("; ", problems));
        }
        return devices.size() + " device(s) of " + first.epName() + ", one name and vendor; memory infos named, valid"
                + " allocator types";
    }

    static boolean blank(String s) {
        return s == null || s.isBlank();
    }
}
