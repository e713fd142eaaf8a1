package dev.javaep.harness.conformance.gallery;

import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import java.lang.foreign.ValueLayout;

/**
 * Gallery: Compute adds into one scratch buffer shared by every Run (a "reuse the buffer" optimisation that forgot
 * threads), pausing between the add and the copy out as a slower kernel would. Serial Runs are right; concurrent Runs
 * read each other's sums. The kit must flag {@code concurrency.shared-session}.
 */
public final class RacyRunFactory extends GalleryAddFactory {
    private static float[] scratch = new float[0];

    @Override
    void compute(KernelContext context) {
        Tensor a = context.input(0);
        Tensor b = context.input(1);
        int n = Math.toIntExact(a.elementCount());
        if (scratch.length < n) {
            scratch = new float[n];
        }
        float[] sums = scratch;
        for (int i = 0; i < n; i++) {
            sums[i] = a.data().getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i) + b.data().getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i);
        }
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Tensor y = context.output(0, a.shape());
        for (int i = 0; i < n; i++) {
            y.data().setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, sums[i]);
        }
    }
}
