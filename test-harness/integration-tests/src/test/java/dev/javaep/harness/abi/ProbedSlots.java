package dev.javaep.harness.abi;

import dev.javaep.ort.FunctionSlot;
import dev.javaep.ort.OrtApiSlot;
import dev.javaep.ort.OrtEpApiSlot;
import dev.javaep.ort.OrtInteropApiSlot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.FunctionDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;

/** The slots javaep binds, named {@code "Table::Slot"}, and the observer slots probes read results through. */
final class ProbedSlots {
    private ProbedSlots() {}

    /** Every slot javaep binds (the USED lists of tools/gen_slots.py), as "Table::Slot". */
    static List<String> bound() {
        List<String> names = new ArrayList<>();
        for (OrtApiSlot slot : OrtApiSlot.values()) {
            names.add("OrtApi::" + slot.name());
        }
        for (OrtEpApiSlot slot : OrtEpApiSlot.values()) {
            names.add("OrtEpApi::" + slot.name());
        }
        for (OrtInteropApiSlot slot : OrtInteropApiSlot.values()) {
            names.add("OrtInteropApi::" + slot.name());
        }
        return names;
    }

    static FunctionSlot slot(String name) {
        String[] parts = name.split("::");
        if (parts.length != 2) {
            throw new IllegalArgumentException("not Table::Slot: " + name);
        }
        return switch (parts[0]) {
            case "OrtApi" -> OrtApiSlot.valueOf(parts[1]);
            case "OrtEpApi" -> OrtEpApiSlot.valueOf(parts[1]);
            case "OrtInteropApi" -> OrtInteropApiSlot.valueOf(parts[1]);
            default -> throw new IllegalArgumentException("no table " + parts[0] + " in " + name);
        };
    }

    /**
     * A slot javaep does not bind, used by a probe to read back what a bound slot did (e.g.
     * {@code RunOptionsGetRunTag} after {@code RunOptionsSetRunTag}). Its index comes from the transcribed table
     * (docs/reference), which the cross-check in ep-factory compares with the generated declaration.
     */
    record Observer(String name, int index, int since, FunctionDescriptor descriptor) implements FunctionSlot {
        static Observer of(String tsv, String name, int since, FunctionDescriptor descriptor) {
            try {
                for (String line : Files.readAllLines(Path.of("..", "..", "docs", "reference", tsv))) {
                    String[] columns = line.split("\t");
                    if (columns[1].equals(name)) {
                        return new Observer(name, Integer.parseInt(columns[0]), since, descriptor);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            throw new NoSuchElementException(name + " is not in docs/reference/" + tsv);
        }
    }
}
