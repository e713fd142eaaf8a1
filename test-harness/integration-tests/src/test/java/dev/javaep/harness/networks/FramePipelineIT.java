package dev.javaep.harness.networks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.conformance.models.FramePipeline;
import dev.javaep.harness.JavaepRegistration;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.TensorData;
import dev.javaep.spi.ElementType;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The frame pipeline (RGBA uint8 frame → network → RGBA uint8 frame twice the size, alpha re-attached) with every
 * node on JavaCpu, at several frame sizes from one model, against ORT's CPU EP; and what the pipeline means: the
 * alpha channel is the input's, replicated, and a flat-colour frame stays flat.
 */
class FramePipelineIT {
    private static final String EP = "JavaCpuExecutionProvider";

    @RegisterExtension
    static final JavaepRegistration JAVAEP = new JavaepRegistration("javaep-frame-pipeline", EP);

    @ParameterizedTest
    @CsvSource({"36, 64", "17, 23", "180, 320"})
    void framePipelineMatchesOrtCpu(int height, int width) {
        byte[] frame = FramePipeline.testFrame(height, width);
        Map<String, TensorData> input = Map.of("frame", new TensorData(ElementType.UINT8, new long[] {1, height, width, 4}, frame));
        byte[] model = FramePipeline.model();
        TensorData ours;
        TensorData reference;
        try (SessionOptions onJava = JAVAEP.env().createSessionOptions().disableCpuEpFallback()
                .appendExecutionProvider(List.of(JAVAEP.device(EP)), Map.of());
             SessionOptions onOrt = JAVAEP.env().createSessionOptions();
             Session java = JAVAEP.env().createSession(model, onJava);
             Session ort = JAVAEP.env().createSession(model, onOrt)) {
            ours = java.run(input).get("upscaled");
            reference = ort.run(input).get("upscaled");
        }
        assertArrayEquals(new long[] {1, 2L * height, 2L * width, 4}, ours.shape());
        // Quantising to uint8 rounds: where the float result sits at a .5 tie, summation order may tip it one step.
        int worst = 0;
        int differing = 0;
        for (int i = 0; i < ours.data().length; i++) {
            int d = Math.abs((ours.data()[i] & 0xff) - (reference.data()[i] & 0xff));
            worst = Math.max(worst, d);
            differing += d == 0 ? 0 : 1;
        }
        assertTrue(worst <= 1, "JavaCpu's frame differs from ORT CPU's by " + worst);
        assertTrue(differing <= ours.data().length / 100, differing + " of " + ours.data().length + " bytes differ by one");
        byte[] out = ours.data();
        for (int y = 0; y < 2 * height; y++) {
            for (int x = 0; x < 2 * width; x++) {
                assertEquals(frame[((y / 2) * width + x / 2) * 4 + 3], out[(y * 2 * width + x) * 4 + 3], "alpha at " + x + "," + y);
            }
        }
    }

    @ParameterizedTest
    @CsvSource({"8, 8"})
    void aFlatFrameStaysFlat(int height, int width) {
        byte[] frame = new byte[height * width * 4];
        for (int i = 0; i < frame.length; i += 4) {
            frame[i] = 10;
            frame[i + 1] = (byte) 200;
            frame[i + 2] = 99;
            frame[i + 3] = (byte) 255;
        }
        try (SessionOptions onJava = JAVAEP.env().createSessionOptions().disableCpuEpFallback()
                .appendExecutionProvider(List.of(JAVAEP.device(EP)), Map.of());
             Session java = JAVAEP.env().createSession(FramePipeline.model(), onJava)) {
            byte[] out = java.run(Map.of("frame", new TensorData(ElementType.UINT8, new long[] {1, height, width, 4}, frame)))
                    .get("upscaled").data();
            // the bilinear taps sum to 1 inside the frame; the border pixels see the zero padding
            for (int y = 1; y < 2 * height - 1; y++) {
                for (int x = 1; x < 2 * width - 1; x++) {
                    int i = (y * 2 * width + x) * 4;
                    assertTrue(out[i] == 10 && (out[i + 1] & 0xff) == 200 && out[i + 2] == 99, "pixel " + x + "," + y);
                }
            }
        }
    }
}
