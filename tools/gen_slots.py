#!/usr/bin/env python3
"""Generates javaep's declaration of ORT's C ABI from the tables in docs/reference/ (transcribed from ORT's public
API-30 headers; GeneratedDeclarationCrossCheckTest compares them with a declaration generated from ORT's headers):

- the slot enums dev.javaep.ort.OrtApiSlot, OrtEpApiSlot, OrtInteropApiSlot (the functions javaep calls) from
  ortapi-slots.tsv, ortepapi-slots.tsv, ortinteropapi-slots.tsv (index, name, C signature). Only the slots javaep
  binds are emitted (the USED lists below): add a name there and rerun.
- the callback-struct enums dev.javaep.ort.Ort*Struct (the structs the EP fills and ORT calls) and their members'
  offsets and C signatures, CallbackStructMembers, from callback-structs.tsv (struct, byte offset, since-version,
  C signature). Every member is emitted: the EP allocates the whole struct.
- the C header of the conformance kit's C gallery, test-harness/integration-tests/src/test/c/gallery/ort_plugin_abi.h,
  from the same tables (generate_c_header below).

  python3 tools/gen_slots.py

OrtSlotTablesTest fails when a generated file is out of date with its table."""
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
# The API version of the headers the tables are transcribed from: the newest version whose table lengths are known.
HEADER_VERSION = 30
# Slots whose version is a guess (ORTAPI_VERSIONS above): (last index, the earliest version that may have them). A table
# copy at a version in the guess's range takes them too (copying a pointer ORT does not have reads past ORT's table, in
# its data; leaving out one it has would give the caller garbage).
ORTAPI_UNCERTAIN = [(422, 25)]
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
KernelInfoGetAttribute_string KernelInfoGetAttributeArray_float KernelInfoGetAttributeArray_int64 GetRunConfigEntry
AddRunConfigEntry
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
CreateProfilingEvent ReleaseProfilingEvent ProfilingEventsContainer_AddEvents KernelInfo_GetEp
""".split()

INTEROPAPI_USED = """
CreateExternalResourceImporterForDevice ReleaseExternalResourceImporter CanImportMemory ImportMemory
ReleaseExternalMemoryHandle CreateTensorFromMemory CanImportSemaphore ImportSemaphore ReleaseExternalSemaphoreHandle
WaitSemaphore SignalSemaphore
""".split()

ENUMS = {"OrtEpDataLayout", "OrtCompiledModelCompatibility", "OrtGraphCaptureNodeAssignmentPolicy",
         "OrtWeightlessSupport", "OrtErrorCode", "OrtProfilingEventCategory", "OrtLoggingLevel", "ONNXTensorElementDataType", "OrtAllocatorType", "OrtMemType",
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


def descriptor(name, sig):
    """The FFM FunctionDescriptor of a C signature 'ret name(params)', in CTypes' names."""
    m = re.match(r"^(.*?)\s*\b" + re.escape(name) + r"\((.*)\)$", sig)
    if not m:
        raise SystemExit(f"cannot read the signature of {name}: '{sig}'")
    ret, params = m.group(1), m.group(2)
    args = [layout(param_type(p)) for p in split_params(params)]
    if ret.strip() == "void":
        return "FunctionDescriptor.ofVoid(" + ", ".join(args) + ")"
    return "FunctionDescriptor.of(" + ", ".join([layout(ret, True)] + args) + ")"


def slot_rows(tsv, used):
    """name -> (index, C signature) of every row of tsv; fails when a name in used is not there."""
    rows = {}
    for line in (ROOT / tsv).read_text().splitlines():
        idx, name, sig = line.split("\t")
        rows[name] = (int(idx), sig)
    missing = [n for n in used if n not in rows]
    if missing:
        raise SystemExit(f"not in {tsv}: {missing}")
    return rows


def slots_at(versions, uncertain):
    """The number of slots the table has at each API version 0..HEADER_VERSION (0 before the table existed)."""
    counts = []
    for v in range(HEADER_VERSION + 1):
        lasts = [last for last, since_version in versions + uncertain if since_version <= v]
        counts.append(max(lasts) + 1 if lasts else 0)
    return counts


def generate(tsv, used, versions, enum_name, table_c_name, doc, uncertain=()):
    rows = slot_rows(tsv, used)
    lines = []
    for name in sorted(used, key=lambda n: rows[n][0]):
        idx, sig = rows[name]
        desc = descriptor(name, sig)
        lines.append(f"    /** {sig} */\n    {name}({idx}, {since(idx, versions)}, {desc}),")
    lines[-1] = lines[-1][:-1] + ";"
    table_length = max(rows[name][0] for name in used) + 1
    counts = ", ".join(str(c) for c in slots_at(versions, list(uncertain)))
    body = "\n".join(lines)
    src = f"""package dev.javaep.ort;

import static dev.javaep.ort.CTypes.*;

import java.lang.foreign.FunctionDescriptor;

/**
 * {doc}
 *
 * <p>GENERATED by tools/gen_slots.py from {tsv}; do not edit by hand.
 */
public enum {enum_name} implements FunctionSlot.Declared {{
{body}

    private final Declaration declaration;

    {enum_name}(int index, int since, FunctionDescriptor descriptor) {{
        declaration = new Declaration(index, since, descriptor);
    }}

    @Override public Declaration declaration() {{ return declaration; }}

    /** Number of pointers javaep reads from the {table_c_name} table (up to the highest slot declared here). */
    public static int tableLength() {{ return {table_length}; }}

    /** The number of slots ORT's {table_c_name} has at each API version, by version (0: none, or not known). */
    private static final int[] SLOTS_AT = {{{counts}}};

    /**
     * The number of slots ORT's {table_c_name} table has at API {{@code version}} (all of them, not only those declared
     * here): what a copy of the table ORT answers for that version must take; 0 when the version is newer than the
     * tables javaep knows (API {HEADER_VERSION}) or the table did not exist yet.
     */
    public static int slotsAt(int version) {{
        return version >= 0 && version < SLOTS_AT.length ? SLOTS_AT[version] : 0;
    }}
}}
"""
    (OUT / f"{enum_name}.java").write_text(src)


# ---- the callback structs -------------------------------------------------------------------------------------

STRUCTS_TSV = "docs/reference/callback-structs.tsv"

# What javaep says of a struct beyond its table rows, for its Javadoc. Which header declares a struct and the API
# that added it follow from the table (OrtAllocator is onnxruntime_c_api.h's, the others onnxruntime_ep_c_api.h's).
STRUCT_DOCS = {
    "OrtAllocator": """The version field is {@code version}; every other struct here calls it
        {@code ort_version_supported}.""",
    "OrtExternalMemoryHandle": """A base struct the EP embeds at the start of its own handle; its data fields are
        {@link OrtInteropLayouts#MEMORY_HANDLE}. ORT's {@code OrtInteropApi::ReleaseExternalMemoryHandle} only calls
        {@code handle->Release(handle)}.""",
    "OrtExternalSemaphoreHandle": """Like {@link OrtExternalMemoryHandleStruct}, for semaphores: its data fields
        are {@link OrtInteropLayouts#SEMAPHORE_HANDLE}.""",
    "OrtExternalResourceImporterImpl": """ORT core never calls {@link #ReleaseMemory}/{@link #ReleaseSemaphore}
        (apps release handles through {@code handle->Release}); they are filled all the same, as ORT's own EPs do.""",
    "OrtKernelImpl": """The leading 8 bytes are {@code uint32_t ort_version_supported} and {@code uint32_t flags},
        which the EP must leave 0 (ORT uses it internally). ORT owns a kernel once the kernel-create function returned
        it, and calls {@code Release} when the session drops the kernel.""",
    "OrtEpProfilerImpl": """ORT gets it from {@code OrtEp::CreateProfiler} when a session profiles, and calls
        {@code Release} when it no longer needs it.""",
}

# What SIZE means, where that needs saying beyond "sizeof at API 30" (SIZE is the last member's offset + 8).
SIZE_DOCS = {
    "OrtExternalMemoryHandle": "EP-private fields may follow.",
    "OrtExternalSemaphoreHandle": "EP-private fields may follow.",
    "OrtEpFactory": "Always allocate all of it: ORT 1.25+ reads InitGraphicsInterop without a version check.",
}

# Constants a struct's enum declares beside SIZE.
EXTRA_CONSTANTS = {
    "OrtKernelImpl": """
    /** Byte offset of {@code uint32_t flags}, which must stay 0. */
    public static final long FLAGS_OFFSET = 4;
""",
}

# javaep's notes on single members, after the C signature in the member's Javadoc.
NOTES = {
    "OrtEpFactory.CreateDataTransfer": "May set {@code *data_transfer} to NULL.",
    "OrtEpFactory.CreateExternalResourceImporterForDevice": "NULL in {@code *out_importer} means unsupported.",
    "OrtEp.Sync": "Blocks until the EP's device work is done (IoBinding input sync).",
    "OrtSyncStreamImpl.GetHandle": "The native stream (a CUstream for CUDA); what {@code OrtApi::SyncStream_GetHandle} "
                                   "returns to apps.",
    "OrtExternalResourceImporterImpl.Release": "ORT calls it when the app releases its "
                                               "{@code OrtExternalResourceImporter}.",
    "OrtKernelImpl.PrePackWeight": "Optional.",
    "OrtKernelImpl.SetSharedPrePackedWeight": "Optional.",
    "OrtEpProfilerImpl.StartEvent": "Optional.",
    "OrtEpProfilerImpl.StopEvent": "Optional.",
}

GENERATED_FROM = f"<p>GENERATED by tools/gen_slots.py from {STRUCTS_TSV}; do not edit by hand."


def enum_name(struct):
    return struct + "Struct"


def struct_rows():
    """struct -> [(name, byte offset, since, C signature)] in table (= offset) order."""
    rows = {}
    for line in (ROOT / STRUCTS_TSV).read_text().splitlines():
        struct, offset, since_version, sig = line.split("\t")
        name = re.match(r"^.*?\b(\w+)\(", sig).group(1)
        rows.setdefault(struct, []).append((name, int(offset), int(since_version), sig))
    for struct, members in rows.items():
        offsets = [m[1] for m in members]
        if offsets != sorted(set(offsets)):
            raise SystemExit(f"{STRUCTS_TSV}: {struct}'s members are not in offset order")
    return rows


def generate_structs():
    rows = struct_rows()
    entries = []
    for struct, members in rows.items():
        size = members[-1][1] + 8
        constants = []
        for name, offset, since_version, sig in members:
            note = NOTES.pop(f"{struct}.{name}", None)
            doc = f"{{@code {sig}}}: at byte {offset}, since API {since_version}." + (f" {note}" if note else "")
            constants.append(f"    /** {doc} */\n    {name}")
            entries.append(f"            member({enum_name(struct)}.{name}, {offset}, {since_version}, "
                           f"{descriptor(name, sig)})")
        body = ",\n".join(constants) + ";"
        what = f"{{@code struct {struct}}}" if members[0][1] == 8 else f"The callback of {{@code struct {struct}}}"
        header = "onnxruntime_c_api.h" if struct == "OrtAllocator" else "onnxruntime_ep_c_api.h"
        doc = f"{what} ({header}, since API {members[0][2]}), {size} bytes. {STRUCT_DOCS.get(struct, '')}".strip()
        size_doc = f"sizeof({struct}) at API 30. {SIZE_DOCS.get(struct, '')}".strip()
        extra = EXTRA_CONSTANTS.get(struct, "").lstrip("\n")
        src = f"""package dev.javaep.ort;

/**
 * {wrap(doc)}
 *
 * <p>Each constant is one function-pointer member, named as in C; its Javadoc gives the member's C signature, byte
 * offset and since-version, which the code reads from {{@code CallbackStructMembers}}.
 *
 * {GENERATED_FROM}
 */
public enum {enum_name(struct)} implements CallbackSlot {{
{body}

    /** {size_doc} */
    public static final long SIZE = {size};
{extra}}}
"""
        (OUT / f"{enum_name(struct)}.java").write_text(src)
    if NOTES:
        raise SystemExit(f"NOTES for members not in {STRUCTS_TSV}: {list(NOTES)}")
    table = ",\n".join(entries)
    src = f"""package dev.javaep.ort;

import static dev.javaep.ort.CTypes.*;

import dev.javaep.ort.CallbackSlot.Member;
import java.lang.foreign.FunctionDescriptor;
import java.util.Map;

/**
 * Where each member of the callback structs ({{@code Ort*Struct}}) sits and what it is: its byte offset, the API
 * version that added it, and its C signature as FFM layouts.
 *
 * {GENERATED_FROM}
 */
final class CallbackStructMembers {{
    private static final Map<CallbackSlot, Member> MEMBERS = Map.ofEntries(
{table});

    private CallbackStructMembers() {{}}

    static Member lookup(CallbackSlot slot) {{
        Member member = MEMBERS.get(slot);
        if (member == null) {{
            throw new IllegalStateException(slot + " is not a member of a struct in {STRUCTS_TSV}");
        }}
        return member;
    }}

    private static Map.Entry<CallbackSlot, Member> member(CallbackSlot slot, long byteOffset, int since,
                                                          FunctionDescriptor descriptor) {{
        return Map.entry(slot, new Member(byteOffset, since, descriptor));
    }}
}}
"""
    (OUT / "CallbackStructMembers.java").write_text(src)


def wrap(text, width=116):
    """Javadoc text wrapped at width, continuation lines starting ' * '."""
    out, line = [], ""
    for paragraph in text.split("\n * "):
        # An inline tag ({@code x}, {@link y}) stays on one line.
        for word in re.findall(r"\{@\w+ [^}]*\}\S*|\S+", paragraph):
            if line and len(line) + 1 + len(word) > width - 3:
                out.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        out.append(line)
        line = ""
    return "\n * ".join(out)


# ---- the C header of the C gallery EPs ------------------------------------------------------------------------
#
# test-harness/integration-tests/src/test/c/gallery/ort_plugin_abi.h declares, from the same tables, what a plugin EP
# written in C needs: the slot index and function-pointer type of each OrtApi / OrtEpApi function it calls (the
# C_USED lists), and every callback struct whose members follow its version field as a real C struct, each member's
# offset and the struct's size checked by _Static_assert against the table. CPluginAbiHeaderTest (integration-tests)
# fails when the header is out of date with its tables.

C_HEADER = ROOT / "test-harness/integration-tests/src/test/c/gallery/ort_plugin_abi.h"

ORTAPI_C_USED = """
CreateStatus ReleaseStatus GetEpApi HardwareDevice_Type Graph_GetNumNodes Graph_GetNodes
Node_GetOperatorType Node_GetDomain Node_GetNumInputs Node_GetInputs Node_GetNumOutputs Node_GetOutputs GetValueInfoTypeInfo
GetOnnxTypeFromTypeInfo CastTypeInfoToTensorInfo GetTensorElementType KernelContext_GetInputCount
KernelContext_GetOutputCount KernelContext_GetInput KernelContext_GetOutput GetTensorElementTypeAndShapeDataReference
GetTensorData GetTensorMutableData CreateMemoryInfo_V2 ReleaseMemoryInfo
""".split()

EPAPI_C_USED = """
CreateEpDevice EpGraphSupportInfo_AddNodesToFuse EpGraphSupportInfo_AddSingleNode EpDevice_AddAllocatorInfo
CreateKernelRegistry ReleaseKernelRegistry KernelRegistry_AddKernel CreateKernelDefBuilder ReleaseKernelDefBuilder
KernelDefBuilder_SetOperatorType KernelDefBuilder_SetDomain KernelDefBuilder_SetSinceVersion
KernelDefBuilder_SetExecutionProvider KernelDefBuilder_AddTypeConstraint KernelDefBuilder_Build ReleaseKernelDef
EpGraphSupportInfo_LookUpKernel GetTensorDataType
""".split()

# The function-pointer typedefs of onnxruntime_ep_c_api.h that the slots above take (the tables list slots, not typedefs).
C_FN_TYPEDEFS = {
    "OrtKernelCreateFunc": "typedef OrtStatus* (ORT_API_CALL *OrtKernelCreateFunc)(void* kernel_create_func_state, "
                           "const OrtKernelInfo* info, OrtKernelImpl** kernel_out);",
}

# The field before a struct's first function pointer (the table lists function pointers only).
C_VERSION_FIELDS = {"OrtAllocator": ["uint32_t version;"],
                    "OrtKernelImpl": ["uint32_t ort_version_supported;", "uint32_t flags; /* ORT's; leave 0 */"]}


def c_signature(sig, name, declarator):
    """A table signature 'ret name(params)' with name replaced by declarator, enum keywords dropped (the enums are
    int typedefs here)."""
    m = re.match(r"^(.*?)\s*\b" + re.escape(name) + r"\((.*)\)$", sig)
    if not m:
        raise SystemExit(f"cannot read the signature of {name}: '{sig}'")
    ret, params = m.group(1).replace("enum ", ""), m.group(2).replace("enum ", "")
    return f"{ret} ({declarator})({params or 'void'})"


def c_slots(tsv, used, versions, prefix):
    rows = slot_rows(tsv, used)
    out = []
    for name in sorted(used, key=lambda n: rows[n][0]):
        idx, sig = rows[name]
        # one line a slot: its function-pointer type and its index
        out.append(f"/* {sig} */\ntypedef {c_signature(sig, name, f'ORT_API_CALL *{prefix}_{name}_fn')}; "
                   f"enum {{ {prefix}_SLOT_{name} = {idx} /* since API {since(idx, versions)} */ }};")
    return out, [rows[n][1] for n in used]


def generate_c_header():
    api_lines, api_sigs = c_slots("docs/reference/ortapi-slots.tsv", ORTAPI_C_USED, ORTAPI_VERSIONS, "OrtApi")
    ep_lines, ep_sigs = c_slots("docs/reference/ortepapi-slots.tsv", EPAPI_C_USED, EPAPI_VERSIONS, "OrtEpApi")
    structs, struct_sigs, skipped = [], [], []
    for struct, members in struct_rows().items():
        if members[0][1] != 8:
            skipped.append(struct)  # data fields of its own before the first function pointer: not in the table
            continue
        fields = [f"  {f}" for f in C_VERSION_FIELDS.get(struct, ["uint32_t ort_version_supported;"])]
        offsets = []
        for name, offset, since_version, sig in members:
            fields.append(f"  /* since API {since_version} */\n  {c_signature(sig, name, f'ORT_API_CALL *{name}')};")
            offsets.append(f"offsetof({struct}, {name}) == {offset}")
            struct_sigs.append(sig)
        size = members[-1][1] + 8
        # one assertion per struct: the members' offsets, then the size, as the table has them
        check = " && ".join(offsets + [f"sizeof({struct}) == {size}"])
        structs.append(f"struct {struct} {{\n" + "\n".join(fields) + "\n};\n"
                       + f"_Static_assert({check}, \"{struct}: members at the table's offsets, {size} bytes at API 30\");")
    defined = set(struct_rows()) - set(skipped)
    opaque = set()
    for sig in api_sigs + ep_sigs + struct_sigs:
        opaque.update(re.findall(r"\b((?:Ort|ONNX)\w+)\b", sig))
    fn_used = sorted(t for t in opaque if t in C_FN_TYPEDEFS)
    for t in fn_used:
        opaque.update(re.findall(r"\b((?:Ort|ONNX)\w+)\b", C_FN_TYPEDEFS[t]))
    enums = sorted(e for e in ENUMS if e in opaque)
    opaque = sorted(opaque - ENUMS - defined - {"OrtApi", "OrtEpApi"} - set(fn_used))
    fn_typedefs = [t for t in opaque if t.endswith("Fn") or t.endswith("Func")]
    if fn_typedefs:
        raise SystemExit(f"function-pointer typedefs the C header cannot declare (add them to C_FN_TYPEDEFS): {fn_typedefs}")
    nl = "\n"
    src = f"""/*
 * ONNX Runtime's plugin-EP ABI as a plugin EP written in C needs it: the OrtApi / OrtEpApi slots the C gallery EPs
 * call (index, since-version, function-pointer type) and the callback structs the EP fills, with each member's
 * offset checked at compile time. ORT's entry struct OrtApiBase and the library's exports are not slots of a
 * table: the EP declares them.
 *
 * GENERATED by tools/gen_slots.py from the tables in docs/reference/; do not edit by hand.
 */
#ifndef JAVAEP_ORT_PLUGIN_ABI_H
#define JAVAEP_ORT_PLUGIN_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef _WIN32
#define ORT_API_CALL __stdcall
#else
#define ORT_API_CALL
#endif

/* ORT's C enums are int-sized: declared as int, their values where the code uses them. */
{nl.join(f"typedef int {e};" for e in enums)}

/* Opaque to the EP. */
typedef struct OrtApi OrtApi;
typedef struct OrtEpApi OrtEpApi;
{nl.join(f"typedef struct {t} {t};" for t in opaque)}

/* The structs declared here. */
{nl.join(f"typedef struct {t} {t};" for t in sorted(defined))}

/* Function-pointer types the slots take. */
{nl.join(C_FN_TYPEDEFS[t] for t in fn_used)}

/* A function of a table: ORT_FN(api, OrtApi, CreateStatus)(code, message). */
#define ORT_FN(table, Table, name) ((Table##_##name##_fn)((void* const*)(const void*)(table))[Table##_SLOT_##name])

/* ---- OrtApi (onnxruntime_c_api.h) ---- */

{nl.join(api_lines)}

/* ---- OrtEpApi (onnxruntime_ep_c_api.h) ---- */

{nl.join(ep_lines)}

/* ---- the callback structs (not here: {", ".join(skipped)}, whose data fields the table does not list) ---- */

{(nl + nl).join(structs)}

#endif
"""
    C_HEADER.write_text(src)


generate("docs/reference/ortapi-slots.tsv", ORTAPI_USED, ORTAPI_VERSIONS, "OrtApiSlot", "OrtApi",
         "The slots of {@code struct OrtApi} (onnxruntime_c_api.h) that javaep calls.", ORTAPI_UNCERTAIN)
generate("docs/reference/ortepapi-slots.tsv", EPAPI_USED, EPAPI_VERSIONS, "OrtEpApiSlot", "OrtEpApi",
         "The slots of {@code struct OrtEpApi} (onnxruntime_ep_c_api.h) that javaep calls.")
generate("docs/reference/ortinteropapi-slots.tsv", INTEROPAPI_USED, INTEROPAPI_VERSIONS, "OrtInteropApiSlot",
         "OrtInteropApi", "The slots of {@code struct OrtInteropApi} (onnxruntime_c_api.h, API 24) that javaep calls.")
generate_structs()
generate_c_header()
print("generated OrtApiSlot, OrtEpApiSlot, OrtInteropApiSlot, " + ", ".join(enum_name(s) for s in struct_rows())
      + ", CallbackStructMembers, " + str(C_HEADER.relative_to(ROOT)))
