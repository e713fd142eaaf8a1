/**
 * The little Vulkan the conformance kit needs to hand an EP's importer a real timeline semaphore: a binding of
 * {@code libvulkan.so.1} through FFM (JDK only, no LWJGL: the kit runs on any host with a Vulkan loader), one
 * instance, one device (matched to the EP's by {@code deviceUUID} where the EP names it), timeline semaphores
 * exportable as OPAQUE_FD, signalled, waited on and read from the host. {@link dev.javaep.conformance.kit.vulkan.VulkanDevice}
 * opens it; {@link dev.javaep.conformance.kit.vulkan.VulkanUnavailableException} says why it cannot be had here.
 */
package dev.javaep.conformance.kit.vulkan;
