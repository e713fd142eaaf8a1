package dev.javaep.harness.conformance.gallery;

/** Gallery: Add is off by one. The kit must flag {@code correctness.node-tests}. */
public final class WrongAddFactory extends GalleryAddFactory {
    @Override
    float add(float a, float b) {
        return a + b + 1;
    }
}
