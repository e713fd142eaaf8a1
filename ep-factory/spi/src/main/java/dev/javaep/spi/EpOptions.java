package dev.javaep.spi;

import java.util.Locale;
import java.util.Map;

/**
 * An EP's options among a session's config entries. ORT hands the options an app gave for an EP
 * ({@code SessionOptionsAppendExecutionProvider_V2}) to {@link ExecutionProviderFactory#createExecutionProvider} as
 * entries {@code ep.<EP name>.<key>}, the name in whatever case the app wrote it; these read one such option, the
 * whole entry name compared in any case, and refuse a value they cannot read with an {@link IllegalArgumentException}
 * that names the EP, the option and what it takes (ORT turns it into ORT_INVALID_ARGUMENT at session creation).
 */
public final class EpOptions {
    private EpOptions() {}

    /** The value of {@code epName}'s option {@code key} as the app wrote it, or null when the session does not set it. */
    public static String value(Map<String, String> sessionOptions, String epName, String key) {
        String entry = ("ep." + epName + "." + key).toLowerCase(Locale.ROOT);
        for (Map.Entry<String, String> option : sessionOptions.entrySet()) {
            if (option.getKey().toLowerCase(Locale.ROOT).equals(entry)) {
                return option.getValue();
            }
        }
        return null;
    }

    /** An on/off option: {@code 1} or {@code true} is on, {@code 0} or {@code false} off (any case, blanks around). */
    public static boolean flag(Map<String, String> sessionOptions, String epName, String key, boolean absent) {
        String value = value(sessionOptions, epName, key);
        if (value == null) {
            return absent;
        }
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "1", "true" -> true;
            case "0", "false" -> false;
            default -> throw refused(epName, key, "0 or 1", value);
        };
    }

    /** A whole-number option of at least {@code minimum} (blanks around allowed); {@code absent} when unset. */
    public static int wholeNumber(Map<String, String> sessionOptions, String epName, String key, int minimum, int absent) {
        String value = value(sessionOptions, epName, key);
        if (value == null) {
            return absent;
        }
        try {
            int number = Integer.parseInt(value.strip());
            if (number >= minimum) {
                return number;
            }
        } catch (NumberFormatException e) {
            // refused below, as a number below the minimum is
        }
        throw refused(epName, key, "a whole number >= " + minimum, value);
    }

    private static IllegalArgumentException refused(String epName, String key, String takes, String value) {
        return new IllegalArgumentException("javaep: " + epName + " option " + key + " must be " + takes + ", not '"
                + value + "'");
    }
}
