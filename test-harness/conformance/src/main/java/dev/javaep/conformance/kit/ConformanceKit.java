package dev.javaep.conformance.kit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Runs the conformance kit: each group in a child JVM of its own (this JVM's {@code java} and class path), with a
 * time limit. A child that dies or overruns is reported against the check it was running ({@code crash} /
 * {@code timeout}); the group's later checks are skipped and the run goes on with the next group.
 *
 * <pre>{@code
 * KitReport report = ConformanceKit.run(KitOptions.of(Path.of("libvendor_ep.so")).withEp("VendorEP"), System.out::println);
 * ReportWriter.writeAll(report);   // junit.xml, report.md, report.html in options.reportDir()
 * }</pre>
 *
 * The child's class path is {@code -Djavaep.conformance.classpath}, else this JVM's {@code java.class.path}; it
 * inherits this JVM's {@code javaep.*}, {@code ort.*} and {@code onnxruntime.*} system properties.
 */
public final class ConformanceKit {
    /** Overrides the class path of the child JVMs. */
    public static final String CLASSPATH_PROPERTY = "javaep.conformance.classpath";

    private ConformanceKit() {}

    public static KitReport run(KitOptions options, Consumer<CheckResult> progress) {
        long start = System.nanoTime();
        try {
            Files.createDirectories(options.reportDir());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + options.reportDir(), e);
        }
        List<CheckResult> results = new ArrayList<>();
        List<OpTableRow> opTable = new ArrayList<>();
        Map<String, String> facts = new LinkedHashMap<>();
        facts.put("library", options.library().toAbsolutePath().toString());
        facts.put("ep", options.epName() == null ? "(the library's first EP)" : options.epName());
        if (options.validateThrough() != null) {
            facts.put("validation", "behind the validation layer (" + options.validateThrough().toAbsolutePath()
                    + "); its findings per group in <group>.validation");
        }
        for (CheckGroup group : CheckGroups.all()) {
            if (options.runs(group.name())) {
                GroupRun run = runGroup(group, options, progress);
                results.addAll(run.results());
                opTable.addAll(run.opTable());
                facts.putAll(run.facts());
                if (facts.containsKey(KitContext.USAGE_ERROR)) {
                    break; // --device out of range: every other group would say the same
                }
            }
        }
        facts.put("elapsed", String.format("%.1f s", (System.nanoTime() - start) / 1e9));
        return new KitReport(options, results, opTable, facts);
    }

    /** What one child JVM reported. */
    record GroupRun(List<CheckResult> results, List<OpTableRow> opTable, Map<String, String> facts) {}

    static GroupRun runGroup(CheckGroup group, KitOptions options, Consumer<CheckResult> progress) {
        Path log = options.reportDir().toAbsolutePath().resolve(group.name() + ".log");
        try {
            Files.createDirectories(log.getParent());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + log.getParent(), e);
        }
        LayerFindings layer = options.validateThrough() == null ? null : LayerFindings.of(options, group);
        List<String> command = childCommand(group, options, layer);
        Map<String, CheckResult> results = new LinkedHashMap<>();
        List<OpTableRow> opTable = new ArrayList<>();
        Map<String, String> facts = new LinkedHashMap<>();
        List<String> otherOutput = new ArrayList<>();
        String[] running = {null};
        long[] runningSince = {System.nanoTime()};
        Process process;
        try {
            process = new ProcessBuilder(command).redirectError(log.toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a child JVM (" + command.getFirst() + ") for group " + group.name(), e);
        }
        Thread reader = Thread.ofPlatform().daemon().name("conformance-" + group.name()).start(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = lines.readLine()) != null; ) {
                    var parsed = Protocol.parse(line);
                    if (parsed.isEmpty()) {
                        synchronized (otherOutput) {
                            otherOutput.add(line);
                        }
                        continue;
                    }
                    List<String> f = parsed.get().fields();
                    switch (parsed.get().kind()) {
                        case "running" -> {
                            synchronized (running) {
                                running[0] = f.get(0);
                                runningSince[0] = System.nanoTime();
                            }
                        }
                        case "result" -> {
                            Check check = find(group, f.get(0));
                            CheckResult result = new CheckResult(group.name(), check.id(), check.description(),
                                    Verdict.valueOf(f.get(1)), f.get(3), Long.parseLong(f.get(2)));
                            result = layer == null ? result : layer.judge(result);
                            synchronized (running) {
                                results.put(check.id(), result);
                                running[0] = null;
                            }
                            progress.accept(result);
                        }
                        case "optable" -> opTable.add(new OpTableRow(f.get(0), Integer.parseInt(f.get(1)),
                                Long.parseLong(f.get(2)), Long.parseLong(f.get(3)), f.get(4)));
                        case "info" -> facts.put(f.get(0), f.get(1));
                        default -> otherOutput.add(line);
                    }
                }
            } catch (IOException e) {
                // the child is gone; its exit code says how
            }
        });
        boolean finished;
        try {
            finished = process.waitFor(options.timeoutSeconds(), TimeUnit.SECONDS);
            if (!finished) {
                process.destroyForcibly().waitFor();
            }
            reader.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while group " + group.name() + " ran", e);
        }
        int exit = process.exitValue();
        appendOtherOutput(log, otherOutput);
        List<CheckResult> ordered = new ArrayList<>();
        String culprit;
        synchronized (running) {
            culprit = running[0];
        }
        String abandoned = null;
        for (Check check : group.checks()) {
            CheckResult result = results.get(check.id());
            if (result != null) {
                ordered.add(result);
                continue;
            }
            if (abandoned == null) {
                long millis = (System.nanoTime() - runningSince[0]) / 1_000_000;
                String at = check.id().equals(culprit) ? "" : " (before it started; the child was in " + culprit + ")";
                Verdict verdict = finished ? Verdict.CRASH : Verdict.TIMEOUT;
                String reason = finished
                        ? "the child JVM died while running " + check.id() + at + ": " + describeExit(exit)
                                + (layer == null ? "" : layer.crashedIn()) + crashDetail(log)
                        : "no result within " + options.timeoutSeconds() + " s; the child JVM was killed" + at;
                CheckResult failure = new CheckResult(group.name(), check.id(), check.description(), verdict, reason, millis);
                failure = layer == null ? failure : layer.judge(failure);
                ordered.add(failure);
                progress.accept(failure);
                abandoned = check.id();
            } else {
                CheckResult skipped = new CheckResult(group.name(), check.id(), check.description(), Verdict.SKIP,
                        "not run: " + abandoned + " took the group's child JVM down", 0);
                ordered.add(skipped);
                progress.accept(skipped);
            }
        }
        if (abandoned == null && finished && exit != 0 && !ordered.isEmpty()) {
            // every check reported, then the child died: unregistering the library (ReleaseEpFactory, ORT's release
            // of the EP devices) crashed. The group's last check carries it, as it carries the layer's findings then.
            CheckResult last = ordered.getLast();
            CheckResult crashed = new CheckResult(last.group(), last.id(), last.description(), Verdict.CRASH,
                    last.verdict() + " (" + last.reason() + "); then the child JVM died after the group's checks, while"
                            + " unregistering the library: " + describeExit(exit)
                            + (layer == null ? "" : layer.crashedIn()) + crashDetail(log), last.millis());
            ordered.set(ordered.size() - 1, crashed);
            progress.accept(crashed);
        }
        if (layer != null && abandoned == null && !ordered.isEmpty()) {
            ordered.set(ordered.size() - 1, layer.judgeEnd(ordered.getLast()));
        }
        return new GroupRun(ordered, opTable, facts);
    }

    private static Check find(CheckGroup group, String id) {
        return group.checks().stream().filter(c -> c.id().equals(id)).findFirst()
                .orElseThrow(() -> new IllegalStateException("the child reported an unknown check " + id));
    }

    static List<String> childCommand(CheckGroup group, KitOptions options, LayerFindings layer) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classPath = System.getProperty(CLASSPATH_PROPERTY, System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-Xss4m",
                "-XX:ErrorFile=" + options.reportDir().toAbsolutePath().resolve("hs_err_" + group.name() + "_%p.log"),
                "-XX:-CreateCoredumpOnCrash"));
        Map<String, String> properties = new LinkedHashMap<>();
        for (String key : System.getProperties().stringPropertyNames()) {
            if ((key.startsWith("javaep.") || key.startsWith("ort.") || key.startsWith("onnxruntime."))
                    && !key.equals(CLASSPATH_PROPERTY)) {
                properties.put(key, System.getProperty(key));
            }
        }
        properties.putAll(options.childProperties());
        if (layer != null) {
            properties.putAll(layer.childProperties());
        }
        properties.put(KitContext.LOG_PROPERTY, options.reportDir().toAbsolutePath().resolve(group.name() + ".log").toString());
        properties.forEach((k, v) -> command.add("-D" + k + "=" + v));
        command.addAll(List.of("-cp", classPath, GroupProcess.class.getName(), group.name()));
        command.addAll((layer == null ? options : options.throughLayer()).toArgs());
        return command;
    }

    /** An exit code as a person reads it: 128 + N is signal N (the JVM's fatal-error handler aborts: 134). */
    static String describeExit(int exit) {
        if (exit > 128 && exit < 160) {
            int signal = exit - 128;
            String name = switch (signal) {
                case 4 -> "SIGILL";
                case 6 -> "SIGABRT (the JVM's fatal-error handler, or abort())";
                case 7 -> "SIGBUS";
                case 9 -> "SIGKILL";
                case 11 -> "SIGSEGV";
                default -> "signal " + signal;
            };
            return "exit code " + exit + " = " + name;
        }
        return "exit code " + exit;
    }

    /** The fatal-error summary a crashed JVM printed (its problematic frame), or its last stderr line. */
    private static String crashDetail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            List<String> detail = new ArrayList<>();
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (line.startsWith("#") && line.substring(1).strip().startsWith("SIG")) {
                    detail.add(line.substring(1).strip());
                }
                if (line.startsWith("# Problematic frame:") && i + 1 < lines.size()) {
                    detail.add("problematic frame " + lines.get(i + 1).substring(1).strip());
                }
            }
            if (detail.isEmpty()) {
                for (int i = lines.size() - 1; i >= 0; i--) {
                    if (!lines.get(i).isBlank()) {
                        detail.add("last output: " + lines.get(i).strip());
                        break;
                    }
                }
            }
            return detail.isEmpty() ? "" : "; " + String.join("; ", detail);
        } catch (IOException e) {
            return "";
        }
    }

    private static void appendOtherOutput(Path log, List<String> lines) {
        if (lines.isEmpty()) {
            return;
        }
        try {
            Files.write(log, lines, StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND,
                    java.nio.file.StandardOpenOption.CREATE);
        } catch (IOException e) {
            // the log is a convenience; the verdicts are already in hand
        }
    }
}
