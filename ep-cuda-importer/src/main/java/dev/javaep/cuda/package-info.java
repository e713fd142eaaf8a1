/**
 * JavaCudaExecutionProvider: NVIDIA GPUs through the CUDA driver API. The factory offers one EP
 * device per CUDA device (matched to ORT's hardware devices by PCI bus id or LUID, created with
 * {@code CreateHardwareDevice} where ORT found none), with device and pinned memory, a data
 * transfer, and a CUstream per ORT stream; {@link dev.javaep.cuda.kernel} holds the kernels.
 * {@link dev.javaep.cuda.driver} is the FFM binding of libcuda.
 */
package dev.javaep.cuda;
