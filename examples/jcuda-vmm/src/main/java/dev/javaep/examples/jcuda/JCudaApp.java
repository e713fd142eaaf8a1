package dev.javaep.examples.jcuda;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUresult;
import jcuda.driver.CUuuid;
import jcuda.driver.JCudaDriver;

/**
 * The harness's "app that owns GPU buffers", CUDA flavour: a program that allocates device memory with
 * its own CUDA binding (JCuda, not javaep's; plus the few downcalls of {@link VmmDriver} where JCuda's
 * are broken), shares it as a POSIX fd, and checks what an importer did with it. One device, through
 * its primary context, the context the CUDA runtime and javaep's CUDA EP share too.
 *
 * <p>Owns the {@link VmmBuffer}s allocated through it: closing the app closes those still open, newest
 * first, then releases its hold on the primary context.
 */
public final class JCudaApp implements AutoCloseable {
    private final int ordinal;
    private final CUdevice device;
    private final CUcontext context;
    private final String name;
    private final byte[] uuid;
    private final LinkedHashSet<VmmBuffer> buffers = new LinkedHashSet<>();
    private boolean closed;

    private JCudaApp(int ordinal, CUdevice device, CUcontext context, String name, byte[] uuid) {
        this.ordinal = ordinal;
        this.device = device;
        this.context = context;
        this.name = name;
        this.uuid = uuid;
    }

    /**
     * Initialises the driver, takes device {@code ordinal} and retains its primary context, current on the
     * calling thread.
     *
     * @throws JCudaUnavailableException no NVIDIA driver or no device here (the message says which)
     * @throws JCudaException a driver call failed (a bad ordinal, say)
     */
    public static JCudaApp open(int ordinal) {
        requireAvailable();
        CUdevice device = new CUdevice();
        check(JCudaDriver.cuDeviceGet(device, ordinal), "cuDeviceGet", "device " + ordinal);
        byte[] nameBytes = new byte[256];
        check(JCudaDriver.cuDeviceGetName(nameBytes, nameBytes.length, device), "cuDeviceGetName");
        CUuuid uuid = new CUuuid();
        check(JCudaDriver.cuDeviceGetUuid(uuid, device), "cuDeviceGetUuid");
        CUcontext context = new CUcontext();
        check(JCudaDriver.cuDevicePrimaryCtxRetain(context, device), "cuDevicePrimaryCtxRetain", "device " + ordinal);
        JCudaApp app = new JCudaApp(ordinal, device, context, cString(nameBytes), uuid.bytes.clone());
        try {
            app.makeCurrent();
            return app;
        } catch (RuntimeException e) {
            app.close();
            throw e;
        }
    }

    /** Whether JCuda can be used here (driver library loads, {@code cuInit} succeeds, at least one device). */
    public static boolean isAvailable() {
        return DriverProbe.RESULT.reason() == null;
    }

    /** Why JCuda cannot be used here; empty when it can. */
    public static Optional<String> unavailableReason() {
        return Optional.ofNullable(DriverProbe.RESULT.reason());
    }

    /** @throws JCudaUnavailableException with the reason when JCuda cannot be used here */
    public static void requireAvailable() {
        DriverProbe probe = DriverProbe.RESULT;
        if (probe.reason() != null) {
            throw new JCudaUnavailableException(probe.reason(), probe.cause());
        }
    }

    public int ordinal() {
        return ordinal;
    }

    /** The device's name, as {@code cuDeviceGetName} reports it. */
    public String name() {
        return name;
    }

    /**
     * The device's 16-byte UUID ({@code cuDeviceGetUuid}): what Vulkan reports as {@code deviceUUID}, so an
     * importer can check an allocation came from the device it runs on.
     */
    public byte[] deviceUuid() {
        return uuid.clone();
    }

    /** JCuda's device handle. */
    public CUdevice device() {
        return device;
    }

    /**
     * Makes the primary context current on the calling thread. Every buffer operation does this first:
     * a context is current per thread, and tests, ORT and the EP call from threads of their own.
     */
    public void makeCurrent() {
        requireOpen();
        check(JCudaDriver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
    }

    /** {@code cuCtxSynchronize}: waits for all work in the context. */
    public void synchronize() {
        makeCurrent();
        check(JCudaDriver.cuCtxSynchronize(), "cuCtxSynchronize");
    }

    /** Allocates at least {@code bytes} of device memory, exportable as a POSIX fd (see {@link VmmBuffer}). */
    public VmmBuffer allocate(long bytes) {
        requireOpen();
        VmmBuffer buffer = VmmBuffer.allocate(this, bytes);
        synchronized (this) {
            buffers.add(buffer);
        }
        return buffer;
    }

    synchronized void forget(VmmBuffer buffer) {
        buffers.remove(buffer);
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("JCudaApp is closed");
        }
    }

    /** Closes the buffers still open (newest first), then releases the primary context. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        List<VmmBuffer> open;
        synchronized (this) {
            open = new ArrayList<>(buffers);
        }
        Collections.reverse(open);
        for (VmmBuffer buffer : open) {
            buffer.close();
        }
        closed = true;
        check(JCudaDriver.cuDevicePrimaryCtxRelease(device), "cuDevicePrimaryCtxRelease");
    }

    @Override
    public String toString() {
        return "JCudaApp[device " + ordinal + " " + name + ", uuid " + HexFormat.of().formatHex(uuid)
                + (closed ? ", closed]" : "]");
    }

    // ---- results --------------------------------------------------------------------------------

    static void check(int result, String call) {
        check(result, call, "");
    }

    /** Throws a {@link JCudaException} naming the call and the result unless the call succeeded. */
    static void check(int result, String call, String context) {
        if (result != CUresult.CUDA_SUCCESS) {
            throw new JCudaException(call, result, errorName(result), context);
        }
    }

    /** {@code cuGetErrorName}, or JCuda's own name table where the driver does not know the value. */
    static String errorName(int result) {
        String[] name = new String[1];
        if (JCudaDriver.cuGetErrorName(result, name) == CUresult.CUDA_SUCCESS && name[0] != null) {
            return name[0];
        }
        return CUresult.stringFor(result);
    }

    private static String cString(byte[] bytes) {
        int end = 0;
        while (end < bytes.length && bytes[end] != 0) {
            end++;
        }
        return new String(bytes, 0, end, StandardCharsets.UTF_8);
    }

    /**
     * Loading JCuda once per process: its class initialiser loads a native library linked against
     * {@code libcuda.so.1}, and on a machine without the NVIDIA driver that throws an
     * {@link UnsatisfiedLinkError} the first time and a bare {@link NoClassDefFoundError} every time after.
     * Probing once keeps the first, informative failure for every later caller.
     *
     * @param reason null when JCuda is usable
     */
    private record DriverProbe(String reason, Throwable cause) {
        static final DriverProbe RESULT = probe();

        private static DriverProbe probe() {
            try {
                int init = JCudaDriver.cuInit(0);
                if (init != CUresult.CUDA_SUCCESS) {
                    return new DriverProbe("javaep: JCuda loaded but cuInit failed with " + errorName(init) + " (" + init
                            + "): the NVIDIA driver sees no usable GPU here", null);
                }
                int[] count = new int[1];
                int result = JCudaDriver.cuDeviceGetCount(count);
                if (result != CUresult.CUDA_SUCCESS) {
                    return new DriverProbe("javaep: cuDeviceGetCount failed with " + errorName(result), null);
                }
                if (count[0] == 0) {
                    return new DriverProbe("javaep: the NVIDIA driver reports no CUDA device", null);
                }
                return new DriverProbe(null, null);
            } catch (LinkageError e) {
                return new DriverProbe("javaep: JCuda's native library did not load (" + loaderReason(e)
                        + "); it needs the NVIDIA driver (libcuda.so.1) installed and on the library path", e);
            }
        }

        /**
         * The line of JCuda's loader report that says why: it tries java.library.path, then its jar's copy,
         * and the second attempt's dlopen error ("libcuda.so.1: cannot open shared object file") is the one
         * that matters.
         */
        private static String loaderReason(LinkageError e) {
            List<String> lines = String.valueOf(e.getMessage()).lines().map(String::strip).toList();
            String reason = lines.isEmpty() ? e.toString() : e.getClass().getSimpleName() + ": " + lines.getFirst();
            for (String line : lines) {
                if (line.startsWith("java.lang.UnsatisfiedLinkError:")) {
                    reason = line.substring("java.lang.".length()); // the last attempt's error wins
                }
            }
            return reason;
        }
    }
}
