package dev.javaep.examples.vulkan;

import java.util.Objects;

/** A point on a timeline: a submission waits until {@code semaphore} reaches {@code value}, or signals it. */
public record SemaphoreValue(TimelineSemaphore semaphore, long value) {
    public SemaphoreValue {
        Objects.requireNonNull(semaphore, "semaphore");
        if (value < 0) {
            throw new IllegalArgumentException("timeline values are unsigned 64-bit; " + value + " is out of range here");
        }
    }
}
