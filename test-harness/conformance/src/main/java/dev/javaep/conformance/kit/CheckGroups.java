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
                StreamChecks.group(), ImporterChecks.group(),
                withChecks(CapabilityChecks.group(), PartitionChecks.checks()), CorrectnessChecks.group(),
                BadInputChecks.group(), LifecycleChecks.group(), ConcurrencyChecks.group());
    }

    /** {@code group} with {@code more} checks after its own (checks of one group that live in another class). */
    private static CheckGroup withChecks(CheckGroup group, List<Check> more) {
        List<Check> checks = new java.util.ArrayList<>(group.checks());
        checks.addAll(more);
        return new CheckGroup(group.name(), group.description(), checks);
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
