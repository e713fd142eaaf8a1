package dev.javaep.harness.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The C gallery's header (src/test/c/gallery/ort_plugin_abi.h, written by tools/gen_slots.py) is up to date with the
 * tables in docs/reference/ it is generated from: every slot it declares has the table's index and signature, and
 * every callback struct it defines has the table's members at the table's offsets (which the C compiler then checks
 * against the struct through the header's {@code _Static_assert}, one per struct). Edit a table without rerunning the generator and
 * this fails.
 */
class CPluginAbiHeaderTest {
    private static final Path ROOT = Path.of("..", "..");
    private static final Path HEADER = Path.of("src", "test", "c", "gallery", "ort_plugin_abi.h");
    private static final Pattern SLOT = Pattern.compile(
            "/\\* (.*) \\*/\\ntypedef (.*); enum \\{ (OrtApi|OrtEpApi)_SLOT_(\\w+) = (\\d+) /\\* since API \\d+ \\*/ };");
    private static final Pattern OFFSET_ASSERT = Pattern.compile("offsetof\\((\\w+), (\\w+)\\) == (\\d+) &&");

    private static Map<String, String[]> slotTable(String file) throws IOException {
        Map<String, String[]> byName = new LinkedHashMap<>();
        for (String line : Files.readAllLines(ROOT.resolve("docs/reference").resolve(file))) {
            String[] row = line.split("\t");
            byName.put(row[1], row);
        }
        return byName;
    }

    /** The table's signature as the header declares it: the name replaced by {@code declarator}, no enum keywords. */
    private static String cDeclaration(String signature, String name, String declarator) {
        Matcher m = Pattern.compile("^(.*?)\\s*\\b" + Pattern.quote(name) + "\\((.*)\\)$").matcher(signature);
        assertTrue(m.matches(), signature);
        return m.group(1).replace("enum ", "") + " (" + declarator + ")(" + (m.group(2).isEmpty() ? "void" : m.group(2).replace("enum ", "")) + ")";
    }

    @Test
    void slotsMatchTheirTables() throws IOException {
        String header = Files.readString(HEADER);
        Map<String, Map<String, String[]>> tables = Map.of("OrtApi", slotTable("ortapi-slots.tsv"),
                "OrtEpApi", slotTable("ortepapi-slots.tsv"));
        Matcher slot = SLOT.matcher(header);
        int slots = 0;
        while (slot.find()) {
            String table = slot.group(3);
            String name = slot.group(4);
            String[] row = tables.get(table).get(name);
            assertTrue(row != null, table + " has no " + name);
            assertEquals(row[0], slot.group(5), table + "." + name + " index");
            assertEquals(row[2], slot.group(1), table + "." + name + " signature");
            assertEquals(cDeclaration(row[2], name, "ORT_API_CALL *" + table + "_" + name + "_fn"), slot.group(2),
                    table + "." + name + " typedef");
            slots++;
        }
        assertTrue(slots >= 20, "the header declares the slots the gallery calls, found " + slots);
        assertFalse(Pattern.compile("_SLOT_\\w+ =").matcher(SLOT.matcher(header).replaceAll("")).find(),
                "every slot index has its signature comment and typedef");
    }

    @Test
    void callbackStructsMatchTheirTable() throws IOException {
        String header = Files.readString(HEADER);
        Map<String, List<String[]>> byStruct = new LinkedHashMap<>();
        for (String line : Files.readAllLines(ROOT.resolve("docs/reference/callback-structs.tsv"))) {
            String[] row = line.split("\t");
            byStruct.computeIfAbsent(row[0], s -> new ArrayList<>()).add(row);
        }
        Map<String, List<String>> asserted = new LinkedHashMap<>();
        Matcher offset = OFFSET_ASSERT.matcher(header);
        while (offset.find()) {
            asserted.computeIfAbsent(offset.group(1), s -> new ArrayList<>()).add(offset.group(2) + "@" + offset.group(3));
        }
        int structs = 0;
        for (var entry : byStruct.entrySet()) {
            String struct = entry.getKey();
            List<String[]> rows = entry.getValue();
            if (!rows.getFirst()[1].equals("8")) {
                assertFalse(asserted.containsKey(struct), struct + " has data fields the table does not list");
                continue;
            }
            List<String> expected = new ArrayList<>();
            for (String[] row : rows) {
                String name = row[3].replaceAll("^.*?\\b(\\w+)\\(.*$", "$1");
                expected.add(name + "@" + row[1]);
                String member = "  /* since API " + row[2] + " */\n  " + cDeclaration(row[3], name, "ORT_API_CALL *" + name) + ";";
                assertTrue(header.contains(member), struct + " declares " + member.strip());
            }
            assertEquals(expected, asserted.get(struct), struct + ": members and offsets in table order");
            long size = Long.parseLong(rows.getLast()[1]) + 8;
            assertTrue(header.contains(" && sizeof(" + struct + ") == " + size + ", \""), struct + " is " + size + " bytes");
            structs++;
        }
        assertEquals(byStruct.size() - 2, structs, "every callback struct but the two external handles is a C struct");
        assertTrue(byStruct.keySet().containsAll(asserted.keySet()), "the header defines no struct the table lacks: " + asserted.keySet());
    }
}
