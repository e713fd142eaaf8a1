package dev.javaep.harness.abi;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a behaviour probe: a test whose observable result would differ if javaep's declaration of these slots
 * pointed at another function (a neighbouring slot of the same shape, above all). {@link SlotProbeCoverageIT}
 * collects these into the coverage report; {@link ProbeVersionCondition} skips a probe whose slots are newer
 * than the runtime.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@interface Probes {
    /** The slots probed, as {@code "OrtApi::MemoryInfoGetName"}, {@code "OrtEpApi::…"}, {@code "OrtInteropApi::…"}. */
    String[] value();

    /** Which neighbours the observed values rule out, where that is not plain from the assertions. */
    String rulesOut() default "";
}
