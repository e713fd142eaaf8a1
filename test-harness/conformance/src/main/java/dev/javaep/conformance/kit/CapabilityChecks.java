package dev.javaep.conformance.kit;

import dev.javaep.host.SessionOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * GetCapability (and Compile) over the node-test corpus. With ORT's CPU fallback on, a session must be created for
 * every model ORT's CPU EP loads: whatever the EP declines, ORT runs. A GetCapability that fails, or a claim the EP
 * then cannot compile, fails the session, and this check.
 */
final class CapabilityChecks {
    private CapabilityChecks() {}

    static CheckGroup group() {
        return new CheckGroup("getcapability", "GetCapability and Compile over the node-test corpus", List.of(
                new Check("getcapability.fallback-on",
                        "every corpus model ORT's CPU EP loads also loads with the EP first and CPU fallback on,"
                                + " and ORT logs no failed GetCapability",
                        CapabilityChecks::fallbackOn),
                new Check("getcapability.coverage",
                        "how many corpus models the EP takes whole (CPU fallback off); a status, never a crash",
                        CapabilityChecks::coverage)));
    }

    private static String fallbackOn(KitContext context) {
        List<Path> tests = context.requireNodeTests();
        List<String> failures = new ArrayList<>();
        int loaded = 0;
        for (Path test : tests) {
            Path model = test.resolve("model.onnx");
            try (SessionOptions plain = context.env().createSessionOptions()) {
                context.env().createSession(model, plain).close();
                loaded++;
            } catch (RuntimeException e) {
                continue; // ORT's CPU EP cannot load it either: not the EP's business
            }
            long logMark = context.ortLogSize();
            try (SessionOptions withEp = context.sessionOptions(true)) {
                context.env().createSession(model, withEp).close();
                // created: every node went to the EP or to ORT's CPU EP. ORT (1.23 to 1.29 at least) logs a failed
                // OrtEp::GetCapability and goes on without the EP, so the log is where that failure shows.
                List<String> logged = context.ortLogSince(logMark, "GetCapability() for " + context.epName());
                if (!logged.isEmpty()) {
                    String line = logged.getFirst();
                    int at = line.indexOf("OrtEp::GetCapability()");
                    failures.add(test.getFileName() + ": ORT logged " + firstLine(at < 0 ? line : line.substring(at)));
                }
            } catch (RuntimeException e) {
                failures.add(test.getFileName() + ": " + firstLine(e.getMessage()));
            }
        }
        if (!failures.isEmpty()) {
            throw Check.fail(failures.size() + " of " + loaded + " models fail with the EP first: "
                    + String.join("; ", failures.subList(0, Math.min(5, failures.size())))
                    + (failures.size() > 5 ? "; ..." : ""));
        }
        return loaded + " models load with the EP first";
    }

    private static String coverage(KitContext context) {
        List<Path> tests = context.requireNodeTests();
        int whole = 0;
        for (Path test : tests) {
            try (SessionOptions epOnly = context.sessionOptions(false)) {
                context.env().createSession(test.resolve("model.onnx"), epOnly).close();
                whole++;
            } catch (RuntimeException e) {
                // declined (or partly declined): a status, as it should be
            }
        }
        return context.epName() + " takes " + whole + " of " + tests.size() + " models whole";
    }

    static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int newline = message.indexOf('\n');
        String line = newline < 0 ? message : message.substring(0, newline);
        return line.length() > 300 ? line.substring(0, 297) + "..." : line;
    }
}
