package dev.javaep.cuda;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.driver.FakeCuda;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * A test class's setup over the stand-in libcuda: the fake built once, its lost context cleared, a driver and
 * device 0 opened before the class's tests and closed after them (skipped where gcc is missing).
 */
public abstract class FakeDeviceTest {
    protected static FakeCuda fake;
    protected static CudaDriver driver;
    protected static CudaDevice device;

    @BeforeAll
    static void openFakeDevice() {
        fake = FakeCuda.build();
        fake.loseContext(0);
        driver = fake.driver();
        device = CudaDevice.open(driver, 0);
    }

    @AfterAll
    static void closeFakeDevice() {
        if (device != null) {
            device.close();
            device = null;
        }
    }
}
