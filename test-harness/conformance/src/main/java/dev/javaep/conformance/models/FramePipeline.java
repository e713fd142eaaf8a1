package dev.javaep.conformance.models;

import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.harness.onnx.OnnxTensorData;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * What a video app runs on every frame, as one ONNX model: an RGBA NHWC uint8 frame in, the alpha channel sliced
 * off, transposed to NCHW, normalised to [0, 1], a network (a 2x sub-pixel convolution upscaler: ESPCN's output
 * stage, Conv 3x3 to 3·2·2 channels then DepthToSpace, with bilinear weights so the result looks like the input,
 * larger), clipped, quantised back to uint8 (Round, Cast), transposed to NHWC, and the alpha channel, upscaled by
 * replication (Concat + DepthToSpace: pure data movement on uint8), re-attached. Input "frame" [1, H, W, 4] uint8,
 * output "upscaled" [1, 2H, 2W, 4] uint8. Height and width are symbolic: one model serves any frame size.
 */
public final class FramePipeline {
    public static final int SCALE = 2;

    private FramePipeline() {}

    public static byte[] model() {
        return writer().toByteArray();
    }

    static OnnxModelWriter writer() {
        return new OnnxModelWriter("javaep_frame_pipeline")
                .opset(17)
                .input("frame", ElementType.UINT8, Dim.of(1), Dim.param("height"), Dim.param("width"), Dim.of(4))
                .output("upscaled", ElementType.UINT8, Dim.of(1), Dim.param("height2"), Dim.param("width2"), Dim.of(4))
                .initializer(longs("rgb_start", 0)).initializer(longs("rgb_end", 3))
                .initializer(longs("alpha_start", 3)).initializer(longs("alpha_end", 4))
                .initializer(longs("channel_axis", 3))
                .initializer("inv255", new float[] {1f / 255f}, 1)
                .initializer("full_scale", new float[] {255f}, 1)
                .initializer("zero", new float[] {0f}, new long[0])
                .initializer("one", new float[] {1f}, new long[0])
                .initializer("upscaler_w", bilinearSubPixelWeights(), 3 * SCALE * SCALE, 3, 3, 3)
                .initializer("upscaler_b", new float[3 * SCALE * SCALE], 3 * SCALE * SCALE)
                // frame → RGB in [0, 1], NCHW
                .node("Slice", List.of("frame", "rgb_start", "rgb_end", "channel_axis"), List.of("rgb_u8"))
                .node("Cast", List.of("rgb_u8"), List.of("rgb_f"), new Attribute.IntValue("to", ElementType.FLOAT.onnxValue()))
                .node("Transpose", List.of("rgb_f"), List.of("rgb_nchw"), perm(0, 3, 1, 2))
                .node("Mul", List.of("rgb_nchw", "inv255"), List.of("x"))
                // the network
                .node("Conv", List.of("x", "upscaler_w", "upscaler_b"), List.of("phases"),
                        new Attribute.IntList("pads", List.of(1L, 1L, 1L, 1L)))
                .node("DepthToSpace", List.of("phases"), List.of("y"), new Attribute.IntValue("blocksize", SCALE),
                        new Attribute.StringValue("mode", "CRD"))
                // back to uint8 NHWC
                .node("Clip", List.of("y", "zero", "one"), List.of("y_clipped"))
                .node("Mul", List.of("y_clipped", "full_scale"), List.of("y_255"))
                .node("Round", List.of("y_255"), List.of("y_rounded"))
                .node("Cast", List.of("y_rounded"), List.of("y_u8"), new Attribute.IntValue("to", ElementType.UINT8.onnxValue()))
                .node("Transpose", List.of("y_u8"), List.of("rgb_out"), perm(0, 2, 3, 1))
                // alpha: replicated to each sub-pixel, re-attached
                .node("Slice", List.of("frame", "alpha_start", "alpha_end", "channel_axis"), List.of("alpha"))
                .node("Transpose", List.of("alpha"), List.of("alpha_nchw"), perm(0, 3, 1, 2))
                .node("Concat", List.of("alpha_nchw", "alpha_nchw", "alpha_nchw", "alpha_nchw"), List.of("alpha_phases"),
                        new Attribute.IntValue("axis", 1))
                .node("DepthToSpace", List.of("alpha_phases"), List.of("alpha_up"), new Attribute.IntValue("blocksize", SCALE),
                        new Attribute.StringValue("mode", "CRD"))
                .node("Transpose", List.of("alpha_up"), List.of("alpha_out"), perm(0, 2, 3, 1))
                .node("Concat", List.of("rgb_out", "alpha_out"), List.of("upscaled"), new Attribute.IntValue("axis", 3));
    }

    /**
     * Weights [3·4, 3, 3, 3] of the sub-pixel convolution: output channel c·4 + dy·2 + dx (DepthToSpace CRD order)
     * is colour c's sample at sub-pixel (dy, dx), i.e. bilinear interpolation with half-pixel centres (0.75 of the
     * nearest input pixel, 0.25 of its neighbour on the sub-pixel's side, per axis).
     */
    static float[] bilinearSubPixelWeights() {
        float[][] taps = {{0.25f, 0.75f, 0f}, {0f, 0.75f, 0.25f}};
        float[] w = new float[3 * SCALE * SCALE * 3 * 3 * 3];
        for (int c = 0; c < 3; c++) {
            for (int dy = 0; dy < SCALE; dy++) {
                for (int dx = 0; dx < SCALE; dx++) {
                    int out = c * SCALE * SCALE + dy * SCALE + dx;
                    for (int ky = 0; ky < 3; ky++) {
                        for (int kx = 0; kx < 3; kx++) {
                            w[((out * 3 + c) * 3 + ky) * 3 + kx] = taps[dy][ky] * taps[dx][kx];
                        }
                    }
                }
            }
        }
        return w;
    }

    /**
     * A test frame: colour gradients, rings and a checkerboard (edges an upscaler must keep), alpha falling off
     * towards the right. RGBA, row-major, 4 bytes a pixel.
     */
    public static byte[] testFrame(int height, int width) {
        byte[] rgba = new byte[height * width * 4];
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                double cx = x - width * 0.62;
                double cy = y - height * 0.5;
                double ring = 0.5 + 0.5 * Math.cos(Math.sqrt(cx * cx + cy * cy) * 0.35);
                boolean check = ((x / 12) + (y / 12)) % 2 == 0 && x < width / 3;
                int r = check ? 240 : (int) (255.0 * x / width);
                int g = check ? 240 : (int) (255 * ring);
                int b = check ? 30 : (int) (255.0 * y / height);
                int i = (y * width + x) * 4;
                rgba[i] = (byte) r;
                rgba[i + 1] = (byte) g;
                rgba[i + 2] = (byte) b;
                rgba[i + 3] = (byte) (255 - 127 * x / width);
            }
        }
        return rgba;
    }

    private static Attribute perm(long... axes) {
        return new Attribute.IntList("perm", java.util.Arrays.stream(axes).boxed().toList());
    }

    private static OnnxTensorData longs(String name, long... values) {
        ByteBuffer data = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) {
            data.putLong(v);
        }
        return new OnnxTensorData(name, ElementType.INT64, new long[] {values.length}, data.array());
    }
}
