/*
 * A minimal plugin EP in plain C11 for the conformance kit's gallery (issue 14: the kit catches bugs in EPs that
 * are not Java). One factory offers ORT's CPU device; each session's EP claims the float Add and Relu nodes, one
 * fused group per node, and computes them through the KernelContext calls (Add broadcasts numpy-style).
 *
 * The same source builds the correct EP and each broken one: -DGALLERY_FAULT=FAULT_<NAME> puts in one fault, and the
 * EP is named after it (build.sh). ORT's ABI comes from ort_plugin_abi.h, generated from docs/reference/.
 *
 * -DGALLERY_KERNEL_REGISTRY=1 builds the other kind of plugin EP: no Compile, but an OrtKernelRegistry (OrtEp::
 * GetKernelRegistry, API 24) with Add and Relu as registered kernels, each node an OrtKernelImpl that ORT creates
 * through the EP's kernel-create function; GetCapability claims the nodes ORT finds a kernel for. Compute is the same.
 */
#include "ort_plugin_abi.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FAULT_NONE 0
#define FAULT_WRONG_ADD 1            /* Add computes a - b */
#define FAULT_CRASH_IN_COMPUTE 2     /* Compute writes through NULL */
#define FAULT_LEAK_PER_SESSION 3     /* CreateEp mallocs 1 MiB it never frees */
#define FAULT_CAPABILITY_ERROR 4     /* GetCapability returns an error status */
#define FAULT_MISALIGNED_ALLOCATOR 5 /* the EP's device allocator returns 64-byte aligned + 1 */
#define FAULT_NOT_THREAD_SAFE 6      /* Compute goes through one static scratch buffer */
#define FAULT_DOUBLE_RELEASE 7       /* ReleaseNodeComputeInfos frees each info twice (kernels: OrtKernelImpl::Release) */
#define FAULT_CYCLE_CLAIM 8          /* GetCapability claims every Add of the graph as one group, whatever lies between */
#define FAULT_BAD_MEMORY_INFO 9      /* the CPU device registers DEFAULT memory of a GPU, with no name */

#ifndef GALLERY_FAULT
#define GALLERY_FAULT FAULT_NONE
#endif
#ifndef GALLERY_KERNEL_REGISTRY
#define GALLERY_KERNEL_REGISTRY 0
#endif
#ifndef GALLERY_EP_NAME
#define GALLERY_EP_NAME "CGalleryExecutionProvider"
#endif

#define GALLERY_EXPORT __attribute__((visibility("default")))

/* The API this EP is written against: ORT 1.24, the oldest javaep supports (GetTensorElementTypeAndShapeDataReference
 * is API 24). Every struct below says so in its version field; the structs are whole all the same (their newer
 * members NULL), as ORT 1.25+ reads OrtEpFactory::InitGraphicsInterop without looking at the version. */
#define GALLERY_API_VERSION 24

/* The values of ORT's C enums this EP uses (onnxruntime_c_api.h). */
enum {
  GALLERY_ORT_INVALID_ARGUMENT = 2,  /* OrtErrorCode */
  GALLERY_ORT_EP_FAIL = 11,
  GALLERY_HW_CPU = 0,                /* OrtHardwareDeviceType_CPU */
  GALLERY_ONNX_TENSOR = 1,           /* ONNX_TYPE_TENSOR */
  GALLERY_FLOAT = 1,                 /* ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT */
  GALLERY_MEMORY_DEVICE_CPU = 0,     /* OrtMemoryInfoDeviceType_CPU */
  GALLERY_MEMORY_DEVICE_GPU = 1,     /* OrtMemoryInfoDeviceType_GPU */
  GALLERY_MEMORY_DEFAULT = 0,        /* OrtDeviceMemoryType_DEFAULT */
  GALLERY_DEVICE_ALLOCATOR = 0       /* OrtDeviceAllocator */
};

#define GALLERY_MAX_RANK 8

/* ORT's entry struct (onnxruntime_c_api.h), the same in every release; not a slot table, so not generated. */
typedef struct OrtApiBase {
  const void* (ORT_API_CALL *GetApi)(uint32_t version);
  const char* (ORT_API_CALL *GetVersionString)(void);
} OrtApiBase;

typedef struct GalleryFactory {
  OrtEpFactory base; /* first: the OrtEpFactory* ORT holds is this struct */
  const OrtApi* api;
  const OrtEpApi* ep_api;
  OrtMemoryInfo* device_memory; /* FAULT_MISALIGNED_ALLOCATOR and FAULT_BAD_MEMORY_INFO only */
} GalleryFactory;

typedef struct GalleryEp {
  OrtEp base;
  void* session_buffer;        /* FAULT_LEAK_PER_SESSION only */
  OrtKernelRegistry* registry; /* GALLERY_KERNEL_REGISTRY only */
} GalleryEp;

typedef enum GalleryOp { GALLERY_ADD, GALLERY_RELU } GalleryOp;

typedef struct GalleryKernel {
  OrtNodeComputeInfo base;
  GalleryOp op;
} GalleryKernel;

static GalleryFactory gallery_factory;
/* How many CreateEpFactories calls have not been released yet. The factory is one static struct, so a second load
 * (the conformance kit's registration.ort-version-supported calls CreateEpFactories beside ORT) must share it, not
 * reset it, and only the last ReleaseEpFactory may free what it holds: ORT still asks the allocator of the first. */
static size_t gallery_factory_users;

#define API(name) ORT_FN(gallery_factory.api, OrtApi, name)
#define EP_API(name) ORT_FN(gallery_factory.ep_api, OrtEpApi, name)
/* Returns the status of an ORT call that failed. */
#define RETURN_IF_ERROR(call)            \
  do {                                   \
    OrtStatus* status_ = (call);         \
    if (status_ != NULL) return status_; \
  } while (0)

static OrtStatus* gallery_error(int code, const char* message) {
  return API(CreateStatus)(code, message);
}

/* ---- compute -------------------------------------------------------------------------------------------------- */

typedef struct Tensor {
  const float* data;
  const int64_t* shape;
  size_t rank;
} Tensor;

static OrtStatus* read_input(OrtKernelContext* context, size_t index, Tensor* out) {
  const OrtValue* value = NULL;
  RETURN_IF_ERROR(API(KernelContext_GetInput)(context, index, &value));
  ONNXTensorElementDataType type = 0;
  RETURN_IF_ERROR(API(GetTensorElementTypeAndShapeDataReference)(value, &type, &out->shape, &out->rank));
  if (type != GALLERY_FLOAT) return gallery_error(GALLERY_ORT_INVALID_ARGUMENT, GALLERY_EP_NAME ": input is not float");
  if (out->rank > GALLERY_MAX_RANK) return gallery_error(GALLERY_ORT_INVALID_ARGUMENT, GALLERY_EP_NAME ": rank over 8");
  const void* data = NULL;
  RETURN_IF_ERROR(API(GetTensorData)(value, &data));
  out->data = data;
  return NULL;
}

static size_t element_count(const int64_t* shape, size_t rank) {
  size_t count = 1;
  for (size_t d = 0; d < rank; d++) count *= (size_t)shape[d];
  return count;
}

/* Strides of `t` seen as a tensor of `rank` dimensions (right-aligned); 0 where it broadcasts. */
static void broadcast_strides(const Tensor* t, size_t rank, size_t* strides) {
  size_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    size_t lead = rank - t->rank;
    int64_t dim = d < lead ? 1 : t->shape[d - lead];
    strides[d] = dim == 1 ? 0 : stride;
    stride *= (size_t)dim;
  }
}

#if GALLERY_FAULT == FAULT_NOT_THREAD_SAFE
/* The fault: one buffer for every Compute of every session, as a "save a malloc" optimisation would have it. */
static float shared_scratch[1 << 16];
#endif

static void add(const Tensor* a, const Tensor* b, const int64_t* out_shape, size_t rank, float* y) {
  size_t sa[GALLERY_MAX_RANK], sb[GALLERY_MAX_RANK], index[GALLERY_MAX_RANK] = {0};
  broadcast_strides(a, rank, sa);
  broadcast_strides(b, rank, sb);
  size_t count = element_count(out_shape, rank);
  size_t ia = 0, ib = 0;
  for (size_t i = 0; i < count; i++) {
#if GALLERY_FAULT == FAULT_WRONG_ADD
    y[i] = a->data[ia] - b->data[ib];
#else
    y[i] = a->data[ia] + b->data[ib];
#endif
    /* next index, odometer-style */
    for (size_t d = rank; d-- > 0;) {
      ia += sa[d];
      ib += sb[d];
      if (++index[d] < (size_t)out_shape[d]) break;
      ia -= sa[d] * index[d];
      ib -= sb[d] * index[d];
      index[d] = 0;
    }
  }
}

#if GALLERY_FAULT == FAULT_CRASH_IN_COMPUTE
/* NULL, read through a volatile so that the compiler keeps the write through it (a known NULL would be UB it may drop) */
static float* volatile gallery_nowhere = NULL;
#endif

/* One node's Compute, for a fused group (OrtNodeComputeInfo) and a registered kernel (OrtKernelImpl) alike. */
static OrtStatus* compute(GalleryOp op, OrtKernelContext* context) {
  Tensor a, b;
  int64_t out_shape[GALLERY_MAX_RANK];
  size_t rank;
  RETURN_IF_ERROR(read_input(context, 0, &a));
  if (op == GALLERY_ADD) {
    RETURN_IF_ERROR(read_input(context, 1, &b));
    rank = a.rank > b.rank ? a.rank : b.rank;
    for (size_t d = 0; d < rank; d++) {
      int64_t da = d < rank - a.rank ? 1 : a.shape[d - (rank - a.rank)];
      int64_t db = d < rank - b.rank ? 1 : b.shape[d - (rank - b.rank)];
      if (da != db && da != 1 && db != 1) {
        return gallery_error(GALLERY_ORT_INVALID_ARGUMENT, GALLERY_EP_NAME ": Add: the input shapes do not broadcast");
      }
      out_shape[d] = da == 1 ? db : da;
    }
  } else {
    rank = a.rank;
    memcpy(out_shape, a.shape, rank * sizeof(int64_t));
  }
  OrtValue* output = NULL;
  RETURN_IF_ERROR(API(KernelContext_GetOutput)(context, 0, out_shape, rank, &output));
  void* out_data = NULL;
  RETURN_IF_ERROR(API(GetTensorMutableData)(output, &out_data));
  float* y = out_data;
  size_t count = element_count(out_shape, rank);
#if GALLERY_FAULT == FAULT_CRASH_IN_COMPUTE
  y = gallery_nowhere; /* the fault: the output pointer is NULL */
#elif GALLERY_FAULT == FAULT_NOT_THREAD_SAFE
  float* result = y;
  if (count <= sizeof shared_scratch / sizeof shared_scratch[0]) y = shared_scratch;
#endif
  if (op == GALLERY_ADD) {
    add(&a, &b, out_shape, rank, y);
  } else {
    for (size_t i = 0; i < count; i++) y[i] = a.data[i] > 0.0f ? a.data[i] : 0.0f;
  }
#if GALLERY_FAULT == FAULT_NOT_THREAD_SAFE
  if (y != result) {
    /* whatever work stands between computing and copying out: it widens the window for another Run's Compute.
     * 2 ms, longer than the rest of a Run (about 1 ms behind the validation layer on a busy 2-core machine), so two
     * threads' Runs overlap here nearly every time; at 200 us the race showed in 2 of 3 runs behind the layer. */
    struct timespec pause = {0, 2000000};
    nanosleep(&pause, NULL);
    memcpy(result, y, count * sizeof(float));
  }
#endif
  return NULL;
}

#if !GALLERY_KERNEL_REGISTRY
static OrtStatus* ORT_API_CALL kernel_compute(OrtNodeComputeInfo* this_ptr, void* state, OrtKernelContext* context) {
  (void)state;
  return compute(((GalleryKernel*)this_ptr)->op, context);
}

static OrtStatus* ORT_API_CALL kernel_create_state(OrtNodeComputeInfo* this_ptr, OrtNodeComputeContext* context,
                                                   void** state) {
  (void)context;
  *state = this_ptr;
  return NULL;
}

static void ORT_API_CALL kernel_release_state(OrtNodeComputeInfo* this_ptr, void* state) {
  (void)this_ptr;
  (void)state;
}
#endif

/* ---- the EP ---------------------------------------------------------------------------------------------------- */

static const char* ORT_API_CALL ep_get_name(const OrtEp* this_ptr) {
  (void)this_ptr;
  return GALLERY_EP_NAME;
}

/* Whether every input and output of `node` is a float tensor (Add/Relu of other types are declined). */
static OrtStatus* all_float(const OrtNode* node, bool* out) {
  size_t inputs = 0, outputs = 0;
  RETURN_IF_ERROR(API(Node_GetNumInputs)(node, &inputs));
  RETURN_IF_ERROR(API(Node_GetNumOutputs)(node, &outputs));
  const OrtValueInfo* values[8];
  if (inputs > 4 || outputs > 4) {
    *out = false;
    return NULL;
  }
  RETURN_IF_ERROR(API(Node_GetInputs)(node, values, inputs));
  RETURN_IF_ERROR(API(Node_GetOutputs)(node, values + inputs, outputs));
  *out = true;
  for (size_t i = 0; i < inputs + outputs && *out; i++) {
    const OrtTypeInfo* type_info = NULL;
    ONNXType onnx_type = 0;
    const OrtTensorTypeAndShapeInfo* tensor_info = NULL;
    ONNXTensorElementDataType element_type = 0;
    if (values[i] == NULL) { /* an optional input left out */
      *out = false;
      break;
    }
    RETURN_IF_ERROR(API(GetValueInfoTypeInfo)(values[i], &type_info));
    RETURN_IF_ERROR(API(GetOnnxTypeFromTypeInfo)(type_info, &onnx_type));
    if (onnx_type != GALLERY_ONNX_TENSOR) {
      *out = false;
      break;
    }
    RETURN_IF_ERROR(API(CastTypeInfoToTensorInfo)(type_info, &tensor_info));
    RETURN_IF_ERROR(API(GetTensorElementType)(tensor_info, &element_type));
    *out = element_type == GALLERY_FLOAT;
  }
  return NULL;
}

/* The op of `node` if this EP computes it: GALLERY_ADD, GALLERY_RELU, or -1. */
static OrtStatus* supported_op(const OrtNode* node, int* op) {
  const char* type = NULL;
  const char* domain = NULL;
  *op = -1;
  RETURN_IF_ERROR(API(Node_GetOperatorType)(node, &type));
  RETURN_IF_ERROR(API(Node_GetDomain)(node, &domain));
  if (domain != NULL && domain[0] != '\0' && strcmp(domain, "ai.onnx") != 0) return NULL;
  int candidate = strcmp(type, "Add") == 0 ? GALLERY_ADD : strcmp(type, "Relu") == 0 ? GALLERY_RELU : -1;
  if (candidate < 0) return NULL;
  bool floats = false;
  RETURN_IF_ERROR(all_float(node, &floats));
  if (floats) *op = candidate;
  return NULL;
}

static OrtStatus* ORT_API_CALL ep_get_capability(OrtEp* this_ptr, const OrtGraph* graph,
                                                 OrtEpGraphSupportInfo* support) {
  (void)this_ptr;
#if GALLERY_FAULT == FAULT_CAPABILITY_ERROR
  (void)graph;
  (void)support;
  (void)supported_op; /* a kernel-registry build has no Compile that would use it */
  return gallery_error(GALLERY_ORT_EP_FAIL, GALLERY_EP_NAME ": GetCapability cannot read the graph");
#else
  size_t count = 0;
  RETURN_IF_ERROR(API(Graph_GetNumNodes)(graph, &count));
  if (count == 0) return NULL;
  const OrtNode** nodes = malloc(count * sizeof *nodes);
  if (nodes == NULL) return gallery_error(GALLERY_ORT_EP_FAIL, GALLERY_EP_NAME ": out of memory");
  OrtStatus* status = API(Graph_GetNodes)(graph, nodes, count);
#if GALLERY_FAULT == FAULT_CYCLE_CLAIM
  /* The fault: every float Add in one group ("fewer, bigger kernels"), without asking what lies between them. In
   * Add -> Neg -> Add the EP declines Neg, and the group {Add, Add} makes a cycle through it. */
  size_t adds = 0;
  for (size_t i = 0; i < count && status == NULL; i++) {
    int op = -1;
    status = supported_op(nodes[i], &op);
    if (status == NULL && op == GALLERY_ADD) nodes[adds++] = nodes[i];
  }
  if (status == NULL && adds > 0) status = EP_API(EpGraphSupportInfo_AddNodesToFuse)(support, nodes, adds, NULL);
#elif GALLERY_KERNEL_REGISTRY
  /* a node with a registered kernel (ORT matched op, domain, version, types and this EP's name) is claimed alone */
  for (size_t i = 0; i < count && status == NULL; i++) {
    int op = -1;
    const OrtKernelDef* kernel_def = NULL;
    status = supported_op(nodes[i], &op);
    if (status == NULL && op >= 0) status = EP_API(EpGraphSupportInfo_LookUpKernel)(support, nodes[i], &kernel_def);
    if (status == NULL && kernel_def != NULL) status = EP_API(EpGraphSupportInfo_AddSingleNode)(support, nodes[i]);
  }
#else
  for (size_t i = 0; i < count && status == NULL; i++) {
    int op = -1;
    status = supported_op(nodes[i], &op);
    if (status == NULL && op >= 0) status = EP_API(EpGraphSupportInfo_AddNodesToFuse)(support, &nodes[i], 1, NULL);
  }
#endif
  free(nodes);
  return status;
#endif
}

#if GALLERY_KERNEL_REGISTRY
/* ---- the kernel registry --------------------------------------------------------------------------------------- */

typedef struct GalleryOpKernel {
  OrtKernelImpl base; /* first: the OrtKernelImpl* ORT holds is this struct */
  GalleryOp op;
} GalleryOpKernel;

static OrtStatus* ORT_API_CALL op_kernel_compute(OrtKernelImpl* this_ptr, OrtKernelContext* context) {
  return compute(((GalleryOpKernel*)this_ptr)->op, context);
}

static void ORT_API_CALL op_kernel_release(OrtKernelImpl* this_ptr) {
#if GALLERY_FAULT == FAULT_DOUBLE_RELEASE
  /* the fault: released twice, as two owners that both think they own it would (read back through a volatile, so
   * that the compiler does not refuse to build the bug) */
  OrtKernelImpl* volatile again = this_ptr;
  free(this_ptr);
  free(again);
#else
  free(this_ptr);
#endif
}

/* The kernel-create functions' states: which op each registered kernel computes. */
static const GalleryOp gallery_ops[] = {GALLERY_ADD, GALLERY_RELU};

static OrtStatus* ORT_API_CALL create_op_kernel(void* state, const OrtKernelInfo* info, OrtKernelImpl** kernel_out) {
  (void)info;
  GalleryOpKernel* kernel = malloc(sizeof *kernel);
  if (kernel == NULL) return gallery_error(GALLERY_ORT_EP_FAIL, GALLERY_EP_NAME ": out of memory");
  *kernel = (GalleryOpKernel){.base = {.ort_version_supported = GALLERY_API_VERSION, .Compute = op_kernel_compute,
                                       .Release = op_kernel_release},
                              .op = *(const GalleryOp*)state};
  *kernel_out = &kernel->base;
  return NULL;
}

/* Adds the float kernel of `op_type`, opsets first..last, computing gallery_ops[op] to `registry`. A last version is
 * named: ORT matches a kernel whose range is open (INT_MAX) only to nodes of exactly its first version. */
static OrtStatus* add_kernel(OrtKernelRegistry* registry, const char* op_type, int first, int last, GalleryOp op) {
  OrtKernelDefBuilder* builder = NULL;
  OrtKernelDef* kernel_def = NULL;
  const OrtDataType* float_type = NULL;
  RETURN_IF_ERROR(EP_API(GetTensorDataType)(GALLERY_FLOAT, &float_type));
  RETURN_IF_ERROR(EP_API(CreateKernelDefBuilder)(&builder));
  OrtStatus* status = EP_API(KernelDefBuilder_SetOperatorType)(builder, op_type);
  if (status == NULL) status = EP_API(KernelDefBuilder_SetDomain)(builder, "");
  if (status == NULL) status = EP_API(KernelDefBuilder_SetSinceVersion)(builder, first, last);
  if (status == NULL) status = EP_API(KernelDefBuilder_SetExecutionProvider)(builder, GALLERY_EP_NAME);
  if (status == NULL) status = EP_API(KernelDefBuilder_AddTypeConstraint)(builder, "T", &float_type, 1);
  if (status == NULL) status = EP_API(KernelDefBuilder_Build)(builder, &kernel_def);
  /* the registry keeps a copy of the definition */
  if (status == NULL) status = EP_API(KernelRegistry_AddKernel)(registry, kernel_def, create_op_kernel, (void*)&gallery_ops[op]);
  if (kernel_def != NULL) EP_API(ReleaseKernelDef)(kernel_def);
  EP_API(ReleaseKernelDefBuilder)(builder);
  return status;
}

static OrtStatus* ORT_API_CALL ep_get_kernel_registry(OrtEp* this_ptr, const OrtKernelRegistry** registry) {
  *registry = ((GalleryEp*)this_ptr)->registry;
  return NULL;
}

/* The EP's registry, made with the EP and released with it. */
static OrtStatus* create_registry(OrtKernelRegistry** out) {
  OrtKernelRegistry* registry = NULL;
  RETURN_IF_ERROR(EP_API(CreateKernelRegistry)(&registry));
  OrtStatus* status = add_kernel(registry, "Add", 7, 14, GALLERY_ADD); /* Add-7, -13, -14: numpy broadcasting */
  if (status == NULL) status = add_kernel(registry, "Relu", 6, 14, GALLERY_RELU);
  if (status != NULL) {
    EP_API(ReleaseKernelRegistry)(registry);
    return status;
  }
  *out = registry;
  return NULL;
}

static const OrtEp ep_functions = {.ort_version_supported = GALLERY_API_VERSION, .GetName = ep_get_name,
    .GetCapability = ep_get_capability, .GetKernelRegistry = ep_get_kernel_registry};
#else
static const OrtNodeComputeInfo kernel_functions = {.ort_version_supported = GALLERY_API_VERSION,
    .CreateState = kernel_create_state, .Compute = kernel_compute, .ReleaseState = kernel_release_state};

static OrtStatus* ORT_API_CALL ep_compile(OrtEp* this_ptr, const OrtGraph** graphs, const OrtNode** fused_nodes,
                                          size_t count, OrtNodeComputeInfo** infos, OrtNode** ep_context_nodes) {
  (void)this_ptr;
  (void)fused_nodes;
  (void)ep_context_nodes;
  for (size_t i = 0; i < count; i++) infos[i] = NULL;
  for (size_t i = 0; i < count; i++) {
    size_t nodes = 0;
    const OrtNode* node = NULL;
    int op = -1;
    RETURN_IF_ERROR(API(Graph_GetNumNodes)(graphs[i], &nodes));
    if (nodes != 1) return gallery_error(GALLERY_ORT_EP_FAIL, GALLERY_EP_NAME ": a fused group is one node");
    RETURN_IF_ERROR(API(Graph_GetNodes)(graphs[i], &node, 1));
    RETURN_IF_ERROR(supported_op(node, &op));
    if (op < 0) return gallery_error(GALLERY_ORT_EP_FAIL, GALLERY_EP_NAME ": asked to compile a node it did not claim");
    GalleryKernel* kernel = malloc(sizeof *kernel);
    if (kernel == NULL) return gallery_error(GALLERY_ORT_EP_FAIL, GALLERY_EP_NAME ": out of memory");
    *kernel = (GalleryKernel){.base = kernel_functions, .op = (GalleryOp)op};
    infos[i] = &kernel->base;
  }
  return NULL;
}

static void ORT_API_CALL ep_release_node_compute_infos(OrtEp* this_ptr, OrtNodeComputeInfo** infos, size_t count) {
  (void)this_ptr;
  for (size_t i = 0; i < count; i++) {
    free(infos[i]);
#if GALLERY_FAULT == FAULT_DOUBLE_RELEASE
    free(infos[i]); /* the fault: released twice, as two owners that both think they own it would */
#endif
  }
}

#endif

/* ---- the factory ----------------------------------------------------------------------------------------------- */

static const char* ORT_API_CALL factory_get_name(const OrtEpFactory* this_ptr) {
  (void)this_ptr;
  return GALLERY_EP_NAME;
}

static const char* ORT_API_CALL factory_get_vendor(const OrtEpFactory* this_ptr) {
  (void)this_ptr;
  return "javaep gallery";
}

static uint32_t ORT_API_CALL factory_get_vendor_id(const OrtEpFactory* this_ptr) {
  (void)this_ptr;
  return 0;
}

static const char* ORT_API_CALL factory_get_version(const OrtEpFactory* this_ptr) {
  (void)this_ptr;
  return "0.1.0";
}

static OrtStatus* ORT_API_CALL factory_get_supported_devices(OrtEpFactory* this_ptr,
                                                             const OrtHardwareDevice* const* devices,
                                                             size_t num_devices, OrtEpDevice** ep_devices,
                                                             size_t max_ep_devices, size_t* num_ep_devices) {
  *num_ep_devices = 0;
  for (size_t i = 0; i < num_devices && *num_ep_devices < max_ep_devices; i++) {
    if (API(HardwareDevice_Type)(devices[i]) != GALLERY_HW_CPU) continue;
    OrtEpDevice* ep_device = NULL;
    RETURN_IF_ERROR(EP_API(CreateEpDevice)(this_ptr, devices[i], NULL, NULL, &ep_device));
    if (gallery_factory.device_memory != NULL) {
      RETURN_IF_ERROR(EP_API(EpDevice_AddAllocatorInfo)(ep_device, gallery_factory.device_memory));
    }
    ep_devices[(*num_ep_devices)++] = ep_device;
    break; /* one CPU is enough */
  }
  return NULL;
}

#if !GALLERY_KERNEL_REGISTRY
static const OrtEp ep_functions = {.ort_version_supported = GALLERY_API_VERSION, .GetName = ep_get_name,
    .GetCapability = ep_get_capability, .Compile = ep_compile, .ReleaseNodeComputeInfos = ep_release_node_compute_infos};
#endif

static OrtStatus* ORT_API_CALL factory_create_ep(OrtEpFactory* this_ptr, const OrtHardwareDevice* const* devices,
                                                 const OrtKeyValuePairs* const* metadata, size_t num_devices,
                                                 const OrtSessionOptions* session_options, const OrtLogger* logger,
                                                 OrtEp** out) {
  (void)devices;
  (void)metadata;
  (void)num_devices;
  (void)session_options;
  (void)logger;
  (void)this_ptr;
  GalleryEp* ep = malloc(sizeof *ep);
  if (ep == NULL) return gallery_error(GALLERY_ORT_EP_FAIL, GALLERY_EP_NAME ": out of memory");
  *ep = (GalleryEp){.base = ep_functions};
#if GALLERY_KERNEL_REGISTRY
  OrtStatus* status = create_registry(&ep->registry);
  if (status != NULL) {
    free(ep);
    return status;
  }
#endif
#if GALLERY_FAULT == FAULT_LEAK_PER_SESSION
  /* The fault: a per-session buffer ReleaseEp forgets (touched, so it is resident). */
  ep->session_buffer = malloc(1 << 20);
  if (ep->session_buffer != NULL) memset(ep->session_buffer, 1, 1 << 20);
#endif
  *out = &ep->base;
  return NULL;
}

static void ORT_API_CALL factory_release_ep(OrtEpFactory* this_ptr, OrtEp* ep) {
  (void)this_ptr;
#if GALLERY_KERNEL_REGISTRY
  EP_API(ReleaseKernelRegistry)(((GalleryEp*)ep)->registry);
#endif
  free(ep);
}

static OrtStatus* ORT_API_CALL factory_create_data_transfer(OrtEpFactory* this_ptr, OrtDataTransferImpl** out) {
  (void)this_ptr;
  *out = NULL; /* host memory only: ORT's CPU copies serve */
  return NULL;
}

static bool ORT_API_CALL factory_is_stream_aware(const OrtEpFactory* this_ptr) {
  (void)this_ptr;
  return false;
}

/* ---- the device allocator: only FAULT_MISALIGNED_ALLOCATOR and FAULT_BAD_MEMORY_INFO register memory of their own
 * (the others are served by ORT's CPU allocator) ------------------------------------------------------------------- */
#if GALLERY_FAULT == FAULT_MISALIGNED_ALLOCATOR || GALLERY_FAULT == FAULT_BAD_MEMORY_INFO
#define GALLERY_OWN_MEMORY 1
#if GALLERY_FAULT == FAULT_MISALIGNED_ALLOCATOR
#define GALLERY_MISALIGNMENT 1 /* the fault: 64-byte aligned + 1 */
#else
#define GALLERY_MISALIGNMENT 0
#endif

#define GALLERY_ALIGNMENT 64

static void* ORT_API_CALL allocator_alloc(OrtAllocator* this_ptr, size_t size) {
  (void)this_ptr;
  /* room for the +1 below and for the size's round-up aligned_alloc wants */
  if (size > SIZE_MAX - 2 * GALLERY_ALIGNMENT) return NULL; /* the round-up below would wrap */
  size_t rounded = (size + 1 + GALLERY_ALIGNMENT - 1) / GALLERY_ALIGNMENT * GALLERY_ALIGNMENT;
  unsigned char* block = aligned_alloc(GALLERY_ALIGNMENT, rounded);
  return block == NULL ? NULL : block + GALLERY_MISALIGNMENT;
}

static void ORT_API_CALL allocator_free(OrtAllocator* this_ptr, void* p) {
  (void)this_ptr;
  if (p != NULL) free((unsigned char*)p - GALLERY_MISALIGNMENT);
}

static const OrtMemoryInfo* ORT_API_CALL allocator_info(const OrtAllocator* this_ptr) {
  (void)this_ptr;
  return gallery_factory.device_memory;
}

static void* ORT_API_CALL allocator_reserve(OrtAllocator* this_ptr, size_t size) {
  return allocator_alloc(this_ptr, size);
}

/* Stateless: one allocator serves every session (the EP has one memory info). */
static OrtAllocator gallery_allocator = {.version = GALLERY_API_VERSION, .Alloc = allocator_alloc,
    .Free = allocator_free, .Info = allocator_info, .Reserve = allocator_reserve};

static OrtStatus* ORT_API_CALL factory_create_allocator(OrtEpFactory* this_ptr, const OrtMemoryInfo* memory_info,
                                                        const OrtKeyValuePairs* options, OrtAllocator** out) {
  (void)this_ptr;
  (void)memory_info;
  (void)options;
  *out = &gallery_allocator;
  return NULL;
}

static void ORT_API_CALL factory_release_allocator(OrtEpFactory* this_ptr, OrtAllocator* allocator) {
  (void)this_ptr;
  (void)allocator;
}
#endif

/* ---- the library's entry points -------------------------------------------------------------------------------- */

GALLERY_EXPORT OrtStatus* CreateEpFactories(const char* registration_name, const OrtApiBase* ort_api_base,
                                            const OrtLogger* default_logger, OrtEpFactory** factories,
                                            size_t max_factories, size_t* num_factories) {
  (void)registration_name;
  (void)default_logger;
  const OrtApi* api = ort_api_base->GetApi(GALLERY_API_VERSION);
  if (api == NULL) {
    /* CreateStatus is slot 0 of every version: ask version 1 for it to say why */
    const OrtApi* v1 = ort_api_base->GetApi(1);
    return ORT_FN(v1, OrtApi, CreateStatus)(GALLERY_ORT_EP_FAIL, GALLERY_EP_NAME " needs ORT API 24 (ORT 1.24+)");
  }
  if (max_factories < 1) return ORT_FN(api, OrtApi, CreateStatus)(GALLERY_ORT_INVALID_ARGUMENT, "no room for a factory");
  if (gallery_factory_users > 0) { /* already made: share it */
    gallery_factory_users++;
    factories[0] = &gallery_factory.base;
    *num_factories = 1;
    return NULL;
  }
  memset(&gallery_factory, 0, sizeof gallery_factory);
  gallery_factory.api = api;
  gallery_factory.ep_api = API(GetEpApi)();
  OrtEpFactory* f = &gallery_factory.base;
  f->ort_version_supported = GALLERY_API_VERSION;
  f->GetName = factory_get_name;
  f->GetVendor = factory_get_vendor;
  f->GetSupportedDevices = factory_get_supported_devices;
  f->CreateEp = factory_create_ep;
  f->ReleaseEp = factory_release_ep;
  f->GetVendorId = factory_get_vendor_id;
  f->GetVersion = factory_get_version;
  f->CreateDataTransfer = factory_create_data_transfer;
  f->IsStreamAware = factory_is_stream_aware;
#if GALLERY_FAULT == FAULT_MISALIGNED_ALLOCATOR
  /* A device of its own (CPU memory, vendor 0xCA11), so ORT asks this factory for its allocator. */
  RETURN_IF_ERROR(API(CreateMemoryInfo_V2)("CGalleryMemory", GALLERY_MEMORY_DEVICE_CPU, 0xCA11, 0,
                                           GALLERY_MEMORY_DEFAULT, 0, GALLERY_DEVICE_ALLOCATOR,
                                           &gallery_factory.device_memory));
#elif GALLERY_FAULT == FAULT_BAD_MEMORY_INFO
  /* The fault: DEFAULT memory that says it is a GPU's, offered on a CPU device, and unnamed (ORT keys allocators by
   * memory info: a host cannot tell which memory this is, and a GPU EP's kernels would get host pointers). */
  RETURN_IF_ERROR(API(CreateMemoryInfo_V2)("", GALLERY_MEMORY_DEVICE_GPU, 0xCA11, 0, GALLERY_MEMORY_DEFAULT, 0,
                                           GALLERY_DEVICE_ALLOCATOR, &gallery_factory.device_memory));
#endif
#ifdef GALLERY_OWN_MEMORY
  f->CreateAllocator = factory_create_allocator;
  f->ReleaseAllocator = factory_release_allocator;
#endif
  gallery_factory_users = 1;
  factories[0] = f;
  *num_factories = 1;
  return NULL;
}

GALLERY_EXPORT OrtStatus* ReleaseEpFactory(OrtEpFactory* factory) {
  GalleryFactory* gallery = (GalleryFactory*)factory;
  if (gallery_factory_users > 0 && --gallery_factory_users > 0) return NULL; /* another load still uses it */
  if (gallery->device_memory != NULL) {
    API(ReleaseMemoryInfo)(gallery->device_memory);
    gallery->device_memory = NULL;
  }
  return NULL;
}
