package dev.javaep.harness.faults;

import dev.javaep.spi.DeviceOffer;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.ExecutionProviderFactory;
import dev.javaep.spi.FactoryContext;
import dev.javaep.spi.HardwareDevice;
import java.util.List;
import java.util.Map;

/**
 * A broken third-party factory: every callback throws. Put in a jar on javaep's class path, it must give
 * the host a clear registration error, never a crash. Not listed in META-INF/services of the test classes:
 * the fault tests build a jar for it.
 */
public final class ThrowingFactory implements ExecutionProviderFactory {
    private static RuntimeException boom(String where) {
        return new IllegalStateException("ThrowingFactory." + where + " always throws (fault injection)");
    }

    @Override
    public void initialize(FactoryContext context) {
        throw boom("initialize");
    }

    @Override
    public String name() {
        throw boom("name");
    }

    @Override
    public String vendor() {
        throw boom("vendor");
    }

    @Override
    public String version() {
        throw boom("version");
    }

    @Override
    public List<DeviceOffer> supportedDevices(List<HardwareDevice> devices) {
        throw boom("supportedDevices");
    }

    @Override
    public ExecutionProvider createExecutionProvider(List<HardwareDevice> devices, Map<String, String> sessionOptions) {
        throw boom("createExecutionProvider");
    }
}
