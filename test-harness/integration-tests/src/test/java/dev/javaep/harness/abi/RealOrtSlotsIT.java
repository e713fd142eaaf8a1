package dev.javaep.harness.abi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.bridge.OrtRuntime;
import dev.javaep.harness.TestRegistrations;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiBase;
import dev.javaep.ort.OrtApiSlot;
import dev.javaep.ort.OrtEpApi;
import dev.javaep.ort.OrtEpApiSlot;
import dev.javaep.ort.OrtFeature;
import org.junit.jupiter.api.Test;

/**
 * Against the real ORT the build names ({@code -Donnxruntime.version}, 1.29.0 unless the version matrix picks
 * another): the negotiated version, and every slot javaep declares up to it is present in the runtime's table
 * (a NULL or missing slot would mean a wrong index or version). The host integration tests then call these
 * slots for real.
 */
class RealOrtSlotsIT {

    /** min(API javaep is compiled for, the runtime's minor): the newest both sides know. */
    private static int expectedApi(String ortVersion) {
        return Math.min(OrtApi.COMPILED_API_VERSION, OrtApiBase.minorVersion(ortVersion));
    }

    @Test
    void runsTheOrtReleaseTheBuildNames() {
        String named = System.getProperty("onnxruntime.version");
        assertNotNull(named, "failsafe passes -Donnxruntime.version to the tests (test-harness/integration-tests/pom.xml)");
        // A stale unpack of another release in ort.native.dir would show here.
        assertEquals(named, OrtHost.shared().version(), "the ORT the tests loaded from " + System.getProperty("ort.native.dir"));
    }

    @Test
    void hostNegotiatesTheNewestApiBothSidesKnow() {
        OrtHost host = OrtHost.shared();
        assertEquals(expectedApi(host.version()), host.api().version(), "ORT " + host.version());
    }

    @Test
    void javaepNegotiatesTheNewestApiBothSidesKnowAndGatesFeaturesOnIt() {
        OrtHost host = OrtHost.shared();
        try (OrtEnvironment env = host.createEnvironment("RealOrtSlotsIT", OrtHost.LogLevel.WARNING)) {
            TestRegistrations.register(env, "javaep-slots", "JavaCpuExecutionProvider");
            try {
                OrtRuntime runtime = OrtRuntime.current();
                assertEquals(host.version(), runtime.ortVersion());
                assertEquals(expectedApi(host.version()), runtime.apiVersion(), "javaep's own negotiation in ORT " + host.version());
                int minor = OrtApiBase.minorVersion(host.version());
                for (OrtFeature feature : OrtFeature.values()) {
                    assertEquals(feature.implemented() && minor >= feature.sinceApi(), runtime.offers(feature),
                            feature + " (since " + feature.sinceRelease() + ") in ORT " + host.version());
                }
            } finally {
                env.unregisterExecutionProviderLibrary("javaep-slots");
            }
        }
    }

    @Test
    void everyDeclaredSlotUpToTheRuntimeVersionIsPresent() {
        OrtApi api = OrtHost.shared().api();
        for (OrtApiSlot slot : OrtApiSlot.values()) {
            if (slot.since() <= api.version()) {
                assertTrue(api.has(slot), "OrtApi::" + slot.name() + " missing in ORT " + OrtHost.shared().version());
            }
        }
        OrtEpApi epApi = new OrtEpApi(api);
        for (OrtEpApiSlot slot : OrtEpApiSlot.values()) {
            if (slot.since() <= api.version()) {
                assertTrue(epApi.has(slot), "OrtEpApi::" + slot.name() + " missing in ORT " + OrtHost.shared().version());
            }
        }
    }

    @Test
    void statusRoundTripsThroughTheRealRuntime() {
        OrtApi api = OrtHost.shared().api();
        var status = api.createStatus(dev.javaep.ort.OrtErrorCode.NOT_IMPLEMENTED, "javaep: probe");
        var exception = api.toException(status);
        assertEquals(dev.javaep.ort.OrtErrorCode.NOT_IMPLEMENTED, exception.code());
        assertEquals("javaep: probe", exception.getMessage());
    }
}
