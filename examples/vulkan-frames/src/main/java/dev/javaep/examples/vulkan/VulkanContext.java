package dev.javaep.examples.vulkan;

import static org.lwjgl.vulkan.KHRExternalMemoryFd.VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
import static org.lwjgl.vulkan.KHRExternalSemaphoreFd.VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME;
import static org.lwjgl.vulkan.VK10.VK_COMMAND_BUFFER_LEVEL_PRIMARY;
import static org.lwjgl.vulkan.VK10.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
import static org.lwjgl.vulkan.VK10.VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
import static org.lwjgl.vulkan.VK10.VK_ERROR_INCOMPATIBLE_DRIVER;
import static org.lwjgl.vulkan.VK10.VK_ERROR_INITIALIZATION_FAILED;
import static org.lwjgl.vulkan.VK10.VK_NULL_HANDLE;
import static org.lwjgl.vulkan.VK10.VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
import static org.lwjgl.vulkan.VK10.vkAllocateCommandBuffers;
import static org.lwjgl.vulkan.VK10.vkBeginCommandBuffer;
import static org.lwjgl.vulkan.VK10.vkCreateCommandPool;
import static org.lwjgl.vulkan.VK10.vkCreateDevice;
import static org.lwjgl.vulkan.VK10.vkCreateInstance;
import static org.lwjgl.vulkan.VK10.vkDestroyCommandPool;
import static org.lwjgl.vulkan.VK10.vkDestroyDevice;
import static org.lwjgl.vulkan.VK10.vkDestroyInstance;
import static org.lwjgl.vulkan.VK10.vkDestroySemaphore;
import static org.lwjgl.vulkan.VK10.vkDeviceWaitIdle;
import static org.lwjgl.vulkan.VK10.vkEndCommandBuffer;
import static org.lwjgl.vulkan.VK10.vkEnumeratePhysicalDevices;
import static org.lwjgl.vulkan.VK10.vkFreeCommandBuffers;
import static org.lwjgl.vulkan.VK10.vkGetDeviceQueue;
import static org.lwjgl.vulkan.VK10.vkGetPhysicalDeviceMemoryProperties;
import static org.lwjgl.vulkan.VK10.vkQueueSubmit;
import static org.lwjgl.vulkan.VK10.vkQueueWaitIdle;
import static org.lwjgl.vulkan.VK12.VK_API_VERSION_1_2;

import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SequencedSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.lwjgl.PointerBuffer;
import org.lwjgl.system.Configuration;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.vulkan.VK;
import org.lwjgl.vulkan.VkApplicationInfo;
import org.lwjgl.vulkan.VkCommandBuffer;
import org.lwjgl.vulkan.VkCommandBufferAllocateInfo;
import org.lwjgl.vulkan.VkCommandBufferBeginInfo;
import org.lwjgl.vulkan.VkCommandPoolCreateInfo;
import org.lwjgl.vulkan.VkDevice;
import org.lwjgl.vulkan.VkDeviceCreateInfo;
import org.lwjgl.vulkan.VkDeviceQueueCreateInfo;
import org.lwjgl.vulkan.VkInstance;
import org.lwjgl.vulkan.VkInstanceCreateInfo;
import org.lwjgl.vulkan.VkPhysicalDevice;
import org.lwjgl.vulkan.VkPhysicalDeviceMemoryProperties;
import org.lwjgl.vulkan.VkPhysicalDeviceTimelineSemaphoreFeatures;
import org.lwjgl.vulkan.VkQueue;
import org.lwjgl.vulkan.VkSubmitInfo;
import org.lwjgl.vulkan.VkTimelineSemaphoreSubmitInfo;

/**
 * A Vulkan 1.2 instance, one device, one queue that can transfer, and what was made on them: the
 * "application that owns GPU buffers" whose memory and timeline semaphores are handed to ONNX Runtime.
 *
 * <p>Submissions never wait on the CPU. Each uses one one-time primary command buffer and also signals
 * the context's own submission timeline; a command buffer is freed by a later {@link #submit} (or
 * {@link #waitIdle}) once that timeline has passed its value, which costs a non-blocking counter read.
 *
 * <p>Thread safety: submissions, {@link #waitIdle} and {@link #close} are serialized on the context
 * (the queue and the command pool need external synchronization); creating buffers and semaphores is
 * safe from any thread. Closing the context waits (a bounded time) for pending submissions, then closes
 * every buffer and semaphore it still owns, newest first, then the pool, the device and the instance.
 */
public final class VulkanContext implements AutoCloseable {
    static final int UUID_SIZE = 16;
    private static final String APPLICATION_NAME = "javaep-test-harness";
    /** How long {@link #close} waits for pending submissions before giving up rather than hanging. */
    private static final long CLOSE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static boolean loaderLoaded;

    private final PhysicalDeviceProfile physical;
    private final VkDevice device;
    private final VkQueue queue;
    private final long commandPool;
    private final long submissionTimeline;
    private final int[] memoryTypeFlags;
    /** Destroys what {@link #open} created (the internal semaphore, pool, device, instance), newest first. */
    private final Deque<Runnable> teardown;
    private final ArrayDeque<InFlightCommandBuffer> inFlight = new ArrayDeque<>();
    private final SequencedSet<AutoCloseable> owned = new LinkedHashSet<>();
    private long lastSubmittedValue;
    private volatile boolean closed;

    /** A submitted command buffer, the submission-timeline value that says it has completed, and what it waits on. */
    private record InFlightCommandBuffer(VkCommandBuffer commandBuffer, long completionValue, List<SemaphoreValue> waits) {}

    private VulkanContext(PhysicalDeviceProfile physical, VkDevice device, VkQueue queue, long commandPool,
            long submissionTimeline, int[] memoryTypeFlags, Deque<Runnable> teardown) {
        this.physical = physical;
        this.device = device;
        this.queue = queue;
        this.commandPool = commandPool;
        this.submissionTimeline = submissionTimeline;
        this.memoryTypeFlags = memoryTypeFlags;
        this.teardown = teardown;
    }

    /** {@link #open(Optional)} on the first device that can export buffer memory as OPAQUE_FD. */
    public static VulkanContext open() {
        return open(Optional.empty());
    }

    /**
     * Opens the device whose {@code deviceUUID} is {@code deviceUuid} (how a CUDA or ORT device is matched
     * to a Vulkan one on Linux), or else the first device that can export buffer memory as OPAQUE_FD.
     *
     * @throws VulkanUnavailableException no Vulkan loader, no driver, or no such device; the message says which
     */
    public static VulkanContext open(Optional<byte[]> deviceUuid) {
        Objects.requireNonNull(deviceUuid, "deviceUuid");
        deviceUuid.ifPresent(uuid -> {
            if (uuid.length != UUID_SIZE) {
                throw new IllegalArgumentException("a device UUID has 16 bytes, not " + uuid.length);
            }
        });
        loadLoader();
        Deque<Runnable> teardown = new ArrayDeque<>();
        try (MemoryStack stack = MemoryStack.stackPush()) {
            VkInstance instance = createInstance(stack);
            teardown.push(() -> vkDestroyInstance(instance, null));
            PhysicalDeviceProfile physical = choosePhysicalDevice(instance, deviceUuid, stack);
            VkDevice device = createDevice(physical, stack);
            teardown.push(() -> vkDestroyDevice(device, null));
            PointerBuffer queueHandle = stack.mallocPointer(1);
            vkGetDeviceQueue(device, physical.queueFamilyIndex(), 0, queueHandle);
            VkQueue queue = new VkQueue(queueHandle.get(0), device);
            long commandPool = createCommandPool(device, physical.queueFamilyIndex(), stack);
            teardown.push(() -> vkDestroyCommandPool(device, commandPool, null));
            long submissionTimeline = TimelineSemaphore.createHandle(device, 0, false);
            teardown.push(() -> vkDestroySemaphore(device, submissionTimeline, null));
            return new VulkanContext(physical, device, queue, commandPool, submissionTimeline,
                    memoryTypeFlags(physical.device(), stack), teardown);
        } catch (RuntimeException | Error e) {
            teardown.forEach(Runnable::run);
            throw e;
        }
    }

    /** The device's {@code deviceUUID} (16 bytes): equal to {@code cuDeviceGetUuid} of the same GPU. */
    public byte[] deviceUuid() {
        return physical.deviceUuid();
    }

    public String deviceName() {
        return physical.deviceName();
    }

    /** {@code VkPhysicalDeviceDriverProperties.driverName}, e.g. "llvmpipe" or "NVIDIA". */
    public String driverName() {
        return physical.driverName();
    }

    /** {@code VkPhysicalDeviceDriverProperties.driverInfo}, e.g. "Mesa 22.3.6 (LLVM 15.0.6)". */
    public String driverInfo() {
        return physical.driverInfo();
    }

    /** {@code VkDriverId}: {@code VK12.VK_DRIVER_ID_MESA_LLVMPIPE} for lavapipe, {@code VK_DRIVER_ID_NVIDIA_PROPRIETARY}. */
    public int driverId() {
        return physical.driverId();
    }

    /** The device's Vulkan version, "major.minor.patch". */
    public String apiVersion() {
        return PhysicalDeviceProfile.versionString(physical.apiVersion());
    }

    /** One line: device, driver, Vulkan version, UUID. */
    public String describe() {
        return physical.describe();
    }

    /** Buffers made with {@code exportable = true} can be exported with {@link VulkanBuffer#exportOpaqueFd}. */
    public boolean supportsOpaqueFdMemoryExport() {
        return physical.opaqueFdBufferExport();
    }

    /** Semaphores made with {@code exportable = true} can be exported with {@link TimelineSemaphore#exportOpaqueFd}. */
    public boolean supportsTimelineSemaphoreExport() {
        return physical.opaqueFdTimelineSemaphoreExport();
    }

    /** The queue family submissions go to. */
    public int queueFamilyIndex() {
        return physical.queueFamilyIndex();
    }

    /**
     * A buffer of {@code size} bytes with its own memory (never a dedicated allocation), usable as copy
     * source, copy destination and storage buffer.
     *
     * @param exportable allocate the memory exportable as OPAQUE_FD ({@link #supportsOpaqueFdMemoryExport})
     */
    public VulkanBuffer createBuffer(long size, VulkanBuffer.Placement placement, boolean exportable) {
        ensureOpen();
        if (exportable && !supportsOpaqueFdMemoryExport()) {
            throw new UnsupportedOperationException(
                    "cannot make an exportable buffer: " + describe() + " cannot export buffer memory as OPAQUE_FD");
        }
        return register(VulkanBuffer.create(this, size, placement, exportable));
    }

    /**
     * A timeline semaphore starting at {@code initialValue}.
     *
     * @param exportable create it exportable as OPAQUE_FD ({@link #supportsTimelineSemaphoreExport})
     */
    public TimelineSemaphore createTimelineSemaphore(long initialValue, boolean exportable) {
        ensureOpen();
        if (exportable && !supportsTimelineSemaphoreExport()) {
            throw new UnsupportedOperationException("cannot make an exportable timeline semaphore: " + describe()
                    + " cannot export timeline semaphores as OPAQUE_FD");
        }
        return register(new TimelineSemaphore(this, TimelineSemaphore.createHandle(device, initialValue, exportable),
                exportable));
    }

    /**
     * Records transfer commands into a fresh command buffer and submits it to the queue; returns without
     * waiting for it. The batch starts executing once every {@code waits} semaphore reaches its value
     * (waited on at all stages), and sets every {@code signals} semaphore to its value when all its commands
     * (and everything submitted before it) have completed and their writes are visible to the device and the host.
     *
     * <p>Signal values must be greater than the semaphore's value at the time of the signal, as Vulkan requires.
     * Buffers used by a submission must stay open until it completes.
     */
    public synchronized void submit(Consumer<TransferCommands> recording, List<SemaphoreValue> waits,
            List<SemaphoreValue> signals) {
        ensureOpen();
        for (SemaphoreValue point : waits) {
            checkOwned(point.semaphore(), "wait");
        }
        for (SemaphoreValue point : signals) {
            checkOwned(point.semaphore(), "signal");
        }
        reclaimCompletedCommandBuffers();
        try (MemoryStack stack = MemoryStack.stackPush()) {
            VkCommandBuffer commands = allocateCommandBuffer(stack);
            boolean submitted = false;
            try {
                VulkanException.check(vkBeginCommandBuffer(commands, VkCommandBufferBeginInfo.calloc(stack)
                        .sType$Default().flags(VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT)), "vkBeginCommandBuffer");
                TransferCommands recorder = new TransferCommands(this, commands);
                recorder.begin();
                recording.accept(recorder);
                recorder.end();
                VulkanException.check(vkEndCommandBuffer(commands), "vkEndCommandBuffer");

                long completionValue = lastSubmittedValue + 1;
                LongBuffer waitSemaphores = stack.mallocLong(waits.size());
                LongBuffer waitValues = stack.mallocLong(waits.size());
                IntBuffer waitStages = stack.mallocInt(waits.size());
                for (SemaphoreValue point : waits) {
                    waitSemaphores.put(point.semaphore().handle());
                    waitValues.put(point.value());
                    waitStages.put(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
                }
                LongBuffer signalSemaphores = stack.mallocLong(signals.size() + 1);
                LongBuffer signalValues = stack.mallocLong(signals.size() + 1);
                for (SemaphoreValue point : signals) {
                    signalSemaphores.put(point.semaphore().handle());
                    signalValues.put(point.value());
                }
                signalSemaphores.put(submissionTimeline);
                signalValues.put(completionValue);
                waitSemaphores.flip();
                waitValues.flip();
                waitStages.flip();
                signalSemaphores.flip();
                signalValues.flip();

                VkTimelineSemaphoreSubmitInfo timelineValues = VkTimelineSemaphoreSubmitInfo.calloc(stack).sType$Default()
                        .waitSemaphoreValueCount(waits.size()).pWaitSemaphoreValues(waitValues)
                        .signalSemaphoreValueCount(signalValues.remaining()).pSignalSemaphoreValues(signalValues);
                VkSubmitInfo submit = VkSubmitInfo.calloc(stack).sType$Default()
                        .pNext(timelineValues)
                        .waitSemaphoreCount(waits.size())
                        .pWaitSemaphores(waitSemaphores)
                        .pWaitDstStageMask(waitStages)
                        .pCommandBuffers(stack.pointers(commands))
                        .pSignalSemaphores(signalSemaphores);
                VulkanException.check(vkQueueSubmit(queue, submit, VK_NULL_HANDLE), "vkQueueSubmit");
                lastSubmittedValue = completionValue;
                inFlight.addLast(new InFlightCommandBuffer(commands, completionValue, List.copyOf(waits)));
                submitted = true;
            } finally {
                if (!submitted) {
                    vkFreeCommandBuffers(device, commandPool, commands);
                }
            }
        }
    }

    /** Waits until the queue has finished everything submitted, then frees those command buffers. For teardown. */
    public synchronized void waitIdle() {
        ensureOpen();
        VulkanException.check(vkQueueWaitIdle(queue), "vkQueueWaitIdle");
        reclaimCompletedCommandBuffers();
    }

    /** Command buffers submitted and not yet known to be complete (freed lazily; for tests). */
    public synchronized int commandBuffersInFlight() {
        return inFlight.size();
    }

    /**
     * Waits for pending submissions (up to 30 s), then destroys everything; see {@link #close(long)}.
     *
     * @throws IllegalStateException a submission is still waiting after 30 s; the context stays open
     */
    @Override
    public void close() {
        close(CLOSE_TIMEOUT_NANOS);
    }

    /**
     * Waits up to {@code pendingTimeoutNanos} for pending submissions, then closes the buffers and semaphores
     * still open (newest first), the command pool, the device and the instance.
     *
     * @throws IllegalStateException a submission still waits (on a semaphore nobody signalled, say a failed
     *     test's CUDA side) after the timeout. Destroying objects under running work would be undefined
     *     behaviour and waiting for the device could hang forever, so the context stays open: signal what
     *     the message lists and close again
     */
    public synchronized void close(long pendingTimeoutNanos) {
        if (closed) {
            return;
        }
        if (!inFlight.isEmpty()
                && !TimelineSemaphore.waitForValue(device, submissionTimeline, lastSubmittedValue, pendingTimeoutNanos)) {
            throw new IllegalStateException("cannot close the Vulkan context yet: " + inFlight.size() + " submissions have not "
                    + "completed after " + TimeUnit.NANOSECONDS.toMillis(pendingTimeoutNanos) + " ms, waiting on "
                    + inFlight.stream().flatMap(submitted -> submitted.waits().stream())
                            .map(TimelineSemaphore::describeWait).distinct().collect(Collectors.joining(", "))
                    + "; the context stays open: signal those values and close again");
        }
        closed = true;
        RuntimeException failure = null;
        int idle = vkDeviceWaitIdle(device);
        if (idle != 0) {
            // Still tear down (a lost device must be destroyed too), then report.
            failure = new VulkanException("vkDeviceWaitIdle", idle);
        }
        for (InFlightCommandBuffer submitted : inFlight) {
            vkFreeCommandBuffers(device, commandPool, submitted.commandBuffer());
        }
        inFlight.clear();
        for (AutoCloseable resource : List.copyOf(owned).reversed()) {
            try {
                resource.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IllegalStateException("closing " + resource + " failed", e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        owned.clear();
        teardown.forEach(Runnable::run);
        teardown.clear();
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "VulkanContext[" + describe() + (closed ? ", closed" : "") + "]";
    }

    VkDevice vkDevice() {
        return device;
    }

    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the Vulkan context is closed");
        }
    }

    /** Forgets a buffer or semaphore its owner closed. */
    synchronized void forget(AutoCloseable resource) {
        owned.remove(resource);
    }

    /**
     * The memory type for a buffer whose requirements allow {@code allowedTypeBits}: one with the
     * placement's required flags, preferring the one it names ({@link VulkanBuffer.Placement#preferred}).
     */
    int memoryTypeIndex(int allowedTypeBits, VulkanBuffer.Placement placement) {
        int fallback = -1;
        for (int i = 0; i < memoryTypeFlags.length; i++) {
            int flags = memoryTypeFlags[i];
            if ((allowedTypeBits & (1 << i)) == 0 || (flags & placement.requiredFlags()) != placement.requiredFlags()) {
                continue;
            }
            if (placement.preferred(flags)) {
                return i;
            }
            if (fallback < 0) {
                fallback = i;
            }
        }
        if (fallback < 0) {
            throw new IllegalStateException(describe() + " has no " + placement + " memory type among those the buffer allows "
                    + "(type bits 0x" + Integer.toHexString(allowedTypeBits) + ", type flags " + Arrays.toString(memoryTypeFlags) + ")");
        }
        return fallback;
    }

    private synchronized <T extends AutoCloseable> T register(T resource) {
        if (closed) {
            // Lost a race with close(): nobody would close it otherwise.
            try {
                resource.close();
            } catch (Exception e) {
                throw new IllegalStateException("the Vulkan context closed while creating " + resource, e);
            }
            ensureOpen();
        }
        owned.add(resource);
        return resource;
    }

    private void checkOwned(TimelineSemaphore semaphore, String use) {
        if (semaphore.context() != this) {
            throw new IllegalArgumentException("cannot " + use + " a semaphore of another Vulkan context");
        }
        semaphore.ensureOpen();
    }

    /** Frees the command buffers whose submission the submission timeline has passed; does not block. */
    private void reclaimCompletedCommandBuffers() {
        if (inFlight.isEmpty()) {
            return;
        }
        long completed = TimelineSemaphore.counterValue(device, submissionTimeline);
        while (!inFlight.isEmpty() && inFlight.peekFirst().completionValue() <= completed) {
            vkFreeCommandBuffers(device, commandPool, inFlight.removeFirst().commandBuffer());
        }
    }

    private VkCommandBuffer allocateCommandBuffer(MemoryStack stack) {
        VkCommandBufferAllocateInfo info = VkCommandBufferAllocateInfo.calloc(stack).sType$Default()
                .commandPool(commandPool)
                .level(VK_COMMAND_BUFFER_LEVEL_PRIMARY)
                .commandBufferCount(1);
        PointerBuffer handle = stack.mallocPointer(1);
        VulkanException.check(vkAllocateCommandBuffers(device, info, handle), "vkAllocateCommandBuffers");
        return new VkCommandBuffer(handle.get(0), device);
    }

    private static synchronized void loadLoader() {
        if (loaderLoaded) {
            return;
        }
        try {
            VK.create();
        } catch (IllegalStateException e) {
            if (!createdElsewhere()) {
                throw new VulkanUnavailableException("no Vulkan loader: " + e.getMessage(), e);
            }
        } catch (LinkageError e) {
            // LWJGL's default on Linux is the loader's soname, libvulkan.so.1; -Dorg.lwjgl.vulkan.libname overrides it.
            String library = Configuration.VULKAN_LIBRARY_NAME.get("libvulkan.so.1");
            throw new VulkanUnavailableException("no Vulkan loader: LWJGL could not load " + library + " (" + e.getMessage()
                    + "); install the loader (Debian: libvulkan1) or name another with -Dorg.lwjgl.vulkan.libname", e);
        }
        loaderLoaded = true;
    }

    /** Someone else in this process already called {@code VK.create()}: its loader is ours too. */
    private static boolean createdElsewhere() {
        try {
            return VK.getFunctionProvider() != null;
        } catch (IllegalStateException notCreated) {
            return false;
        }
    }

    private static VkInstance createInstance(MemoryStack stack) {
        int loaderVersion = VK.getInstanceVersionSupported();
        if (loaderVersion < VK_API_VERSION_1_2) {
            throw new VulkanUnavailableException("the Vulkan loader supports instance version "
                    + PhysicalDeviceProfile.versionString(loaderVersion) + "; javaep needs 1.2");
        }
        VkApplicationInfo application = VkApplicationInfo.calloc(stack).sType$Default()
                .pApplicationName(stack.UTF8(APPLICATION_NAME))
                .pEngineName(stack.UTF8("javaep"))
                .apiVersion(VK_API_VERSION_1_2);
        // No layers, no extensions: external memory and semaphore capabilities are core in 1.1.
        VkInstanceCreateInfo info = VkInstanceCreateInfo.calloc(stack).sType$Default().pApplicationInfo(application);
        PointerBuffer handle = stack.mallocPointer(1);
        int result = vkCreateInstance(info, null, handle);
        if (result == VK_ERROR_INCOMPATIBLE_DRIVER || result == VK_ERROR_INITIALIZATION_FAILED) {
            throw new VulkanUnavailableException("vkCreateInstance returned " + VulkanException.resultName(result)
                    + ": the loader found no usable Vulkan driver; " + driverSearchHint());
        }
        VulkanException.check(result, "vkCreateInstance");
        return new VkInstance(handle.get(0), info);
    }

    private static PhysicalDeviceProfile choosePhysicalDevice(VkInstance instance, Optional<byte[]> deviceUuid,
            MemoryStack stack) {
        IntBuffer count = stack.mallocInt(1);
        VulkanException.check(vkEnumeratePhysicalDevices(instance, count, null), "vkEnumeratePhysicalDevices");
        if (count.get(0) == 0) {
            throw new VulkanUnavailableException("the Vulkan loader lists no physical device; " + driverSearchHint());
        }
        PointerBuffer handles = stack.mallocPointer(count.get(0));
        VulkanException.check(vkEnumeratePhysicalDevices(instance, count, handles), "vkEnumeratePhysicalDevices");
        List<PhysicalDeviceProfile> profiles = new ArrayList<>();
        for (int i = 0; i < count.get(0); i++) {
            profiles.add(PhysicalDeviceProfile.read(new VkPhysicalDevice(handles.get(i), instance)));
        }

        if (deviceUuid.isPresent()) {
            byte[] wanted = deviceUuid.get();
            PhysicalDeviceProfile match = profiles.stream()
                    .filter(p -> Arrays.equals(p.deviceUuid(), wanted))
                    .findFirst()
                    .orElseThrow(() -> new VulkanUnavailableException("no Vulkan device has UUID "
                            + HexFormat.of().formatHex(wanted) + "; the loader lists " + listing(profiles, false)));
            match.unusableBecause().ifPresent(why -> {
                throw new VulkanUnavailableException("the Vulkan device with that UUID cannot be used: "
                        + match.describe() + ": " + why);
            });
            return match;
        }
        return profiles.stream()
                .filter(p -> p.notExportingBecause().isEmpty())
                .findFirst()
                .orElseThrow(() -> new VulkanUnavailableException(
                        "no Vulkan device can export buffer memory as OPAQUE_FD: " + listing(profiles, true)));
    }

    private static String listing(List<PhysicalDeviceProfile> profiles, boolean withReasons) {
        return profiles.stream()
                .map(p -> p.describe() + (withReasons ? p.notExportingBecause().map(why -> ": " + why).orElse("") : ""))
                .collect(Collectors.joining("; "));
    }

    private static String driverSearchHint() {
        String driverFiles = System.getenv("VK_DRIVER_FILES");
        String icdFilenames = System.getenv("VK_ICD_FILENAMES");
        if (driverFiles != null || icdFilenames != null) {
            return "VK_DRIVER_FILES=" + driverFiles + ", VK_ICD_FILENAMES=" + icdFilenames
                    + " (check that those ICD json files exist and their libraries load)";
        }
        return "install an ICD (Debian: mesa-vulkan-drivers for lavapipe) or point VK_DRIVER_FILES at its json";
    }

    private static VkDevice createDevice(PhysicalDeviceProfile physical, MemoryStack stack) {
        VkDeviceQueueCreateInfo.Buffer queues = VkDeviceQueueCreateInfo.calloc(1, stack);
        queues.get(0).sType$Default()
                .queueFamilyIndex(physical.queueFamilyIndex())
                .pQueuePriorities(stack.floats(1.0f));
        List<String> extensions = new ArrayList<>();
        if (physical.extensions().contains(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME)) {
            extensions.add(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
        }
        if (physical.extensions().contains(VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME)) {
            extensions.add(VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
        }
        PointerBuffer extensionNames = stack.mallocPointer(extensions.size());
        for (String name : extensions) {
            extensionNames.put(stack.UTF8(name));
        }
        extensionNames.flip();
        VkPhysicalDeviceTimelineSemaphoreFeatures timeline =
                VkPhysicalDeviceTimelineSemaphoreFeatures.calloc(stack).sType$Default().timelineSemaphore(true);
        VkDeviceCreateInfo info = VkDeviceCreateInfo.calloc(stack).sType$Default()
                .pNext(timeline)
                .pQueueCreateInfos(queues)
                .ppEnabledExtensionNames(extensionNames);
        PointerBuffer handle = stack.mallocPointer(1);
        VulkanException.check(vkCreateDevice(physical.device(), info, null, handle), "vkCreateDevice");
        // LWJGL loads the device's function pointers for the 1.2 core and the extensions enabled in info.
        return new VkDevice(handle.get(0), physical.device(), info, VK_API_VERSION_1_2);
    }

    private static long createCommandPool(VkDevice device, int queueFamilyIndex, MemoryStack stack) {
        VkCommandPoolCreateInfo info = VkCommandPoolCreateInfo.calloc(stack).sType$Default()
                .flags(VK_COMMAND_POOL_CREATE_TRANSIENT_BIT)
                .queueFamilyIndex(queueFamilyIndex);
        LongBuffer handle = stack.mallocLong(1);
        VulkanException.check(vkCreateCommandPool(device, info, null, handle), "vkCreateCommandPool");
        return handle.get(0);
    }

    private static int[] memoryTypeFlags(VkPhysicalDevice physicalDevice, MemoryStack stack) {
        VkPhysicalDeviceMemoryProperties properties = VkPhysicalDeviceMemoryProperties.malloc(stack);
        vkGetPhysicalDeviceMemoryProperties(physicalDevice, properties);
        int[] flags = new int[properties.memoryTypeCount()];
        for (int i = 0; i < flags.length; i++) {
            flags[i] = properties.memoryTypes(i).propertyFlags();
        }
        return flags;
    }
}
