package dev.javaep.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cuda.driver.FakeCuda;
import dev.javaep.spi.FactoryContext;
import dev.javaep.spi.HardwareDevice;
import dev.javaep.spi.HardwareDeviceType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A machine with libcuda but no usable GPU, played by the stand-in libcuda's cuInit: JavaCuda offers no device and its
 * one log line (ORT's log; {@code bin/javaep devices} prints it above the table) names the cause and what to do.
 */
class JavaCudaFactoryNoUsableGpuTest {
    private static final int CUDA_ERROR_NO_DEVICE = 100;
    private static final int CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803;

    private static FakeCuda fake;

    @BeforeAll
    static void fakeDriver() {
        fake = FakeCuda.build();
    }

    @AfterAll
    static void reset() {
        if (fake != null) {
            fake.configure(0, 1);
        }
    }

    /** The factory's log when cuInit answers {@code initResult}, with {@code CUDA_VISIBLE_DEVICES} as given. */
    private static String logLine(int initResult, String visibleDevices) {
        fake.configure(initResult, 1);
        List<String> log = new ArrayList<>();
        try (JavaCudaExecutionProviderFactory factory = new JavaCudaExecutionProviderFactory()) {
            factory.initialize(new FactoryContext("javaep", 29, "1.29.0", (level, message) -> log.add(level + " " + message)),
                    () -> fake.open(visibleDevices), visibleDevices);
            HardwareDevice gpu = new HardwareDevice(HardwareDeviceType.GPU,
                    HardwareDevice.VENDOR_NVIDIA, 0x2335, "NVIDIA", Map.of("pci_bus_id", "0000:00:06.0"), 1L);
            assertEquals(List.of(), factory.supportedDevices(List.of(gpu)), "no EP device without a usable GPU");
            assertTrue(factory.unavailableReason().isPresent());
        } finally {
            fake.configure(0, 1);
        }
        assertEquals(1, log.size(), () -> "one line saying why: " + log);
        System.out.println("[JavaCudaFactoryNoUsableGpuTest] " + log.getFirst());
        assertTrue(log.getFirst().startsWith("WARNING JavaCudaExecutionProvider offers no devices: cuInit failed: "),
                log.getFirst());
        return log.getFirst();
    }

    @Test
    void anEmptyCudaVisibleDevicesIsNamedWithTheFix() {
        String line = logLine(CUDA_ERROR_NO_DEVICE, "");
        assertTrue(line.contains("CUDA_ERROR_NO_DEVICE"), line);
        assertTrue(line.contains("CUDA_VISIBLE_DEVICES is set to '' in this process") && line.contains("unset it"), line);
    }

    @Test
    void noGpuGivenToTheMachineOrContainerNamesGpuAccess() {
        String line = logLine(CUDA_ERROR_NO_DEVICE, null);
        assertTrue(line.contains("nvidia-smi") && line.contains("--gpus all"), line);
        assertTrue(!line.contains("CUDA_VISIBLE_DEVICES"), "unset: not the cause " + line);
    }

    @Test
    void aDriverMismatchSaysToRebootOrReinstall() {
        String line = logLine(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, null);
        assertTrue(line.contains("does not match the loaded kernel module") && line.contains("reboot or reinstall"), line);
    }
}
