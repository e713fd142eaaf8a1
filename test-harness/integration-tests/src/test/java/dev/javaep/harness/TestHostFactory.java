package dev.javaep.harness;

import dev.javaep.spi.HostExecutionProviderFactory;

/**
 * What the test EPs on the host CPU share: a name, vendor "javaep-tests", version 1.0.0. Subclasses are
 * listed in the test classes' {@code META-INF/services} (see {@link TestRegistrations}).
 */
public abstract class TestHostFactory implements HostExecutionProviderFactory {
    private final String name;

    protected TestHostFactory(String name) {
        this.name = name;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final String vendor() {
        return "javaep-tests";
    }

    @Override
    public final String version() {
        return "1.0.0";
    }
}
