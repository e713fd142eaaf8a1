/**
 * JavaCudaExecutionProvider: NVIDIA GPUs through the CUDA driver API. The factory offers one EP
 * device per CUDA device (matched to ORT's hardware devices by PCI bus id or LUID, created with
 * {@code CreateHardwareDevice} where ORT found none), with device and pinned memory, a data
 * transfer, a CUstream per ORT stream, and its own copy kernels for ORT's {@code MemcpyFromHost} /
 * {@code MemcpyToHost} nodes; {@link dev.javaep.cuda.kernel} holds the kernels and the program that
 * runs a fused group ({@link dev.javaep.cuda.kernel.CudaSubgraphProgram}). A device whose context a
 * sticky error lost fails every later call fast ({@link dev.javaep.cuda.CudaContextLostException}).
 * {@link dev.javaep.cuda.driver} is the FFM binding of libcuda.
 */
package dev.javaep.cuda;
