package dev.javaep.examples.jcuda;

import static dev.javaep.examples.jcuda.JCudaApp.check;

import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;

/**
 * Device memory allocated through CUDA's virtual memory management API, the one way the driver API lets
 * an app share an allocation as a POSIX fd: {@code cuMemCreate} (exportable as
 * {@code CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR}), mapped into a reserved range of this process's
 * address space with read-write access for the device, so the app can fill and read it itself.
 *
 * <p>{@link #exportFd()} is what an app passes to an importer as {@code VK_MEMORY_OPAQUE_FD} with
 * {@link #size()} as the allocation size. The allocation lives until both this buffer is closed and
 * every importer has released what it imported (the driver reference-counts it).
 *
 * <p>The VMM calls go through {@link VmmDriver} (JCuda's marshalling of their structs is broken); the
 * copies, fills and context work through JCuda.
 */
public final class VmmBuffer implements AutoCloseable {
    private final JCudaApp app;
    private final long requestedBytes;
    private final long size;
    private final long allocation; // CUmemGenericAllocationHandle
    private final long address; // where the app mapped it
    private boolean closed;

    private VmmBuffer(JCudaApp app, long requestedBytes, long size, long allocation, long address) {
        this.app = app;
        this.requestedBytes = requestedBytes;
        this.size = size;
        this.allocation = allocation;
        this.address = address;
    }

    /** Allocates, reserves, maps and grants access; undoes the steps already done when one fails. */
    static VmmBuffer allocate(JCudaApp app, long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("javaep: a VmmBuffer needs a positive size, got " + bytes);
        }
        app.makeCurrent();
        long granularity = VmmDriver.granularity(app.ordinal());
        // cuMemCreate and cuMemMap take only multiples of the granularity (2 MiB on current GPUs)
        long size = Math.ceilDiv(bytes, granularity) * granularity;
        long allocation = VmmDriver.create(size, app.ordinal());
        try {
            long address = VmmDriver.reserve(size);
            try {
                VmmDriver.map(address, size, allocation);
                try {
                    VmmDriver.setReadWrite(address, size, app.ordinal());
                    return new VmmBuffer(app, bytes, size, allocation, address);
                } catch (RuntimeException e) {
                    VmmDriver.unmap(address, size);
                    throw e;
                }
            } catch (RuntimeException e) {
                VmmDriver.addressFree(address, size);
                throw e;
            }
        } catch (RuntimeException e) {
            VmmDriver.release(allocation);
            throw e;
        }
    }

    /** The allocation's size: the request rounded up to the allocation granularity; what an importer must be told. */
    public long size() {
        return size;
    }

    /** The size asked for. */
    public long requestedBytes() {
        return requestedBytes;
    }

    /** The device address the app maps the allocation at (an importer maps it at an address of its own). */
    public long deviceAddress() {
        requireOpen();
        return address;
    }

    /**
     * {@code cuMemExportToShareableHandle} as a POSIX fd: a new fd per call, owned by the caller, who
     * closes it or hands it to an importer that takes ownership.
     */
    public int exportFd() {
        requireOpen();
        app.makeCurrent();
        return VmmDriver.exportFd(allocation);
    }

    /** Writes {@code values} at the start of the buffer. */
    public void writeFloats(float[] values) {
        writeFloats(0, values);
    }

    /**
     * Writes {@code values} at {@code byteOffset} and waits until the device has them: an importer reads
     * on a stream of its own, which is not ordered after the app's copies.
     */
    public void writeFloats(long byteOffset, float[] values) {
        long bytes = (long) values.length * Float.BYTES;
        requireRange(byteOffset, bytes);
        app.makeCurrent();
        check(JCudaDriver.cuMemcpyHtoD(devicePointer(byteOffset), Pointer.to(values), bytes), "cuMemcpyHtoD");
        app.synchronize();
    }

    /** Reads {@code count} floats from the start of the buffer. */
    public float[] readFloats(int count) {
        return readFloats(0, count);
    }

    /** Reads {@code count} floats from {@code byteOffset}, after the work already queued in the context. */
    public float[] readFloats(long byteOffset, int count) {
        long bytes = (long) count * Float.BYTES;
        requireRange(byteOffset, bytes);
        app.makeCurrent();
        float[] values = new float[count];
        check(JCudaDriver.cuMemcpyDtoH(Pointer.to(values), devicePointer(byteOffset), bytes), "cuMemcpyDtoH");
        return values;
    }

    /** Sets every float of the allocation to {@code value} and waits until the device has done it. */
    public void fill(float value) {
        requireOpen();
        app.makeCurrent();
        check(JCudaDriver.cuMemsetD32(devicePointer(0), Float.floatToRawIntBits(value), size / Float.BYTES), "cuMemsetD32");
        app.synchronize();
    }

    private void requireRange(long byteOffset, long bytes) {
        requireOpen();
        if (byteOffset < 0 || bytes < 0 || byteOffset > size - bytes) {
            throw new IndexOutOfBoundsException("javaep: " + bytes + " bytes at offset " + byteOffset
                    + " do not fit a VmmBuffer of " + size + " bytes");
        }
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("VmmBuffer is closed");
        }
    }

    /**
     * Unmaps, frees the address range and releases the app's reference to the allocation (in the reverse
     * order of creation); an importer's reference keeps the memory alive. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        app.forget(this);
        app.makeCurrent();
        // the device may still be writing through our mapping; unmapping under it is undefined
        app.synchronize();
        VmmDriver.unmap(address, size);
        VmmDriver.addressFree(address, size);
        VmmDriver.release(allocation);
    }

    @Override
    public String toString() {
        return "VmmBuffer[" + size + " bytes" + (closed ? ", closed]" : " at 0x" + Long.toHexString(address) + "]");
    }

    /**
     * JCuda's view of an address inside the mapping: a NULL {@link CUdeviceptr} moved by the address, since
     * JCuda offers no constructor from a raw device address and adds the offset when it passes the pointer.
     */
    private CUdeviceptr devicePointer(long byteOffset) {
        return new CUdeviceptr().withByteOffset(address + byteOffset);
    }
}
