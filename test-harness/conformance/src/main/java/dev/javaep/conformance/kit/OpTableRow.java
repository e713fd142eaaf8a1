package dev.javaep.conformance.kit;

/**
 * One op's line in the report's per-op table.
 *
 * @param behind the tests ORT's CPU EP passes and the EP does not, each with the EP's reason ({@code <br>}-free text)
 */
public record OpTableRow(String op, int tests, long epPassed, long ortCpuPassed, String behind) {}
