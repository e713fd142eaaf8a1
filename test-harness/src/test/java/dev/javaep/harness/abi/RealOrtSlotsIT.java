package dev.javaep.harness.abi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.harness.ort.OrtHost;
import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtEpApi;
import dev.javaep.ort.OrtEpApiSlot;
import dev.javaep.ort.OrtApiSlot;
import org.junit.jupiter.api.Test;

/**
 * Against the real ORT 1.29 from Maven: the negotiated version, and every slot javaep declares is
 * present in the runtime's table (a NULL or missing slot would mean a wrong index or version). The
 * host integration tests then call these slots for real.
 */
class RealOrtSlotsIT {

    @Test
    void negotiatesApi29WithOrt129() {
        OrtHost host = OrtHost.shared();
        assertEquals("1.29.0", host.version());
        assertEquals(29, host.api().version());
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
            assertTrue(epApi.has(slot), "OrtEpApi::" + slot.name());
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
