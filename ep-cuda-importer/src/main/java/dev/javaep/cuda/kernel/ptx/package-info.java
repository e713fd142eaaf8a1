/**
 * The CUDA kernels of JavaCudaExecutionProvider, generated as PTX text in Java ({@link
 * dev.javaep.cuda.kernel.ptx.PtxModule}) so they load through the driver's JIT with no toolkit and
 * no binary blobs. {@link dev.javaep.cuda.kernel.ptx.CudaKernel} names every entry and its
 * parameters; {@link dev.javaep.cuda.kernel.ptx.BroadcastLayout} and {@link
 * dev.javaep.cuda.kernel.ptx.LaunchShape} are what a launcher needs besides. One emitter class per
 * kernel family; each says in its comment, as Java, what its kernels compute.
 */
package dev.javaep.cuda.kernel.ptx;
