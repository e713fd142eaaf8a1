package dev.javaep.harness.conformance.gallery;

/** Gallery: Add is off by one. The kit must flag {@code correctness.node-tests}. */
public final class WrongAddFactory extends GalleryAddFactory {
    public static final String NAME = "JavaGalleryWrongAddExecutionProvider";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    float add(float a, float b) {
        return a + b + 1;
    }
}
