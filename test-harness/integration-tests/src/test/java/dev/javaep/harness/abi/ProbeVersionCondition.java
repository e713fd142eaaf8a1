package dev.javaep.harness.abi;

import dev.javaep.host.OrtHost;
import dev.javaep.ort.FunctionSlot;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Skips a {@link Probes} test, visibly, when one of its slots is newer than the API the runtime offers: the
 * ITs run against several ORT versions, and a slot javaep refuses on an old runtime has nothing to probe there.
 */
final class ProbeVersionCondition implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        Probes probes = context.getElement().map(e -> e.getAnnotation(Probes.class)).orElse(null);
        if (probes == null) {
            return ConditionEvaluationResult.enabled("not a probe");
        }
        int version = OrtHost.shared().api().version();
        for (String name : probes.value()) {
            FunctionSlot slot = ProbedSlots.slot(name);
            if (slot.since() > version) {
                return ConditionEvaluationResult.disabled(name + " needs ORT API " + slot.since() + "; ONNX Runtime "
                        + OrtHost.shared().version() + " offers API " + version);
            }
        }
        return ConditionEvaluationResult.enabled("every probed slot is in API " + version);
    }
}
