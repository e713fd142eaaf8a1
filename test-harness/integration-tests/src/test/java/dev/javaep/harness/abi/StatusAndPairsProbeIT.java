package dev.javaep.harness.abi;

import static dev.javaep.harness.abi.Raw.call;
import static dev.javaep.harness.abi.Raw.ok;
import static dev.javaep.harness.abi.Raw.ortApi;
import static dev.javaep.harness.abi.Raw.pointer;
import static dev.javaep.harness.abi.Raw.pointerOut;
import static dev.javaep.harness.abi.Raw.string;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.ort.OrtApiSlot;
import dev.javaep.ort.OrtErrorCode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Probes of statuses, environments and key-value pairs: plain host calls with values the test chose. */
@ExtendWith(ProbeVersionCondition.class)
class StatusAndPairsProbeIT {

    @Test
    @Probes(value = {"OrtApi::CreateStatus", "OrtApi::GetErrorCode", "OrtApi::GetErrorMessage", "OrtApi::ReleaseStatus"},
            rulesOut = "GetErrorCode and GetErrorMessage read each other's field: the code is 9, the message a string;"
                    + " ReleaseStatus (93) between ReleaseEnv and ReleaseMemoryInfo: another type's release would crash or leak the message")
    void aStatusCarriesItsCodeAndMessage() {
        for (OrtErrorCode code : new OrtErrorCode[] {OrtErrorCode.NOT_IMPLEMENTED, OrtErrorCode.INVALID_GRAPH}) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment status = (MemorySegment) call(ortApi(), OrtApiSlot.CreateStatus, code.value(),
                        arena.allocateFrom("probe: " + code));
                assertEquals(code.value(), (int) call(ortApi(), OrtApiSlot.GetErrorCode, status));
                assertEquals("probe: " + code, string((MemorySegment) call(ortApi(), OrtApiSlot.GetErrorMessage, status)));
                call(ortApi(), OrtApiSlot.ReleaseStatus, status);
            }
        }
        String message = Raw.large(64 * 1024);
        Raw.assertReleased("statuses with a 64 KiB message", 1000, message.length(), () -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment status = (MemorySegment) call(ortApi(), OrtApiSlot.CreateStatus, 1, arena.allocateFrom(message));
                call(ortApi(), OrtApiSlot.ReleaseStatus, status);
            }
        });
    }

    @Test
    @Probes(value = {"OrtApi::AddRunConfigEntry", "OrtApi::GetRunConfigEntry"},
            rulesOut = "GetRunConfigEntry answers NULL for a key the options lack and the value added for the key asked"
                    + " (ORT's graph capture reads gpu_graph_id through it); AddRunConfigEntry is not RunOptionsSetRunTag")
    void runConfigEntriesReadBackWhatWasAdded() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment options = pointerOut(arena, ortApi(), OrtApiSlot.CreateRunOptions);
            MemorySegment key = arena.allocateFrom("gpu_graph_id");
            assertNull(string((MemorySegment) call(ortApi(), OrtApiSlot.GetRunConfigEntry, options, key)));
            ok(ortApi(), OrtApiSlot.AddRunConfigEntry, options, key, arena.allocateFrom("3"));
            ok(ortApi(), OrtApiSlot.AddRunConfigEntry, options, arena.allocateFrom("other"), arena.allocateFrom("x"));
            assertEquals("3", string((MemorySegment) call(ortApi(), OrtApiSlot.GetRunConfigEntry, options, key)));
            call(ortApi(), OrtApiSlot.ReleaseRunOptions, options);
        }
    }

    @Test
    @Probes(value = {"OrtApi::CreateEnv", "OrtApi::ReleaseEnv"},
            rulesOut = "CreateEnvWithCustomLogger (4) takes a logging function first: given (level, logid, out) it fails"
                    + " or crashes; ORT's env is one per process, so a second CreateEnv returns the same OrtEnv")
    void createEnvReturnsTheProcessEnvironmentAndReleaseEnvDropsOneReference() {
        try (OrtEnvironment env = OrtHost.shared().createEnvironment("probe-first", OrtHost.LogLevel.ERROR);
             Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            ok(ortApi(), OrtApiSlot.CreateEnv, OrtHost.LogLevel.WARNING.ordinal(), arena.allocateFrom("probe-env"), out);
            assertEquals(env.handle(), pointer(out), "CreateEnv hands out the process's one OrtEnv");
            call(ortApi(), OrtApiSlot.ReleaseEnv, pointer(out));
            // The reference released above was the probe's only: the environment still works.
            MemorySegment count = arena.allocate(JAVA_LONG);
            MemorySegment devices = arena.allocate(ADDRESS);
            ok(ortApi(), OrtApiSlot.GetEpDevices, env.handle(), devices, count);
            assertTrue(count.get(JAVA_LONG, 0) >= 1, "ORT's CPU EP device is always there");
        }
    }

    @Test
    @Probes(value = {"OrtApi::CreateKeyValuePairs", "OrtApi::AddKeyValuePair", "OrtApi::GetKeyValue",
            "OrtApi::GetKeyValuePairs", "OrtApi::ReleaseKeyValuePairs"},
            rulesOut = "RemoveKeyValuePair (299) has AddKeyValuePair's first two parameters: the pairs would stay empty;"
                    + " GetKeyValue returns the value of the key asked for, not the first or the key itself")
    void keyValuePairsKeepWhatWasAdded() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            call(ortApi(), OrtApiSlot.CreateKeyValuePairs, out);
            MemorySegment pairs = pointer(out);
            Map<String, String> added = new LinkedHashMap<>();
            added.put("alpha", "1");
            added.put("beta", "twenty-two");
            added.put("gamma", "");
            for (var entry : added.entrySet()) {
                call(ortApi(), OrtApiSlot.AddKeyValuePair, pairs, arena.allocateFrom(entry.getKey()),
                        arena.allocateFrom(entry.getValue()));
            }
            assertEquals("twenty-two", string((MemorySegment) call(ortApi(), OrtApiSlot.GetKeyValue, pairs, arena.allocateFrom("beta"))));
            assertEquals("1", string((MemorySegment) call(ortApi(), OrtApiSlot.GetKeyValue, pairs, arena.allocateFrom("alpha"))));
            assertNull(string((MemorySegment) call(ortApi(), OrtApiSlot.GetKeyValue, pairs, arena.allocateFrom("delta"))),
                    "an absent key reads as NULL");

            MemorySegment keys = arena.allocate(ADDRESS);
            MemorySegment values = arena.allocate(ADDRESS);
            MemorySegment count = arena.allocate(JAVA_LONG);
            call(ortApi(), OrtApiSlot.GetKeyValuePairs, pairs, keys, values, count);
            long n = count.get(JAVA_LONG, 0);
            Map<String, String> read = new LinkedHashMap<>();
            var keyArray = Raw.pointers(pointer(keys), n);
            var valueArray = Raw.pointers(pointer(values), n);
            for (int i = 0; i < n; i++) {
                read.put(string(keyArray.get(i)), string(valueArray.get(i)));
            }
            assertEquals(added, read);
            call(ortApi(), OrtApiSlot.ReleaseKeyValuePairs, pairs);
        }
        String value = Raw.large(64 * 1024);
        Raw.assertReleased("key-value pairs with a 64 KiB value", 1000, value.length(), () -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment out = arena.allocate(ADDRESS);
                call(ortApi(), OrtApiSlot.CreateKeyValuePairs, out);
                call(ortApi(), OrtApiSlot.AddKeyValuePair, pointer(out), arena.allocateFrom("key"), arena.allocateFrom(value));
                call(ortApi(), OrtApiSlot.ReleaseKeyValuePairs, pointer(out));
            }
        });
    }
}
