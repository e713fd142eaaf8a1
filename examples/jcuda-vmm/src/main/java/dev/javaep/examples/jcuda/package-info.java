/**
 * An app that owns GPU memory through JCuda (examples/jcuda-vmm): {@link dev.javaep.examples.jcuda.JCudaApp} allocates
 * CUDA virtual-memory-management buffers ({@link dev.javaep.examples.jcuda.VmmBuffer}) and exports them as POSIX fds,
 * which the CUDA importer's integration tests hand to JavaCudaExecutionProvider through ORT's interop API. Not part
 * of javaep's distribution: JCuda stays out of it.
 */
package dev.javaep.examples.jcuda;
