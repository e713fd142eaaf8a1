package dev.javaep.spi;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** javaep's own version (SemVer), from the build. */
public final class JavaepVersion {
    private JavaepVersion() {}

    public static final String VERSION = load();

    private static String load() {
        try (InputStream in = JavaepVersion.class.getResourceAsStream("javaep-version.properties")) {
            Properties properties = new Properties();
            if (in != null) {
                properties.load(in);
            }
            return properties.getProperty("version", "0.0.0-unknown");
        } catch (IOException e) {
            return "0.0.0-unknown";
        }
    }
}
