package dev.javaep.harness.conformance.gallery;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Gallery: every session (CreateEp) leaves 1 MiB behind in a static list, as a cache keyed by session that is never
 * cleared would. The kit must flag {@code lifecycle.session-cycles}.
 */
public final class LeakingFactory extends GalleryAddFactory {
    private static final List<byte[]> LEAKED = new ArrayList<>();

    @Override
    void onCreate() {
        byte[] perSession = new byte[1 << 20];
        Arrays.fill(perSession, (byte) 1);
        synchronized (LEAKED) {
            LEAKED.add(perSession);
        }
    }
}
