package dev.javaep.cuda.kernel.conv;

import dev.javaep.cuda.dnn.Cudnn;
import dev.javaep.spi.EpLog;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Which code runs JavaCuda's Conv and ConvTranspose: cuDNN where it is installed (the default: its kernels are the
 * fastest present), or JavaCuda's direct CUDA C kernels ({@link ConvSources}). {@code -Djavaep.cuda.conv=cudnn|direct}
 * (or {@code JAVAEP_CUDA_CONV}) chooses; asking for cuDNN where it is absent falls back to the direct kernels, and
 * nothing is declined for it. One log line per process says which runs and why.
 *
 * <p>{@code -Djavaep.cuda.conv.tf32=false} keeps float32 convolutions in float32 multiply-adds; the default lets cuDNN
 * use TF32 tensor cores on Ampere and newer, which is what PyTorch does ({@code torch.backends.cudnn.allow_tf32} is
 * True by default for convolutions) and ORT's CUDA EP ({@code use_tf32=1}).
 */
enum ConvBackend {
    CUDNN, DIRECT;

    static final String PROPERTY = "javaep.cuda.conv";
    static final String TF32_PROPERTY = "javaep.cuda.conv.tf32";
    private static final AtomicReference<String> LOGGED = new AtomicReference<>();

    /** The backend for a node compiled now (the property is read per compile, so a test can switch it). */
    static ConvBackend selected() {
        String asked = System.getProperty(PROPERTY, System.getenv("JAVAEP_CUDA_CONV"));
        return choose(asked, Cudnn.find().isPresent(), Cudnn.absenceReason(),
                Cudnn.find().map(Cudnn::describe).orElse(null));
    }

    /** The decision, apart from where cuDNN is looked for (so it is testable without a GPU). */
    static ConvBackend choose(String asked, boolean cudnnPresent, String absence, String cudnnDescription) {
        String wanted = asked == null || asked.isBlank() ? "default" : asked.strip().toLowerCase(Locale.ROOT);
        ConvBackend backend;
        String line;
        switch (wanted) {
            case "direct" -> {
                backend = DIRECT;
                line = "javaep: JavaCuda runs Conv/ConvTranspose on its direct CUDA C kernels (" + PROPERTY + "=direct)";
            }
            case "cudnn", "default" -> {
                backend = cudnnPresent ? CUDNN : DIRECT;
                line = cudnnPresent
                        ? "javaep: JavaCuda runs Conv/ConvTranspose through cuDNN " + cudnnDescription
                                + (tf32() ? " (TF32 allowed for float32, as PyTorch)" : " (float32 math, no TF32)")
                        : "javaep: JavaCuda runs Conv/ConvTranspose on its direct CUDA C kernels: " + absence;
            }
            default -> throw new IllegalArgumentException(PROPERTY + "=" + asked + ": expected cudnn or direct");
        }
        if (!line.equals(LOGGED.getAndSet(line))) {
            EpLog.info(line);
        }
        return backend;
    }

    static boolean tf32() {
        return !"false".equalsIgnoreCase(System.getProperty(TF32_PROPERTY, "true"));
    }

    static Optional<Cudnn> cudnn() {
        return Cudnn.find();
    }
}
