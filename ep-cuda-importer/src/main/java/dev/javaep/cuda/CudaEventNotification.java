package dev.javaep.cuda;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.spi.StreamNotification;

/** A CUDA event recorded on the producing stream; consumers wait on the device with cuStreamWaitEvent. */
final class CudaEventNotification implements StreamNotification {
    private final CudaDevice device;
    private final long producer;
    private final long event;

    CudaEventNotification(CudaDevice device, long producerStream) {
        this.device = device;
        this.producer = producerStream;
        device.makeCurrent();
        this.event = device.driver().eventCreate(CudaDriver.EVENT_DISABLE_TIMING);
    }

    @Override
    public void activate() {
        device.makeCurrent();
        device.driver().eventRecord(event, producer);
    }

    @Override
    public void waitOnDevice(long consumerStream) {
        device.makeCurrent();
        if (consumerStream == 0) {
            // A consumer without a device stream (the CPU EP) can only wait on the host.
            device.driver().eventSynchronize(event);
        } else {
            device.driver().streamWaitEvent(consumerStream, event);
        }
    }

    @Override
    public void waitOnHost() {
        device.makeCurrent();
        device.driver().eventSynchronize(event);
    }

    @Override
    public void close() {
        if (device.isLost()) {
            return; // the event went with the lost context
        }
        device.makeCurrent();
        device.driver().eventDestroy(event);
    }
}
