package com.example.minimalep;

import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.HardwareDevice;
import dev.javaep.spi.HostExecutionProviderFactory;
import java.util.List;
import java.util.Map;

/**
 * What ORT sees of this EP: its name, vendor and version. A {@link HostExecutionProviderFactory} works on
 * ORT's ordinary host tensors and is offered on every CPU device ORT found. javaep finds this class through
 * {@code META-INF/services/dev.javaep.spi.ExecutionProviderFactory}.
 */
public final class MinimalExecutionProviderFactory implements HostExecutionProviderFactory {
    /** The name apps select the EP by; it must not collide with ORT's own EPs. */
    public static final String NAME = "MinimalExecutionProvider";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String vendor() {
        return "Example";
    }

    @Override
    public String version() {
        return "0.1.0";
    }

    /** One EP per session that selects this EP. */
    @Override
    public ExecutionProvider createExecutionProvider(List<HardwareDevice> devices, Map<String, String> sessionOptions) {
        return new MinimalExecutionProvider();
    }
}
