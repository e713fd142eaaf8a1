/**
 * NVIDIA's libraries of tuned kernels, bound through FFM and found at run time like NVRTC: today cuDNN's legacy
 * convolution API ({@link dev.javaep.cuda.dnn.Cudnn}). It is not required: without it JavaCuda runs its own CUDA C
 * kernels, and one log line says which runs.
 */
package dev.javaep.cuda.dnn;
