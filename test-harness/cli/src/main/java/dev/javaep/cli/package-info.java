/**
 * {@code bin/javaep} ({@code javaep-cli}): {@link dev.javaep.cli.JavaepCli} (demo, devices, node-tests, compare,
 * bench, bench-cuda), its benchmarks in {@code dev.javaep.cli.bench} (the only package allowed to measure the bridge
 * and JavaCuda from inside), and the assembly of the distribution folder in {@code dev.javaep.cli.dist} (run by the
 * build: {@code javaep.properties} and {@code bin/javaep}, the jlinked {@code runtime/}, the printed size).
 */
package dev.javaep.cli;
