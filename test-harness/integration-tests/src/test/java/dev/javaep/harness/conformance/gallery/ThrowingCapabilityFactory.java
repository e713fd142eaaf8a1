package dev.javaep.harness.conformance.gallery;

import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;

/**
 * Gallery: GetCapability throws, as an EP jar missing a class does ({@link NoClassDefFoundError} from the code that
 * judges a node). javaep's bridge contains an exception per node, but an {@code Error} fails the whole
 * GetCapability call with a status. The kit must flag {@code getcapability.fallback-on}.
 */
public final class ThrowingCapabilityFactory extends GalleryAddFactory {
    @Override
    NodeSupport support(Node node) {
        throw new NoClassDefFoundError("com/example/vendor/OpTable (deliberately missing: conformance gallery)");
    }
}
