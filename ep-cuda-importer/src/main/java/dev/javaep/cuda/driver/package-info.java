/**
 * The NVIDIA CUDA driver API through FFM, written by hand in jextract's shape (no JCuda, no native
 * glue): {@link dev.javaep.cuda.driver.CudaFunction} declares every bound symbol and signature,
 * {@link dev.javaep.cuda.driver.CudaStructs} the struct layouts, {@link dev.javaep.cuda.driver.CudaConstants}
 * and {@link dev.javaep.cuda.driver.CudaHandleTypes} the enum values, and
 * {@link dev.javaep.cuda.driver.CudaDriver} the calls. {@code CudaHeaderCrossCheckTest} checks all of
 * it against {@code cuda.h} where the toolkit is installed.
 */
package dev.javaep.cuda.driver;
