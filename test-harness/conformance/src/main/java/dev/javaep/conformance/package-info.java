/**
 * The conformance kit ({@code javaep-conformance}): checks any plugin EP library, javaep's or not, through the host
 * binding. {@link dev.javaep.conformance.NodeTestRunner} runs ONNX node tests (a model and its test data sets) on one
 * EP with ORT's CPU fallback disabled, each {@code PASSED}, {@code FAILED} or {@code NOT_SUPPORTED}
 * ({@link dev.javaep.conformance.NodeTestResult}); {@link dev.javaep.conformance.OpNodeTests} groups the single-op tests by
 * op and tabulates them against ORT's CPU EP; {@link dev.javaep.conformance.ModelComparison} runs a model on an EP and on ORT's CPU EP with the same random
 * inputs and compares the outputs. {@code dev.javaep.conformance.models} holds the built-in models (the demo's MLP,
 * the benchmarks' models). {@code bin/javaep node-tests}, {@code op-table} and {@code compare} are the command-line way in. The whole kit (check
 * groups in child JVMs, reports, {@code bin/javaep conformance}) is {@code dev.javaep.conformance.kit}.
 */
package dev.javaep.conformance;
