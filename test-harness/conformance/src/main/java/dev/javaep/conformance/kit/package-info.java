/**
 * The EP conformance kit: checks any plugin EP library (javaep's or not) in a real ONNX Runtime, group by group
 * ({@link dev.javaep.conformance.kit.CheckGroups}: registration, allocators, data-transfer, getcapability,
 * correctness, bad-input, lifecycle, concurrency), each group in a child JVM with a time limit so a crash is reported
 * against the check that was running. {@link dev.javaep.conformance.kit.ConformanceKit} runs it,
 * {@link dev.javaep.conformance.kit.ReportWriter} writes JUnit XML, Markdown and HTML,
 * {@link dev.javaep.conformance.kit.ConformanceTests} makes JUnit 5 dynamic tests of it; {@code bin/javaep conformance}
 * is the command line. See docs/conformance.md.
 */
package dev.javaep.conformance.kit;
