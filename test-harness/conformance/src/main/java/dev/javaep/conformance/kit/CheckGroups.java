package dev.javaep.conformance.kit;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Every group of the kit, in the order a run takes them. */
public final class CheckGroups {
    private CheckGroups() {}

    public static List<CheckGroup> all() {
        return List.of(RegistrationChecks.group(), AllocatorChecks.group(), DataTransferChecks.group(),
                CapabilityChecks.group(), CorrectnessChecks.group(), BadInputChecks.group(), LifecycleChecks.group(),
                ConcurrencyChecks.group());
    }

    public static Set<String> names() {
        Set<String> names = new LinkedHashSet<>();
        all().forEach(g -> names.add(g.name()));
        return names;
    }

    public static Optional<CheckGroup> named(String name) {
        return all().stream().filter(g -> g.name().equals(name)).findFirst();
    }
}
