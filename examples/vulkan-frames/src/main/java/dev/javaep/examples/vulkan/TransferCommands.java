package dev.javaep.examples.vulkan;

import static org.lwjgl.vulkan.VK10.VK_ACCESS_HOST_READ_BIT;
import static org.lwjgl.vulkan.VK10.VK_ACCESS_HOST_WRITE_BIT;
import static org.lwjgl.vulkan.VK10.VK_ACCESS_MEMORY_READ_BIT;
import static org.lwjgl.vulkan.VK10.VK_ACCESS_MEMORY_WRITE_BIT;
import static org.lwjgl.vulkan.VK10.VK_ACCESS_TRANSFER_READ_BIT;
import static org.lwjgl.vulkan.VK10.VK_ACCESS_TRANSFER_WRITE_BIT;
import static org.lwjgl.vulkan.VK10.VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
import static org.lwjgl.vulkan.VK10.VK_PIPELINE_STAGE_HOST_BIT;
import static org.lwjgl.vulkan.VK10.VK_PIPELINE_STAGE_TRANSFER_BIT;
import static org.lwjgl.vulkan.VK10.vkCmdCopyBuffer;
import static org.lwjgl.vulkan.VK10.vkCmdFillBuffer;
import static org.lwjgl.vulkan.VK10.vkCmdPipelineBarrier;

import org.lwjgl.system.MemoryStack;
import org.lwjgl.vulkan.VkBufferCopy;
import org.lwjgl.vulkan.VkCommandBuffer;
import org.lwjgl.vulkan.VkMemoryBarrier;

/**
 * The transfer commands of one {@link VulkanContext#submit}, in the order they are recorded. Every command
 * sees the writes of all commands before it, in this submission and earlier ones on the queue: a global
 * memory barrier precedes the first command (from all earlier commands), separates consecutive commands
 * (transfer to transfer), and follows the last (to all later commands and to host reads after a wait).
 * Usable only inside the recording callback.
 */
public final class TransferCommands {
    private static final int TRANSFER_ACCESS = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;

    private final VulkanContext context;
    private final VkCommandBuffer commandBuffer;
    private int recorded;
    private boolean recording = true;

    TransferCommands(VulkanContext context, VkCommandBuffer commandBuffer) {
        this.context = context;
        this.commandBuffer = commandBuffer;
    }

    /** Copies {@code size} bytes ({@code vkCmdCopyBuffer}); within one buffer the ranges must not overlap. */
    public TransferCommands copy(VulkanBuffer source, long sourceOffset, VulkanBuffer destination, long destinationOffset,
            long size) {
        checkRange(source, sourceOffset, size, "source");
        checkRange(destination, destinationOffset, size, "destination");
        if (source == destination && sourceOffset < destinationOffset + size && destinationOffset < sourceOffset + size) {
            throw new IllegalArgumentException("a copy within one buffer needs disjoint ranges: [" + sourceOffset + ", +"
                    + size + ") and [" + destinationOffset + ", +" + size + ")");
        }
        beforeCommand();
        try (MemoryStack stack = MemoryStack.stackPush()) {
            VkBufferCopy.Buffer region = VkBufferCopy.calloc(1, stack);
            region.get(0).srcOffset(sourceOffset).dstOffset(destinationOffset).size(size);
            vkCmdCopyBuffer(commandBuffer, source.handle(), destination.handle(), region);
        }
        return this;
    }

    /** Fills {@code size} bytes with the 32-bit word {@code data} ({@code vkCmdFillBuffer}); offset and size are multiples of 4. */
    public TransferCommands fill(VulkanBuffer destination, long offset, long size, int data) {
        checkRange(destination, offset, size, "destination");
        if (offset % 4 != 0 || size % 4 != 0) {
            throw new IllegalArgumentException("vkCmdFillBuffer writes whole 32-bit words: offset " + offset
                    + " and size " + size + " must be multiples of 4");
        }
        beforeCommand();
        vkCmdFillBuffer(commandBuffer, destination.handle(), offset, size, data);
        return this;
    }

    /** Fills {@code count} floats from {@code offset} with {@code value}. */
    public TransferCommands fillFloats(VulkanBuffer destination, long offset, long count, float value) {
        return fill(destination, offset, count * Float.BYTES, Float.floatToRawIntBits(value));
    }

    /** How many commands were recorded so far. */
    public int commandCount() {
        return recorded;
    }

    /** Makes the writes of everything submitted earlier (any stage) visible to this submission's transfers. */
    void begin() {
        barrier(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
                VK_PIPELINE_STAGE_TRANSFER_BIT, TRANSFER_ACCESS);
    }

    /**
     * Makes this submission's writes available to all later commands and, once the host has waited on a
     * semaphore this submission signals, to host reads (device-to-host needs a barrier into the host domain).
     */
    void end() {
        barrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_HOST_READ_BIT | VK_ACCESS_HOST_WRITE_BIT);
        recording = false;
    }

    private void beforeCommand() {
        if (!recording) {
            throw new IllegalStateException("the submission was already recorded; record commands inside the callback");
        }
        if (recorded > 0) {
            barrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                    VK_PIPELINE_STAGE_TRANSFER_BIT, TRANSFER_ACCESS);
        }
        recorded++;
    }

    private void barrier(int sourceStages, int sourceAccess, int destinationStages, int destinationAccess) {
        try (MemoryStack stack = MemoryStack.stackPush()) {
            VkMemoryBarrier.Buffer barrier = VkMemoryBarrier.calloc(1, stack);
            barrier.get(0).sType$Default().srcAccessMask(sourceAccess).dstAccessMask(destinationAccess);
            vkCmdPipelineBarrier(commandBuffer, sourceStages, destinationStages, 0, barrier, null, null);
        }
    }

    private void checkRange(VulkanBuffer buffer, long offset, long size, String role) {
        if (buffer.context() != context) {
            throw new IllegalArgumentException("the " + role + " buffer belongs to another Vulkan context");
        }
        buffer.ensureOpen();
        if (size <= 0 || offset < 0 || offset > buffer.size() - size) {
            throw new IndexOutOfBoundsException("the " + role + " range [" + offset + ", +" + size
                    + ") is not inside " + buffer);
        }
    }
}
