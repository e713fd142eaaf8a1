package dev.javaep.conformance.kit;

import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;

/**
 * The kit as JUnit 5 dynamic tests: a container per group, a test per check (a fail, crash or timeout fails the
 * test; a skip aborts it). Each group's child JVM runs when JUnit reaches the group.
 *
 * <pre>{@code
 * @TestFactory
 * Stream<DynamicNode> conformance() {
 *     return ConformanceTests.of(KitOptions.of(Path.of("build/libvendor_ep.so")).withEp("VendorEP"));
 * }
 * }</pre>
 * Needs {@code org.junit.jupiter:junit-jupiter-api} on the test class path (the kit's dependency on it is optional).
 */
public final class ConformanceTests {
    private ConformanceTests() {}

    public static Stream<DynamicNode> of(KitOptions options) {
        return CheckGroups.all().stream().filter(g -> options.runs(g.name())).map(group -> DynamicContainer.dynamicContainer(
                group.name(), Stream.of(group).flatMap(g -> ConformanceKit.runGroup(g, options, r -> {}).results().stream())
                        .map(ConformanceTests::test)));
    }

    private static DynamicNode test(CheckResult result) {
        return DynamicTest.dynamicTest(result.id() + ": " + result.description(), () -> {
            switch (result.verdict()) {
                case PASS -> { }
                case SKIP -> Assumptions.abort(result.reason());
                case FAIL, CRASH, TIMEOUT -> Assertions.fail(result.verdict() + ": " + result.reason());
            }
        });
    }
}
