package dev.javaep.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.driver.CudaUnavailableException;
import dev.javaep.spi.EpLogger;
import dev.javaep.spi.FactoryContext;
import dev.javaep.spi.HardwareDevice;
import dev.javaep.spi.HardwareDeviceType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Without a driver (CI, laptops) the factory starts, offers nothing, and says why in ORT's log. */
class JavaCudaFactoryWithoutGpuTest {
    @Test
    void offersNoDevicesAndLogsWhy() {
        boolean driverPresent;
        try {
            CudaDriver.load();
            driverPresent = true;
        } catch (CudaUnavailableException e) {
            driverPresent = false;
        }
        assumeTrue(!driverPresent, "a CUDA driver is installed here: the no-GPU path is not what this machine has");

        List<String> log = new ArrayList<>();
        EpLogger logger = (level, message) -> log.add(level + " " + message);
        try (JavaCudaExecutionProviderFactory factory = new JavaCudaExecutionProviderFactory()) {
            factory.initialize(new FactoryContext("javaep", 29, "1.29.0", logger));
            HardwareDevice gpu = new HardwareDevice(HardwareDeviceType.GPU, HardwareDevice.VENDOR_NVIDIA, 0x2335, "NVIDIA",
                    Map.of("pci_bus_id", "0000:00:06.0"), 1L);
            assertEquals(List.of(), factory.supportedDevices(List.of(gpu)), "no devices without a driver");
            assertTrue(factory.dataTransfer().isEmpty());
            assertTrue(factory.unavailableReason().isPresent());
        }
        System.out.println(log);
        assertEquals(1, log.size(), "one line saying why: " + log);
        assertTrue(log.getFirst().startsWith("WARNING JavaCudaExecutionProvider offers no devices: libcuda"), log.getFirst());
    }
}
