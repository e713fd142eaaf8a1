package dev.javaep.conformance.kit;

import dev.javaep.validation.ReportFile;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

/**
 * The child JVM's main: runs one group's checks in this process and reports each on stdout ({@link Protocol}).
 * Arguments: {@code GROUP} then the {@link KitOptions} arguments. Also usable in-process through {@link #runGroup}.
 */
public final class GroupProcess {
    private GroupProcess() {}

    public static void main(String[] args) {
        CheckGroup group = CheckGroups.named(args[0])
                .orElseThrow(() -> new IllegalArgumentException("unknown group " + args[0]));
        KitOptions options = KitOptions.parse(List.of(args).subList(1, args.length));
        PrintStream out = System.out;
        runGroup(group, options, line -> {
            out.println(line);
            out.flush();
        });
        // ORT's and the EP's threads must not keep a finished child alive.
        System.exit(0);
    }

    /** Runs {@code group}'s checks here, writing protocol lines to {@code sink}. */
    static void runGroup(CheckGroup group, KitOptions options, java.util.function.Consumer<String> sink) {
        String reports = System.getProperty(ReportFile.PROPERTY);
        Path layerReports = reports == null ? null : Path.of(reports);
        try (KitContext context = new KitContext(options)) {
            sink.accept(Protocol.info("ort-version", dev.javaep.host.OrtHost.shared().version()));
            for (Check check : group.checks()) {
                sink.accept(Protocol.running(check.id()));
                if (layerReports != null) {
                    ReportFile.mark(layerReports, check.id()); // the layer's findings from here on are this check's
                }
                long start = System.nanoTime();
                Verdict verdict;
                String reason;
                try {
                    reason = check.body().run(context);
                    verdict = Verdict.PASS;
                } catch (Check.Skipped e) {
                    verdict = Verdict.SKIP;
                    reason = e.getMessage();
                } catch (Check.Failed e) {
                    verdict = Verdict.FAIL;
                    reason = e.getMessage();
                } catch (KitContext.DeviceOutOfRange e) {
                    verdict = Verdict.SKIP; // not the EP's fault: the parent ends the run with a usage error
                    reason = e.getMessage();
                    sink.accept(Protocol.info(KitContext.USAGE_ERROR, e.getMessage()));
                } catch (Exception | Error e) {
                    verdict = Verdict.FAIL;
                    reason = "threw " + e;
                }
                long millis = (System.nanoTime() - start) / 1_000_000;
                sink.accept(Protocol.result(new CheckResult(group.name(), check.id(), check.description(), verdict,
                        reason == null ? "" : reason, millis)));
                context.opTable().forEach(row -> sink.accept(Protocol.opTable(row)));
                context.opTable().clear();
            }
            if (layerReports != null) {
                ReportFile.mark(layerReports, LayerFindings.AFTER_THE_CHECKS); // what the unregistration provokes
            }
        }
    }
}
