package dev.javaep.host;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The objects made from an owner (a session's bindings and allocators, an importer's imported handles) that are
 * still open: each tells the owner when it closes ({@link #forget}), and the owner closes the rest, newest first,
 * before releasing itself, so nothing outlives what it was made from. Thread-safe.
 */
final class Dependents {
    private final String owner;
    private final LinkedHashSet<AutoCloseable> open = new LinkedHashSet<>();

    /** @param owner what the owner is called in the error a dependent that cannot close gives ("the session") */
    Dependents(String owner) {
        this.owner = owner;
    }

    synchronized <T extends AutoCloseable> T remember(T dependent) {
        open.add(dependent);
        return dependent;
    }

    synchronized void forget(AutoCloseable dependent) {
        open.remove(dependent);
    }

    /** Stops tracking every dependent, leaving them open. */
    synchronized void clear() {
        open.clear();
    }

    /**
     * Closes the dependents still open, newest first (each forgets itself as it closes).
     *
     * @throws IllegalStateException when one cannot close; those after it in the order stay open
     */
    void closeNewestFirst() {
        List<AutoCloseable> newestFirst;
        synchronized (this) {
            newestFirst = new ArrayList<>(open);
        }
        Collections.reverse(newestFirst);
        for (AutoCloseable dependent : newestFirst) {
            try {
                dependent.close();
            } catch (Exception e) {
                throw new IllegalStateException("javaep: cannot close " + owner + ": " + e.getMessage(), e);
            }
        }
    }
}
