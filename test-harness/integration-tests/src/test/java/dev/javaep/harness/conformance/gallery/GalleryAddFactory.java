package dev.javaep.harness.conformance.gallery;

import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.ExternalMemoryDescriptor;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.spi.ExternalResourceImporter;
import dev.javaep.spi.ExternalSemaphoreType;
import dev.javaep.spi.Graph;
import dev.javaep.spi.HardwareDevice;
import dev.javaep.spi.HostExecutionProviderFactory;
import dev.javaep.spi.ImportedMemory;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.Tensor;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The base of the conformance kit's gallery of deliberately broken EPs: a host-memory EP that runs float Add of two
 * same-shape inputs, correctly unless a subclass breaks it ({@link #support}, {@link #add}, {@link #onCreate}).
 */
public abstract class GalleryAddFactory implements HostExecutionProviderFactory {
    /** The EP name of a gallery factory: {@code WrongAddFactory} offers {@code JavaGalleryWrongAddExecutionProvider}. */
    public static String nameOf(Class<? extends GalleryAddFactory> factory) {
        return "JavaGallery" + factory.getSimpleName().replace("Factory", "") + "ExecutionProvider";
    }

    @Override
    public final String name() {
        return nameOf(getClass());
    }

    @Override
    public String vendor() {
        return "javaep-conformance-gallery";
    }

    @Override
    public String version() {
        return "1.0.0";
    }

    /** Called once per session (CreateEp). */
    void onCreate() {}

    /** Whether this EP takes {@code node}: float Add. */
    NodeSupport support(Node node) {
        boolean floatAdd = node.opType().equals("Add") && node.isOnnxDomain()
                && node.inputs().stream().allMatch(v -> v != null && v.elementType() == ElementType.FLOAT);
        return floatAdd ? NodeSupport.compiled() : NodeSupport.declined(DeclineCode.OP_TYPE, "the gallery EPs run float Add only");
    }

    /**
     * An importer of Linux fds ({@code CanImportMemory} true for {@code VK_MEMORY_OPAQUE_FD} only, no semaphores) whose
     * {@code ImportMemory} is {@code importMemory}.
     */
    static ExternalResourceImporter fdImporter(Function<ExternalMemoryDescriptor, ImportedMemory> importMemory) {
        return new ExternalResourceImporter() {
            @Override
            public boolean canImportMemory(ExternalMemoryType type) {
                return type == ExternalMemoryType.VK_MEMORY_OPAQUE_FD;
            }

            @Override
            public boolean canImportSemaphore(ExternalSemaphoreType type) {
                return false;
            }

            @Override
            public ImportedMemory importMemory(ExternalMemoryDescriptor descriptor) {
                return importMemory.apply(descriptor);
            }
        };
    }

    /** One element of the result. */
    float add(float a, float b) {
        return a + b;
    }

    @Override
    public ExecutionProvider createExecutionProvider(List<HardwareDevice> devices, Map<String, String> sessionOptions) {
        onCreate();
        String name = name();
        return new ExecutionProvider() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public NodeSupport support(Node node) {
                return GalleryAddFactory.this.support(node);
            }

            @Override
            public CompiledNode compile(Graph subgraph, Node fusedNode) {
                if (subgraph.nodes().size() != 1) {
                    throw new IllegalArgumentException("the gallery EPs compile single Add nodes, got " + subgraph.nodes());
                }
                return GalleryAddFactory.this::compute;
            }
        };
    }

    void compute(KernelContext context) {
        Tensor a = context.input(0);
        Tensor b = context.input(1);
        if (!Arrays.equals(a.shape(), b.shape())) {
            throw new IllegalArgumentException("the gallery EPs add same-shape tensors only, got "
                    + Arrays.toString(a.shape()) + " and " + Arrays.toString(b.shape()));
        }
        Tensor y = context.output(0, a.shape());
        long n = a.elementCount();
        for (long i = 0; i < n; i++) {
            y.data().setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, add(a.data().getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i),
                    b.data().getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i)));
        }
    }
}
