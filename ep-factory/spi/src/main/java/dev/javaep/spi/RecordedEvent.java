package dev.javaep.spi;

import jdk.jfr.Event;
import jdk.jfr.StackTrace;

/**
 * A JDK Flight Recorder event that costs nothing on a hot path while no recording wants it, as javaep's own events
 * are built (an EP author's may be too). A subclass keeps one never-committed instance as its gate and begins an
 * event only when the gate says a recording wants it:
 * <pre>{@code
 * public static MyEvent beginIfRecorded() {
 *     return GATE.isEnabled() ? begun(new MyEvent()) : null;
 * }
 * }</pre>
 * and at the end sets its fields and commits only after {@link #endAndCheck}, so nothing is allocated or computed
 * for an unrecorded event. Test {@link FlightRecorder#AVAILABLE} before touching an event class, and outside the event's
 * own class pass an event only to methods typed by that class (e.g. a static {@code accepted(MyEvent)} that calls
 * {@link #endAndCheck}): handing it where a {@code RecordedEvent} is declared makes the verifier load the event class when
 * it links the caller, which fails on a runtime without {@code jdk.jfr}. No stack traces:
 * the events are per call, and the stack would cost more than the call.
 */
@StackTrace(false)
public abstract class RecordedEvent extends Event {
    /** {@code event}, begun: what {@code beginIfRecorded()} answers once its gate said a recording wants one. */
    protected static <E extends RecordedEvent> E begun(E event) {
        event.begin();
        return event;
    }

    /**
     * Ends {@code event} ({@code null}: none was begun) and says whether a recording wants it; only then are its fields
     * set and the event committed.
     */
    public static boolean endAndCheck(RecordedEvent event) {
        if (event == null) {
            return false;
        }
        event.end();
        return event.shouldCommit();
    }
}
