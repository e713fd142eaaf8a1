#!/usr/bin/env python3
"""Generates the Java slot enums (dev.javaep.ort.OrtApiSlot, OrtEpApiSlot, OrtInteropApiSlot) from the slot tables in
docs/reference/*.tsv (index, name, C signature; transcribed from ORT's public API-30 headers and
cross-checked against ORT's own static_asserts, see docs/reference/README.md).

Only the slots javaep binds are emitted (the USED lists below): add a name there and rerun
  python3 tools/gen_slots.py
The test OrtSlotTablesTest checks the enums against the TSVs again at build time."""
import re, sys, pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "ep-factory/runtime/src/main/java/dev/javaep/ort"

# The API version that added each OrtApi slot range (ORT's "End of Version N" static_asserts).
ORTAPI_VERSIONS = [(101, 1), (118, 2), (124, 3), (126, 4), (149, 5), (157, 6), (161, 7), (169, 8), (191, 9),
                   (203, 10), (209, 11), (218, 12), (224, 13), (238, 14), (254, 15), (265, 16), (275, 17),
                   (279, 18), (284, 20), (317, 22), (389, 23), (414, 24),
                   # 415..422: added between 25 and 28, exact split unknown: assume the newest.
                   (422, 28), (423, 28), (424, 29), (425, 30)]
EPAPI_VERSIONS = [(1, 22), (15, 23), (49, 24), (72, 25), (73, 29)]
# interop_api.cc static_asserts: SignalSemaphore == 10 "version 24", DeinitGraphicsInteropForEpDevice == 12 "version 25".
INTEROPAPI_VERSIONS = [(10, 24), (12, 25)]

ORTAPI_USED = """
CreateStatus GetErrorCode GetErrorMessage CreateEnv CreateSession CreateSessionFromArray Run CreateSessionOptions
SetSessionGraphOptimizationLevel SetIntraOpNumThreads SessionGetInputCount SessionGetOutputCount SessionGetInputName
SessionGetOutputName CreateRunOptions CreateTensorAsOrtValue CreateTensorWithDataAsOrtValue IsTensor
GetTensorMutableData CastTypeInfoToTensorInfo GetOnnxTypeFromTypeInfo GetTensorElementType GetDimensionsCount
GetDimensions GetTensorShapeElementCount GetTensorTypeAndShape GetValueType CreateMemoryInfo CreateCpuMemoryInfo
CompareMemoryInfo MemoryInfoGetName MemoryInfoGetId MemoryInfoGetMemType MemoryInfoGetType AllocatorAlloc
AllocatorFree AllocatorGetInfo GetAllocatorWithDefaultOptions KernelContext_GetInputCount KernelContext_GetOutputCount
KernelContext_GetInput KernelContext_GetOutput ReleaseEnv ReleaseStatus ReleaseMemoryInfo ReleaseSession ReleaseValue
ReleaseRunOptions ReleaseTypeInfo ReleaseTensorTypeAndShapeInfo ReleaseSessionOptions AddSessionConfigEntry
RunWithBinding CreateIoBinding ReleaseIoBinding BindInput BindOutput BindOutputToDevice GetBoundOutputValues
ClearBoundInputs ClearBoundOutputs KernelContext_GetGPUComputeStream GetTensorMemoryInfo SynchronizeBoundInputs
SynchronizeBoundOutputs MemoryInfoGetDeviceType Logger_LogMessage Logger_GetLoggingSeverityLevel ReadOpAttr
GetValueInfoName GetValueInfoTypeInfo CreateKeyValuePairs AddKeyValuePair GetKeyValue GetKeyValuePairs
ReleaseKeyValuePairs RegisterExecutionProviderLibrary UnregisterExecutionProviderLibrary GetEpDevices
SessionOptionsAppendExecutionProvider_V2 HardwareDevice_Type HardwareDevice_VendorId HardwareDevice_Vendor
HardwareDevice_DeviceId HardwareDevice_Metadata EpDevice_EpName EpDevice_EpVendor EpDevice_EpMetadata
EpDevice_EpOptions EpDevice_Device GetEpApi GetTensorSizeInBytes CreateMemoryInfo_V2 MemoryInfoGetDeviceMemType
MemoryInfoGetVendorId ValueInfo_GetInitializerValue ValueInfo_IsConstantInitializer Graph_GetName Graph_GetNumInputs
Graph_GetInputs Graph_GetNumOutputs Graph_GetOutputs Graph_GetNumInitializers Graph_GetInitializers Graph_GetNumNodes
Graph_GetNodes Node_GetName Node_GetOperatorType Node_GetDomain Node_GetSinceVersion Node_GetNumInputs Node_GetInputs
Node_GetNumOutputs Node_GetOutputs Node_GetNumAttributes Node_GetAttributes Node_GetAttributeByName OpAttr_GetType
OpAttr_GetName EpDevice_MemoryInfo SessionGetMemoryInfoForInputs SessionGetMemoryInfoForOutputs
SessionGetEpDeviceForInputs CreateSyncStreamForEpDevice SyncStream_GetHandle ReleaseSyncStream CopyTensors
GetSessionOptionsConfigEntries GetTensorData TensorTypeAndShape_HasShape GetInteropApi SessionGetEpDeviceForOutputs
GetNumHardwareDevices GetHardwareDevices RunOptionsSetSyncStream GetTensorElementTypeAndShapeDataReference
KernelContext_GetSyncStream CreateAllocator ReleaseAllocator GetSharedAllocator KernelContext_GetAllocator
CreateTensorWithDataAndDeleterAsOrtValue RunOptionsSetRunTag Node_GetNumImplicitInputs Node_GetImplicitInputs
Node_GetNumSubgraphs Node_GetSubgraphs Node_GetEpName Graph_GetNumOperatorSets Graph_GetOperatorSets
OpAttr_GetTensorAttributeAsOrtValue EnableProfiling SessionEndProfiling Graph_GetParentNode KernelInfo_GetInputCount KernelInfo_GetOutputCount KernelInfo_GetInputTypeInfo
KernelInfo_GetOutputTypeInfo KernelInfo_GetNodeName KernelInfo_GetOperatorDomain KernelInfo_GetOperatorType
KernelInfo_GetOperatorSinceVersion KernelInfoGetAttribute_float KernelInfoGetAttribute_int64
KernelInfoGetAttribute_string KernelInfoGetAttributeArray_float KernelInfoGetAttributeArray_int64
""".split()

EPAPI_USED = """
CreateEpDevice ReleaseEpDevice EpGraphSupportInfo_AddNodesToFuse EpGraphSupportInfo_AddSingleNode
NodeComputeContext_NodeName EpDevice_AddAllocatorInfo MemoryInfo_GetMemoryDevice Value_GetMemoryDevice
MemoryDevice_AreEqual MemoryDevice_GetDeviceType MemoryDevice_GetMemoryType MemoryDevice_GetVendorId
MemoryDevice_GetDeviceId SyncStream_GetImpl SyncStream_GetSyncId CreateHardwareDevice ReleaseHardwareDevice
GetEnvConfigEntries GetSyncIdForLastWaitOnSyncStream EpGraphSupportInfo_LookUpKernel
CreateKernelRegistry ReleaseKernelRegistry KernelRegistry_AddKernel CreateKernelDefBuilder ReleaseKernelDefBuilder
KernelDefBuilder_SetOperatorType KernelDefBuilder_SetDomain KernelDefBuilder_SetSinceVersion
KernelDefBuilder_SetExecutionProvider KernelDefBuilder_SetInputMemType KernelDefBuilder_SetOutputMemType
KernelDefBuilder_AddTypeConstraint KernelDefBuilder_Build ReleaseKernelDef GetTensorDataType
CreateProfilingEvent ReleaseProfilingEvent ProfilingEventsContainer_AddEvents
""".split()

INTEROPAPI_USED = """
CreateExternalResourceImporterForDevice ReleaseExternalResourceImporter CanImportMemory ImportMemory
ReleaseExternalMemoryHandle CreateTensorFromMemory CanImportSemaphore ImportSemaphore ReleaseExternalSemaphoreHandle
WaitSemaphore SignalSemaphore
""".split()

ENUMS = {"OrtErrorCode", "OrtProfilingEventCategory", "OrtLoggingLevel", "ONNXTensorElementDataType", "OrtAllocatorType", "OrtMemType",
         "OrtMemoryInfoDeviceType", "OrtDeviceMemoryType", "OrtHardwareDeviceType", "OrtOpAttrType", "ONNXType",
         "GraphOptimizationLevel", "ExecutionMode", "OrtExternalMemoryHandleType", "OrtExternalSemaphoreType"}
SCALARS = {"size_t": "SIZE_T", "int64_t": "INT64", "uint64_t": "UINT64", "int": "INT", "int32_t": "INT",
           "uint32_t": "UINT32", "bool": "BOOL", "float": "FLOAT"}


def since(index, table):
    for last, version in table:
        if index <= last:
            return version
    raise SystemExit(f"no version for slot {index}")


def split_params(params):
    depth, cur, out = 0, "", []
    for ch in params:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return [] if out == ["void"] else out


def layout(ctype, is_return=False):
    t = ctype.replace("const ", "").replace("enum ", "").strip()
    if "*" in t or "[" in t:
        return "STATUS" if is_return and t.replace(" ", "") == "OrtStatus*" else "POINTER"
    if t in SCALARS:
        return SCALARS[t]
    if t in ENUMS:
        return "ENUM"
    # Function-pointer typedefs: OrtXxxFn, OrtLoggingFunction, OrtKernelCreateFunc.
    if t.startswith("Ort") and (t.endswith("Fn") or t.endswith("Func")) or t == "OrtLoggingFunction":
        return "POINTER"
    raise SystemExit(f"unmapped C type '{ctype}'")


def param_type(param):
    # Drop the parameter name (last identifier) unless the parameter is an unnamed type.
    p = re.sub(r"\[\s*\]$", "*", param.strip())
    m = re.match(r"^(.*?[\s\*])([A-Za-z_]\w*)(\s*\[\s*\w*\s*\])?$", p)
    if not m:
        raise SystemExit(f"cannot parse parameter '{param}'")
    return m.group(1) + ("*" if m.group(3) else "")


def generate(tsv, used, versions, enum_name, table_c_name, doc):
    rows = {}
    for line in (ROOT / tsv).read_text().splitlines():
        idx, name, sig = line.split("\t")
        rows[name] = (int(idx), sig)
    missing = [n for n in used if n not in rows]
    if missing:
        raise SystemExit(f"not in {tsv}: {missing}")
    lines = []
    for name in sorted(used, key=lambda n: rows[n][0]):
        idx, sig = rows[name]
        m = re.match(r"^(.*?)\s*\b" + re.escape(name) + r"\((.*)\)$", sig)
        ret, params = m.group(1), m.group(2)
        args = [layout(param_type(p)) for p in split_params(params)]
        if ret.strip() == "void":
            desc = "FunctionDescriptor.ofVoid(" + ", ".join(args) + ")"
        else:
            desc = "FunctionDescriptor.of(" + ", ".join([layout(ret, True)] + args) + ")"
        lines.append(f"    /** {sig} */\n    {name}({idx}, {since(idx, versions)}, {desc}),")
    lines[-1] = lines[-1][:-1] + ";"
    body = "\n".join(lines)
    src = f"""package dev.javaep.ort;

import static dev.javaep.ort.CTypes.*;

import java.lang.foreign.FunctionDescriptor;

/**
 * {doc}
 *
 * <p>GENERATED by tools/gen_slots.py from {tsv}; do not edit by hand.
 */
public enum {enum_name} implements FunctionSlot {{
{body}

    private final int index;
    private final int since;
    private final FunctionDescriptor descriptor;

    {enum_name}(int index, int since, FunctionDescriptor descriptor) {{
        this.index = index;
        this.since = since;
        this.descriptor = descriptor;
    }}

    @Override public int index() {{ return index; }}
    @Override public int since() {{ return since; }}
    @Override public FunctionDescriptor descriptor() {{ return descriptor; }}

    /** Number of pointers javaep reads from the {table_c_name} table (up to the highest slot declared here). */
    public static int tableLength() {{
        int max = 0;
        for ({enum_name} slot : values()) {{
            max = Math.max(max, slot.index);
        }}
        return max + 1;
    }}
}}
"""
    (OUT / f"{enum_name}.java").write_text(src)


generate("docs/reference/ortapi-slots.tsv", ORTAPI_USED, ORTAPI_VERSIONS, "OrtApiSlot", "OrtApi",
         "The slots of {@code struct OrtApi} (onnxruntime_c_api.h) that javaep calls.")
generate("docs/reference/ortepapi-slots.tsv", EPAPI_USED, EPAPI_VERSIONS, "OrtEpApiSlot", "OrtEpApi",
         "The slots of {@code struct OrtEpApi} (onnxruntime_ep_c_api.h) that javaep calls.")
generate("docs/reference/ortinteropapi-slots.tsv", INTEROPAPI_USED, INTEROPAPI_VERSIONS, "OrtInteropApiSlot",
         "OrtInteropApi", "The slots of {@code struct OrtInteropApi} (onnxruntime_c_api.h, API 24) that javaep calls.")
print("generated OrtApiSlot, OrtEpApiSlot, OrtInteropApiSlot")
