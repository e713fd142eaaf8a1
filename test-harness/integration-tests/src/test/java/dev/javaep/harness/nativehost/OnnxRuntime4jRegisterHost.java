package dev.javaep.harness.nativehost;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;

/**
 * A Java host of ORT through onnxruntime4j (JNI) that registers a plugin EP library and lists the EP devices.
 * {@link NativeAccessIT} runs it in child JVMs from a folder of its own (nothing of javaep on the class path:
 * libjavaep joins the JVM and loads javaep from javaep.properties' class path).
 *
 * <p>Prints {@code REGISTERED [ep names]} or {@code STATUS code=… msg=…}, then {@code HOST alive}.
 */
public final class OnnxRuntime4jRegisterHost {
    private OnnxRuntime4jRegisterHost() {}

    public static void main(String[] args) {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try {
            env.registerExecutionProviderLibrary("javaep", args[0]);
            System.out.println("REGISTERED " + env.getEpDevices().stream().map(d -> d.getEpName()).toList());
        } catch (OrtException e) {
            System.out.println("STATUS code=" + e.getCode() + " msg=" + e.getMessage());
        }
        System.out.println("HOST alive");
    }
}
