package dev.javaep.harness.onnx;

/**
 * Field numbers and enum values of the onnx.proto messages javaep reads and writes, in one place
 * (the protobuf equivalent of an ABI table). Names follow onnx/onnx.proto.
 */
final class OnnxSchema {
    private OnnxSchema() {}

    static final class ModelProto {
        static final int IR_VERSION = 1;
        static final int PRODUCER_NAME = 2;
        static final int GRAPH = 7;
        static final int OPSET_IMPORT = 8;
    }

    static final class OperatorSetIdProto {
        static final int DOMAIN = 1;
        static final int VERSION = 2;
    }

    static final class GraphProto {
        static final int NODE = 1;
        static final int NAME = 2;
        static final int INITIALIZER = 5;
        static final int INPUT = 11;
        static final int OUTPUT = 12;
    }

    static final class NodeProto {
        static final int INPUT = 1;
        static final int OUTPUT = 2;
        static final int NAME = 3;
        static final int OP_TYPE = 4;
        static final int ATTRIBUTE = 5;
        static final int DOMAIN = 7;
    }

    static final class AttributeProto {
        static final int NAME = 1;
        static final int F = 2;
        static final int I = 3;
        static final int S = 4;
        static final int T = 5;
        static final int G = 6;
        static final int FLOATS = 7;
        static final int INTS = 8;
        static final int STRINGS = 9;
        static final int TYPE = 20;

        // AttributeProto.AttributeType
        static final int TYPE_UNDEFINED = 0;
        static final int TYPE_FLOAT = 1;
        static final int TYPE_INT = 2;
        static final int TYPE_STRING = 3;
        static final int TYPE_TENSOR = 4;
        static final int TYPE_GRAPH = 5;
        static final int TYPE_FLOATS = 6;
        static final int TYPE_INTS = 7;
        static final int TYPE_STRINGS = 8;
        static final int TYPE_GRAPHS = 10;
    }

    static final class ValueInfoProto {
        static final int NAME = 1;
        static final int TYPE = 2;
    }

    static final class TypeProto {
        static final int TENSOR_TYPE = 1;
    }

    static final class TypeProtoTensor {
        static final int ELEM_TYPE = 1;
        static final int SHAPE = 2;
    }

    static final class TensorShapeProto {
        static final int DIM = 1;
    }

    static final class Dimension {
        static final int DIM_VALUE = 1;
        static final int DIM_PARAM = 2;
    }

    static final class StringStringEntryProto {
        static final int KEY = 1;
        static final int VALUE = 2;
    }

    static final class TensorProto {
        static final int DIMS = 1;
        static final int DATA_TYPE = 2;
        static final int SEGMENT = 3;
        static final int FLOAT_DATA = 4;
        static final int INT32_DATA = 5;
        static final int STRING_DATA = 6;
        static final int INT64_DATA = 7;
        static final int NAME = 8;
        static final int RAW_DATA = 9;
        static final int DOUBLE_DATA = 10;
        static final int UINT64_DATA = 11;
        static final int EXTERNAL_DATA = 13;
        static final int DATA_LOCATION = 14;

        // TensorProto.DataLocation
        static final int LOCATION_EXTERNAL = 1;
    }

    /** ORT's OrtOpAttrType values, for {@link dev.javaep.spi.Attribute.Other} (its numbering differs from ONNX's). */
    static final class OrtOpAttrType {
        static final int UNDEFINED = 0;
        static final int STRINGS = 6;
        static final int GRAPH = 7;
        static final int TENSOR = 8;
    }
}
