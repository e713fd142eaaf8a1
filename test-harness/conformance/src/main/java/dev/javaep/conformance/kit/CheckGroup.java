package dev.javaep.conformance.kit;

import java.util.List;

/** A group of checks; the kit runs each group in its own child JVM. */
public record CheckGroup(String name, String description, List<Check> checks) {
    public CheckGroup {
        checks = List.copyOf(checks);
        for (Check check : checks) {
            if (!check.group().equals(name)) {
                throw new IllegalArgumentException("check " + check.id() + " is not in group " + name);
            }
        }
    }
}
