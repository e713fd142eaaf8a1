package dev.javaep.harness.kernels;

import dev.javaep.spi.DeviceOffer;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.ExecutionProviderFactory;
import dev.javaep.spi.HardwareDevice;
import dev.javaep.spi.HardwareDeviceType;
import java.util.List;
import java.util.Map;

/**
 * The factory of {@link JavaKernelRegistryTestExecutionProvider}, an EP that runs nodes only through per-op
 * kernels. Listed in the test resources' {@code META-INF/services}, so an ORT host in the test JVM that
 * registers libjavaep sees it beside JavaCpu (the loader joins this JVM and discovers factories on its class
 * path).
 */
public final class JavaKernelRegistryTestFactory implements ExecutionProviderFactory {
    @Override
    public String name() {
        return JavaKernelRegistryTestExecutionProvider.NAME;
    }

    @Override
    public String vendor() {
        return "javaep-tests";
    }

    @Override
    public String version() {
        return "1.0.0";
    }

    @Override
    public List<DeviceOffer> supportedDevices(List<HardwareDevice> devices) {
        return devices.stream().filter(d -> d.type() == HardwareDeviceType.CPU).map(DeviceOffer::of).toList();
    }

    @Override
    public ExecutionProvider createExecutionProvider(List<HardwareDevice> devices, Map<String, String> sessionOptions) {
        return new JavaKernelRegistryTestExecutionProvider();
    }
}
