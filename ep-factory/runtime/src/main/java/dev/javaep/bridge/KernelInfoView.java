package dev.javaep.bridge;

import dev.javaep.ort.OrtApi;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.KernelInfo;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * {@link KernelInfo} over ORT's {@code OrtKernelInfo}, valid during one kernel-create call: ORT's info
 * belongs to the kernel ORT is creating, so the view refuses to be read once the call returns.
 */
final class KernelInfoView implements KernelInfo {
    /** {@code ONNX_TYPE_TENSOR}. */
    private static final int ONNX_TYPE_TENSOR = 1;

    private final OrtApi api;
    private final MemorySegment info;
    private volatile boolean valid = true;

    KernelInfoView(OrtApi api, MemorySegment info) {
        this.api = api;
        this.info = info;
    }

    /** Ends the view: ORT's info is not the kernel's to keep. */
    void invalidate() {
        valid = false;
    }

    private MemorySegment info() {
        if (!valid) {
            throw new IllegalStateException("javaep: a KernelInfo is valid only while OpKernel.Factory.create runs; "
                    + "copy what the kernel needs during create");
        }
        return info;
    }

    @Override
    public String nodeName() {
        return api.kernelInfoNodeName(info());
    }

    @Override
    public String opType() {
        return api.kernelInfoOperatorType(info());
    }

    @Override
    public String domain() {
        String domain = api.kernelInfoOperatorDomain(info());
        return domain.equals("ai.onnx") ? "" : domain;
    }

    @Override
    public int sinceVersion() {
        return api.kernelInfoOperatorSinceVersion(info());
    }

    @Override
    public int inputCount() {
        return Math.toIntExact(api.kernelInfoInputCount(info()));
    }

    @Override
    public int outputCount() {
        return Math.toIntExact(api.kernelInfoOutputCount(info()));
    }

    @Override
    public ElementType inputType(int index) {
        checkIndex(index, inputCount(), "input");
        return elementType(api.kernelInfoInputTypeInfo(info(), index));
    }

    @Override
    public ElementType outputType(int index) {
        checkIndex(index, outputCount(), "output");
        return elementType(api.kernelInfoOutputTypeInfo(info(), index));
    }

    private static void checkIndex(int index, int count, String what) {
        if (index < 0 || index >= count) {
            throw new IndexOutOfBoundsException("the node has " + count + " " + what + "s; no " + what + " " + index);
        }
    }

    /** The tensor element type of a type info ORT created for us, which this releases. */
    private ElementType elementType(MemorySegment typeInfo) {
        try {
            if (api.onnxType(typeInfo) != ONNX_TYPE_TENSOR) {
                return ElementType.UNDEFINED;
            }
            int value = api.tensorElementType(api.castToTensorInfo(typeInfo));
            // A type a newer ORT added after javaep's ElementType is one no javaep kernel handles.
            return value >= 0 && value < ElementType.values().length ? ElementType.fromOnnx(value) : ElementType.UNDEFINED;
        } finally {
            api.releaseTypeInfo(typeInfo);
        }
    }

    @Override
    public long intAttribute(String name, long defaultValue) {
        return api.kernelInfoAttributeInt64(info(), name).orElse(defaultValue);
    }

    @Override
    public float floatAttribute(String name, float defaultValue) {
        return api.kernelInfoAttributeFloat(info(), name).orElse(defaultValue);
    }

    @Override
    public String stringAttribute(String name, String defaultValue) {
        return api.kernelInfoAttributeString(info(), name).orElse(defaultValue);
    }

    @Override
    public List<Long> intsAttribute(String name, List<Long> defaultValue) {
        return api.kernelInfoAttributeInt64s(info(), name).map(GraphReader::boxLongs).orElse(defaultValue);
    }

    @Override
    public List<Float> floatsAttribute(String name, List<Float> defaultValue) {
        return api.kernelInfoAttributeFloats(info(), name).map(GraphReader::boxFloats).orElse(defaultValue);
    }
}
