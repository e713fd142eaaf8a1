package dev.javaep.conformance.kit;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What a conformance run checks and how hard. The command line ({@code javaep conformance}) and the child JVMs
 * share one argument syntax: {@link #parse} reads what {@link #toArgs} writes.
 *
 * @param library the plugin EP library ({@code .so}/{@code .dll}) under test
 * @param epName the EP to check among those the library offers; null: the first it offers
 * @param nodeTests a folder of ONNX node tests (ONNX's {@code backend/test/data/node}); null: the corpus checks skip
 * @param nodeTestFilter the node-test folder names to use (a regex), null for all
 * @param nodeTestLimit at most this many node tests (after the filter, sorted by name)
 * @param models a folder of {@code .onnx} models compared with ORT's CPU EP; null: the built-in models only
 * @param reportDir where the reports and the child JVMs' logs go
 * @param only the groups to run; empty: all
 * @param timeoutSeconds the time limit of one group's child JVM
 * @param registrationCycles register/unregister cycles in {@code lifecycle.register-cycles}
 * @param sessionCycles session create/run/release cycles in {@code lifecycle.session-cycles}
 * @param threads threads in the concurrency checks
 * @param runsPerThread Runs per thread in the concurrency checks
 * @param childProperties system properties for the child JVMs, beyond the {@code javaep.*} and {@code ort.*}
 *     properties of this JVM they inherit (e.g. {@code javaep.factories})
 * @param validateThrough null, or libjavaep: the child JVMs register it with the validation layer in front of
 *     {@code library} ({@code --validate}; docs/conformance.md)
 * @param deviceIndex which of the EP's devices every check uses (0: the first it offers; {@code --device N})
 */
public record KitOptions(Path library, String epName, Path nodeTests, String nodeTestFilter, int nodeTestLimit,
                         Path models, Path reportDir, Set<String> only, int timeoutSeconds, int registrationCycles,
                         int sessionCycles, int threads, int runsPerThread, Map<String, String> childProperties,
                         Path validateThrough, int deviceIndex) {
    public KitOptions {
        only = Set.copyOf(only);
        childProperties = Map.copyOf(childProperties);
        if (nodeTestFilter != null) {
            Pattern.compile(nodeTestFilter);
        }
        if (deviceIndex < 0) {
            throw new IllegalArgumentException("--device needs a device number from 0, got " + deviceIndex);
        }
    }

    /**
     * The defaults for {@code library}: every group, 25 registrations, 1,000 sessions (a full run's: fewer leave the
     * native-memory trend in the warm-up's noise, see docs/conformance.md; CI runs pass fewer), 4 threads × 25 Runs.
     */
    public static KitOptions of(Path library) {
        return new KitOptions(library, null, null, null, 400, null, Path.of("conformance-report"), Set.of(), 300, 25,
                1000, 4, 25, Map.of(), null, 0);
    }

    public KitOptions withEp(String name) {
        return new KitOptions(library, name, nodeTests, nodeTestFilter, nodeTestLimit, models, reportDir, only,
                timeoutSeconds, registrationCycles, sessionCycles, threads, runsPerThread, childProperties, validateThrough, deviceIndex);
    }

    public KitOptions withNodeTests(Path dir, String filter, int limit) {
        return new KitOptions(library, epName, dir, filter, limit, models, reportDir, only, timeoutSeconds,
                registrationCycles, sessionCycles, threads, runsPerThread, childProperties, validateThrough, deviceIndex);
    }

    public KitOptions withReportDir(Path dir) {
        return new KitOptions(library, epName, nodeTests, nodeTestFilter, nodeTestLimit, models, dir, only,
                timeoutSeconds, registrationCycles, sessionCycles, threads, runsPerThread, childProperties, validateThrough, deviceIndex);
    }

    public KitOptions withOnly(Set<String> groups) {
        return new KitOptions(library, epName, nodeTests, nodeTestFilter, nodeTestLimit, models, reportDir, groups,
                timeoutSeconds, registrationCycles, sessionCycles, threads, runsPerThread, childProperties, validateThrough, deviceIndex);
    }

    public KitOptions withTimeout(int seconds) {
        return new KitOptions(library, epName, nodeTests, nodeTestFilter, nodeTestLimit, models, reportDir, only,
                seconds, registrationCycles, sessionCycles, threads, runsPerThread, childProperties, validateThrough, deviceIndex);
    }

    public KitOptions withCycles(int registrations, int sessions) {
        return new KitOptions(library, epName, nodeTests, nodeTestFilter, nodeTestLimit, models, reportDir, only,
                timeoutSeconds, registrations, sessions, threads, runsPerThread, childProperties, validateThrough, deviceIndex);
    }

    public KitOptions withConcurrency(int threadCount, int runs) {
        return new KitOptions(library, epName, nodeTests, nodeTestFilter, nodeTestLimit, models, reportDir, only,
                timeoutSeconds, registrationCycles, sessionCycles, threadCount, runs, childProperties, validateThrough, deviceIndex);
    }

    public KitOptions withChildProperty(String key, String value) {
        Map<String, String> properties = new LinkedHashMap<>(childProperties);
        properties.put(key, value);
        return new KitOptions(library, epName, nodeTests, nodeTestFilter, nodeTestLimit, models, reportDir, only,
                timeoutSeconds, registrationCycles, sessionCycles, threads, runsPerThread, properties, validateThrough, deviceIndex);
    }

    /** The same run with the validation layer (through {@code libjavaep}) in front of the library; null: without. */
    public KitOptions withValidation(Path libjavaep) {
        return new KitOptions(library, epName, nodeTests, nodeTestFilter, nodeTestLimit, models, reportDir, only,
                timeoutSeconds, registrationCycles, sessionCycles, threads, runsPerThread, childProperties, libjavaep, deviceIndex);
    }

    /** What a child JVM runs behind the layer: libjavaep as the library, the vendor's named by a property. */
    KitOptions throughLayer() {
        return new KitOptions(validateThrough, epName, nodeTests, nodeTestFilter, nodeTestLimit, models, reportDir, only,
                timeoutSeconds, registrationCycles, sessionCycles, threads, runsPerThread, childProperties, null, deviceIndex);
    }

    /** The same run on the EP's device {@code index} (0: the first it offers). */
    public KitOptions withDevice(int index) {
        return new KitOptions(library, epName, nodeTests, nodeTestFilter, nodeTestLimit, models, reportDir, only,
                timeoutSeconds, registrationCycles, sessionCycles, threads, runsPerThread, childProperties, validateThrough,
                index);
    }

    public boolean runs(String group) {
        return only.isEmpty() || only.contains(group);
    }

    /** The options as {@code javaep conformance} arguments (the library first). */
    public List<String> toArgs() {
        List<String> args = new ArrayList<>(List.of(library.toString()));
        if (epName != null) {
            args.addAll(List.of("--ep", epName));
        }
        if (deviceIndex != 0) {
            args.addAll(List.of("--device", Integer.toString(deviceIndex)));
        }
        if (nodeTests != null) {
            args.addAll(List.of("--node-tests", nodeTests.toString()));
        }
        if (nodeTestFilter != null) {
            args.addAll(List.of("--node-test-filter", nodeTestFilter));
        }
        args.addAll(List.of("--node-test-limit", Integer.toString(nodeTestLimit)));
        if (models != null) {
            args.addAll(List.of("--models", models.toString()));
        }
        args.addAll(List.of("--report", reportDir.toString()));
        if (validateThrough != null) {
            args.addAll(List.of("--validate-through", validateThrough.toString()));
        }
        if (!only.isEmpty()) {
            args.addAll(List.of("--only", String.join(",", only)));
        }
        args.addAll(List.of("--timeout", Integer.toString(timeoutSeconds), "--registration-cycles",
                Integer.toString(registrationCycles), "--session-cycles", Integer.toString(sessionCycles), "--threads",
                Integer.toString(threads), "--runs", Integer.toString(runsPerThread)));
        return args;
    }

    /**
     * Reads {@code LIBRARY [--ep NAME] [--device N] [--node-tests DIR] [--node-test-filter REGEX] [--node-test-limit N]
     * [--models DIR] [--report DIR] [--only G1,G2] [--timeout S] [--registration-cycles N] [--session-cycles N]
     * [--threads N] [--runs N] [--validate | --validate-through LIBJAVAEP]}; {@code --validate} is the distribution's
     * libjavaep ({@link #defaultLoader}).
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static KitOptions parse(List<String> args) {
        List<String> positional = new ArrayList<>();
        Map<String, String> named = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--validate")) {
                named.put("validate-through", defaultLoader().toString());
            } else if (arg.startsWith("--")) {
                if (i + 1 >= args.size()) {
                    throw new IllegalArgumentException(arg + " needs a value");
                }
                named.put(arg.substring(2), args.get(++i));
            } else {
                positional.add(arg);
            }
        }
        if (positional.size() != 1) {
            throw new IllegalArgumentException("expected one LIBRARY, got " + positional);
        }
        KitOptions options = of(Path.of(positional.getFirst()));
        Path nodeTests = null;
        String filter = null;
        int limit = options.nodeTestLimit();
        Path models = null;
        Set<String> only = new LinkedHashSet<>();
        int registrations = options.registrationCycles();
        int sessions = options.sessionCycles();
        int threads = options.threads();
        int runs = options.runsPerThread();
        for (var entry : named.entrySet()) {
            String value = entry.getValue();
            switch (entry.getKey()) {
                case "ep" -> options = options.withEp(value);
                case "device" -> options = options.withDevice(nonNegative(entry.getKey(), value));
                case "node-tests" -> nodeTests = Path.of(value);
                case "node-test-filter" -> filter = value;
                case "node-test-limit" -> limit = positive(entry.getKey(), value);
                case "models" -> models = Path.of(value);
                case "report" -> options = options.withReportDir(Path.of(value));
                case "validate-through" -> options = options.withValidation(Path.of(value));
                case "only" -> {
                    for (String group : value.split(",")) {
                        if (!group.isBlank()) {
                            only.add(group.strip());
                        }
                    }
                }
                case "timeout" -> options = options.withTimeout(positive(entry.getKey(), value));
                case "registration-cycles" -> registrations = positive(entry.getKey(), value);
                case "session-cycles" -> sessions = positive(entry.getKey(), value);
                case "threads" -> threads = positive(entry.getKey(), value);
                case "runs" -> runs = positive(entry.getKey(), value);
                default -> throw new IllegalArgumentException("unknown option --" + entry.getKey());
            }
        }
        Set<String> known = CheckGroups.names();
        for (String group : only) {
            if (!known.contains(group)) {
                throw new IllegalArgumentException("unknown group " + group + " (groups: " + String.join(", ", known) + ")");
            }
        }
        options = options.withNodeTests(nodeTests, filter, limit).withOnly(only).withCycles(registrations, sessions)
                .withConcurrency(threads, runs);
        return new KitOptions(options.library, options.epName, options.nodeTests, options.nodeTestFilter,
                options.nodeTestLimit, models, options.reportDir, options.only, options.timeoutSeconds,
                options.registrationCycles, options.sessionCycles, options.threads, options.runsPerThread, Map.of(),
                options.validateThrough, options.deviceIndex);
    }

    /** libjavaep in the distribution {@code bin/javaep} runs from ({@code javaep.dist}), for {@code --validate}. */
    static Path defaultLoader() {
        return Path.of(System.getProperty("javaep.dist", "."))
                .resolve(System.getProperty("os.name").startsWith("Windows") ? "javaep.dll" : "libjavaep.so");
    }

    private static int nonNegative(String option, String value) {
        try {
            int n = Integer.parseInt(value);
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException("--" + option + " needs a whole number from 0, got " + value);
    }

    private static int positive(String option, String value) {
        try {
            int n = Integer.parseInt(value);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException("--" + option + " needs a positive whole number, got " + value);
    }
}
