/**
 * The Java host binding of ONNX Runtime's C API ({@code javaep-host}): what a Java app needs to host ORT through FFM,
 * with or without javaep's execution providers.
 *
 * <p>Start at {@link dev.javaep.host.OrtHost#shared()} (the process's ORT, found by {@link dev.javaep.host.OrtLibrary}:
 * {@code -Djavaep.ort.library}, {@code JAVAEP_ORT_LIBRARY}, or the {@code com.microsoft.onnxruntime:onnxruntime} jar on
 * the class path), then an {@link dev.javaep.host.OrtEnvironment}: plugin EP libraries and their
 * {@link dev.javaep.host.EpDevice}s, {@link dev.javaep.host.SessionOptions} and {@link dev.javaep.host.Session}s.
 * Tensors: {@link dev.javaep.host.TensorData} (host arrays, copied) and {@link dev.javaep.host.OrtTensor} (an
 * {@code OrtValue}: over memory the app owns, allocated by an {@link dev.javaep.host.Allocator}, or on a device),
 * described by {@link dev.javaep.host.MemoryInfo}. Runs: {@link dev.javaep.host.IoBinding},
 * {@link dev.javaep.host.RunOptions}, {@link dev.javaep.host.SyncStream}, {@code OrtEnvironment.copyTensors}. Interop
 * (ORT 1.24+): {@link dev.javaep.host.ExternalResourceImporter} imports an app's GPU memory and semaphores
 * ({@link dev.javaep.host.ExternalMemory}, {@link dev.javaep.host.ExternalSemaphore}); {@link
 * dev.javaep.host.FileDescriptors} tells which fds an importer took.
 *
 * <p>Every object that holds an ORT handle is {@link java.lang.AutoCloseable}; ORT does not reference-count sessions
 * and values, so close them before unregistering the EP library they ran on. The JVM needs
 * {@code --enable-native-access=ALL-UNNAMED}. examples/iobinding shows IoBinding on ORT's CPU EP with this artifact
 * alone.
 */
package dev.javaep.host;
