package com.example.iobinding;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import org.junit.jupiter.api.Test;

/** Runs the example on ORT's CPU EP and checks both Runs against the model's function computed here. */
class IoBindingExampleTest {
    /** affine_relu.onnx's initializers, as written into the model (see the example's Javadoc). */
    static final float[][] W = {{1f, 0f, -1f}, {0f, 1f, 0.5f}, {0.5f, 0f, 1f}, {-2f, 1f, 0f}};
    static final float[] B = {0.25f, -0.5f, 0f};

    static float[] expected(float[] x) {
        int batch = x.length / IoBindingExample.IN;
        float[] y = new float[batch * IoBindingExample.OUT];
        for (int r = 0; r < batch; r++) {
            for (int j = 0; j < IoBindingExample.OUT; j++) {
                float sum = B[j];
                for (int k = 0; k < IoBindingExample.IN; k++) {
                    sum += x[r * IoBindingExample.IN + k] * W[k][j];
                }
                y[r * IoBindingExample.OUT + j] = Math.max(0f, sum);
            }
        }
        return y;
    }

    @Test
    void bothRunsComputeTheModelAndOrtsOwnOutputAgrees() {
        float[] first = IoBindingExample.input(1f);
        float[] second = IoBindingExample.input(2f);
        IoBindingExample.Result result = IoBindingExample.run(first, second);
        assertArrayEquals(expected(first), result.firstRun(), 1e-6f, "run 1: y written in place");
        assertArrayEquals(expected(second), result.secondRun(), 1e-6f, "run 2: the input changed in place");
        assertArrayEquals(expected(second), result.allocatedByOrt(), 1e-6f, "run 3: y ORT allocated");
    }
}
