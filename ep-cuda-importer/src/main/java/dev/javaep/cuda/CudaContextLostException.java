package dev.javaep.cuda;

import dev.javaep.cuda.driver.CudaDriver.ContextLoss;
import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtException;

/**
 * A call on a CUDA device whose context an earlier sticky error (a kernel fault, an uncorrectable ECC
 * error, ...) made unusable. Thrown before any CUDA call is made, so a lost device fails every later
 * Run, allocation, copy, stream call and import fast with one clear message instead of a cascade of
 * driver errors; ORT sees {@code EP_FAIL}.
 */
public final class CudaContextLostException extends OrtException {
    private static final long serialVersionUID = 1L;

    private final transient ContextLoss loss;

    CudaContextLostException(CudaDevice device, ContextLoss loss) {
        super(OrtErrorCode.EP_FAIL, "javaep: CUDA device " + device.ordinal() + " (" + device.info().name()
                + ") is unusable: its context was lost at " + loss.function() + " with " + loss.errorName() + " ("
                + loss.cause() + "); restart the process to use this GPU again");
        this.loss = loss;
    }

    /** The first sticky error the context saw, and the call that returned it. */
    public ContextLoss loss() {
        return loss;
    }
}
