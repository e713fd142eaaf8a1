package dev.javaep.cuda.kernel;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/** System properties set for the length of one call (those read when a group compiles), then put back as they were. */
final class SystemProperties {
    private SystemProperties() {}

    /** {@code action} with {@code properties} set (a null value clears one); each restored after, whatever happens. */
    static <T> T with(Map<String, String> properties, Supplier<T> action) {
        Map<String, String> previous = new LinkedHashMap<>();
        properties.forEach((key, value) -> previous.put(key, value == null ? System.clearProperty(key)
                : System.setProperty(key, value)));
        try {
            return action.get();
        } finally {
            previous.forEach(SystemProperties::restore);
        }
    }

    private static void restore(String key, String previousValue) {
        if (previousValue != null) {
            System.setProperty(key, previousValue);
            return;
        }
        System.clearProperty(key);
    }

    /** As {@link #with(Map, Supplier)} for an action that returns nothing. */
    static void with(Map<String, String> properties, Runnable action) {
        with(properties, () -> {
            action.run();
            return null;
        });
    }
}
