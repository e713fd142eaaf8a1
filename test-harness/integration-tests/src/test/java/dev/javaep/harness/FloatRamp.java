package dev.javaep.harness;

/** Test data whose every element differs from its neighbours, so a copy that drops, repeats or shifts one shows. */
public final class FloatRamp {
    private FloatRamp() {}

    /** {@code count} floats: start, start + step, start + 2·step, … */
    public static float[] of(int count, float start, float step) {
        float[] values = new float[count];
        for (int i = 0; i < count; i++) {
            values[i] = start + i * step;
        }
        return values;
    }
}
