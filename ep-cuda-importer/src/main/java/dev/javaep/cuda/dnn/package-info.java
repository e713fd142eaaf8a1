/**
 * NVIDIA's libraries of tuned kernels, bound through FFM and found at run time like NVRTC: cuDNN's legacy
 * convolution API ({@link dev.javaep.cuda.dnn.Cudnn}) and cuBLAS ({@link dev.javaep.cuda.dnn.Cublas}). Neither is
 * required: without them JavaCuda runs its own CUDA C kernels, and one log line says which was found.
 */
package dev.javaep.cuda.dnn;
