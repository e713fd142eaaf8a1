package dev.javaep.spi;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One per-op kernel an EP registers with ORT's kernel registry: which op, domain and opset versions
 * it implements, its type constraints, where its inputs and outputs live, and how to create it for a
 * node.
 *
 * @param domain          {@code ""} for the ONNX domain
 * @param sinceVersion    the first opset version of the op this kernel implements
 * @param lastVersion     the last one, inclusive. Ops change meaning between versions (Clip-11 moved min and
 *                        max to inputs), so a kernel names the versions whose spec it implements, and a node
 *                        of a newer version is declined until someone adds it; "every later version" is
 *                        refused (ORT itself matches an open-ended kernel to its first version only)
 * @param typeConstraints type-constraint name (as in the op schema, e.g. "T") → the element types allowed
 * @param hostInputs      input indices the kernel reads from host memory (ORT copies them there; on a
 *                        device EP, e.g. MemcpyFromHost's input 0 or a shape input)
 * @param hostOutputs     output indices the kernel writes to host memory (MemcpyToHost's output 0)
 * @param factory         creates the kernel for one node at session initialization
 */
public record KernelDefinition(String opType, String domain, int sinceVersion, int lastVersion,
                               Map<String, Set<ElementType>> typeConstraints, Set<Integer> hostInputs,
                               Set<Integer> hostOutputs, OpKernel.Factory factory) {
    public KernelDefinition {
        if (opType == null || opType.isEmpty()) {
            throw new IllegalArgumentException("a kernel definition needs an op type");
        }
        if (sinceVersion < 1 || lastVersion < sinceVersion) {
            throw new IllegalArgumentException(opType + ": opset versions " + sinceVersion + ".." + lastVersion);
        }
        if (lastVersion == Integer.MAX_VALUE) {
            throw new IllegalArgumentException(opType + ": name the last opset version the kernel implements, not "
                    + "Integer.MAX_VALUE: a later version of the op may mean something else");
        }
        domain = domain == null ? "" : domain;
        typeConstraints = Map.copyOf(typeConstraints);
        typeConstraints.forEach((k, v) -> {
            if (v.isEmpty()) {
                throw new IllegalArgumentException(opType + ": type constraint " + k + " allows no type");
            }
        });
        hostInputs = Set.copyOf(hostInputs);
        hostOutputs = Set.copyOf(hostOutputs);
        if (factory == null) {
            throw new IllegalArgumentException(opType + ": a kernel definition needs a factory");
        }
    }

    /** A kernel on the EP's own memory for every input and output. */
    public static KernelDefinition of(String opType, int sinceVersion, int lastVersion,
                                      Map<String, Set<ElementType>> typeConstraints, OpKernel.Factory factory) {
        return new KernelDefinition(opType, "", sinceVersion, lastVersion, typeConstraints, Set.of(), Set.of(), factory);
    }

    /** Whether this definition covers {@code node}'s op, domain and opset version. */
    public boolean covers(Node node) {
        String nodeDomain = node.isOnnxDomain() ? "" : node.domain();
        return opType.equals(node.opType()) && domain.equals(nodeDomain)
                && node.sinceVersion() >= sinceVersion && node.sinceVersion() <= lastVersion;
    }

    /**
     * Every fixed-size element type ORT has tensors of: what copy kernels accept (the complex types have a
     * size but no ORT tensors; a type the running ORT lacks is left out of the registered constraint).
     */
    public static Set<ElementType> allFixedSizeTypes() {
        return java.util.EnumSet.copyOf(List.of(ElementType.values()).stream()
                .filter(t -> t.byteSize() > 0 && t != ElementType.COMPLEX64 && t != ElementType.COMPLEX128).toList());
    }
}
