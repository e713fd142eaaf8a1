package dev.javaep.bridge;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A reference count with one owner (the app's handle) and any number of users (imports, tensors):
 * {@code onLastRelease} runs exactly once, when the owner and every user have let go. Releasing the
 * owner twice is ignored, so a double release from an app cannot free anything twice.
 */
final class References {
    private final AtomicInteger count = new AtomicInteger(1);
    private final AtomicBoolean ownerReleased = new AtomicBoolean();
    private final Runnable onLastRelease;

    References(Runnable onLastRelease) {
        this.onLastRelease = onLastRelease;
    }

    /** A new user; fails once everything is released (the object is gone). */
    void retain() {
        int current;
        do {
            current = count.get();
            if (current == 0) {
                throw new IllegalStateException("javaep: the object was already released");
            }
        } while (!count.compareAndSet(current, current + 1));
    }

    /**
     * A new user made by {@code create}, which receives what it wraps; if this is released already or
     * {@code create} fails, {@code onFailure} runs (to close what the caller brought) and nothing is retained.
     */
    <T> T retainFor(Supplier<T> create, Runnable onFailure) {
        try {
            retain();
        } catch (RuntimeException e) {
            onFailure.run();
            throw e;
        }
        try {
            return create.get();
        } catch (RuntimeException | Error e) {
            try {
                onFailure.run();
            } finally {
                release();
            }
            throw e;
        }
    }

    void release() {
        if (count.decrementAndGet() == 0) {
            onLastRelease.run();
        }
    }

    /** The owner lets go; returns false when it already had. */
    boolean releaseOwner() {
        if (!ownerReleased.compareAndSet(false, true)) {
            return false;
        }
        release();
        return true;
    }
}
