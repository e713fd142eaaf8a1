/**
 * A small Vulkan application that owns GPU buffers, for tests and benchmarks that hand Vulkan memory and
 * timeline semaphores to ONNX Runtime through its external-resource interop API (the same exchange as
 * ORT's {@code nv_vulkan_test.cc}): a {@link dev.javaep.examples.vulkan.VulkanContext} picks a device and
 * a queue, makes {@link dev.javaep.examples.vulkan.VulkanBuffer}s (optionally exportable as OPAQUE_FD) and
 * {@link dev.javaep.examples.vulkan.TimelineSemaphore}s, and submits transfer work that waits on and
 * signals timeline values without the CPU waiting.
 *
 * <p>It runs on Mesa lavapipe (software Vulkan, CI) and on the NVIDIA driver (GPU machine). LWJGL finds
 * the system loader {@code libvulkan.so.1}; {@code VK_DRIVER_FILES} chooses the ICD. It lives in
 * examples/vulkan-frames, outside javaep's distribution (LWJGL stays out of it), with
 * {@link dev.javaep.examples.vulkan.InteropBenchmark} ({@code bench-interop}): its frames through JavaCuda by copy and
 * by zero-copy import.
 */
package dev.javaep.examples.vulkan;
