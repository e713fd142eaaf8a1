/*
 * A plain C host for javaep: the way a C/C++ application uses a plugin EP, with nothing of Java
 * or of javaep's own code in the process except what ORT itself loads.
 *
 *   ort_c_host <libonnxruntime.so> <library-to-register> <ep-name> <model.onnx> <mode> [cycles]
 *
 * modes:
 *   run                      register, list devices, run test_add on <ep-name> with CPU fallback
 *                            disabled, unregister; `cycles` times in one process
 *   expect-register-failure  registering must fail; then ORT's own CPU EP must still work
 *   expect-run-failure       registering and session creation work, Run fails (twice, cleanly)
 *   old-ort                  calls <library>'s CreateEpFactories as ORT 1.23 would (fault injection: the real
 *                            OrtApiBase with every API version from 24 on hidden, version "1.23.2");
 *                            it must fail with a status and no factories
 *
 * Output lines (parsed by the Java tests): DEVICE, REGISTER, RUN ok, CYCLE, STATUS, HOST alive.
 * Exit: 0 as expected, 1 expectation not met, 2 unexpected ORT error, 3 setup/usage problem.
 *
 * No ORT headers exist here, so OrtApi is used as a table of function pointers by slot index
 * (slot numbers from the project's ORT ABI digest, for ORT 1.29).
 */
#define _GNU_SOURCE /* dlopen/dlsym */

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct OrtStatus OrtStatus;
typedef struct OrtEnv OrtEnv;
typedef struct OrtSession OrtSession;
typedef struct OrtSessionOptions OrtSessionOptions;
typedef struct OrtValue OrtValue;
typedef struct OrtMemoryInfo OrtMemoryInfo;
typedef struct OrtRunOptions OrtRunOptions;
typedef struct OrtEpDevice OrtEpDevice;
typedef struct OrtHardwareDevice OrtHardwareDevice;

typedef struct OrtApiBase {
  const void *(*GetApi)(uint32_t version);
  const char *(*GetVersionString)(void);
} OrtApiBase;

enum { SLOT_CreateStatus = 0, SLOT_GetErrorCode = 1, SLOT_GetErrorMessage = 2, SLOT_CreateEnv = 3,
       SLOT_CreateSession = 7, SLOT_Run = 9, SLOT_CreateSessionOptions = 10,
       SLOT_CreateTensorWithDataAsOrtValue = 49, SLOT_GetTensorMutableData = 51, SLOT_CreateCpuMemoryInfo = 69,
       SLOT_ReleaseEnv = 92, SLOT_ReleaseStatus = 93, SLOT_ReleaseMemoryInfo = 94, SLOT_ReleaseSession = 95,
       SLOT_ReleaseValue = 96, SLOT_ReleaseSessionOptions = 100, SLOT_AddSessionConfigEntry = 130,
       SLOT_RegisterExecutionProviderLibrary = 301, SLOT_UnregisterExecutionProviderLibrary = 302,
       SLOT_GetEpDevices = 303, SLOT_SessionOptionsAppendExecutionProvider_V2 = 304,
       SLOT_HardwareDevice_Type = 307, SLOT_EpDevice_EpName = 312, SLOT_EpDevice_EpVendor = 313,
       SLOT_EpDevice_Device = 316 };

enum { ORT_LOGGING_LEVEL_WARNING = 2, ORT_ARENA_ALLOCATOR = 1, ORT_MEM_TYPE_DEFAULT = 0,
       ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT = 1 };

static const void *const *api; /* OrtApi as an array of function pointers */
#define FN(slot, type) ((type)api[slot])

/* --- status handling ---------------------------------------------------------------------- */

static int status_code(OrtStatus *st) { return FN(SLOT_GetErrorCode, int (*)(const OrtStatus *))(st); }
static const char *status_message(OrtStatus *st) {
  return FN(SLOT_GetErrorMessage, const char *(*)(const OrtStatus *))(st);
}
static void release_status(OrtStatus *st) { FN(SLOT_ReleaseStatus, void (*)(OrtStatus *))(st); }

static void print_status(const char *label, OrtStatus *st) {
  printf("%s code=%d msg=%s\n", label, status_code(st), status_message(st));
}

/* Any status nobody expected ends the program with exit code 2. */
static void check(OrtStatus *st, const char *what) {
  if (!st) return;
  printf("UNEXPECTED %s failed: code=%d msg=%s\n", what, status_code(st), status_message(st));
  release_status(st);
  exit(2);
}

/* --- small wrappers around the slots we use ------------------------------------------------- */

static OrtEnv *create_env(void) {
  OrtEnv *env = NULL;
  check(FN(SLOT_CreateEnv, OrtStatus * (*)(int, const char *, OrtEnv **))(ORT_LOGGING_LEVEL_WARNING, "ort_c_host", &env),
        "CreateEnv");
  return env;
}

static OrtStatus *register_library(OrtEnv *env, const char *path) {
  return FN(SLOT_RegisterExecutionProviderLibrary, OrtStatus * (*)(OrtEnv *, const char *, const char *))(env, "javaep", path);
}

static void unregister_library(OrtEnv *env) {
  check(FN(SLOT_UnregisterExecutionProviderLibrary, OrtStatus * (*)(OrtEnv *, const char *))(env, "javaep"),
        "UnregisterExecutionProviderLibrary");
}

/* Prints every EP device and returns the one whose EP is ep_name, or NULL. */
static const OrtEpDevice *find_device(OrtEnv *env, const char *ep_name) {
  const OrtEpDevice *const *devices = NULL;
  size_t n = 0;
  check(FN(SLOT_GetEpDevices, OrtStatus * (*)(const OrtEnv *, const OrtEpDevice *const **, size_t *))(env, &devices, &n),
        "GetEpDevices");
  const OrtEpDevice *found = NULL;
  for (size_t i = 0; i < n; i++) {
    const char *name = FN(SLOT_EpDevice_EpName, const char *(*)(const OrtEpDevice *))(devices[i]);
    const char *vendor = FN(SLOT_EpDevice_EpVendor, const char *(*)(const OrtEpDevice *))(devices[i]);
    const OrtHardwareDevice *hw = FN(SLOT_EpDevice_Device, const OrtHardwareDevice *(*)(const OrtEpDevice *))(devices[i]);
    int type = hw ? FN(SLOT_HardwareDevice_Type, int (*)(const OrtHardwareDevice *))(hw) : -1;
    printf("DEVICE %s %s hw_type=%d\n", name ? name : "(null)", vendor ? vendor : "(null)", type);
    if (!found && name && strcmp(name, ep_name) == 0) found = devices[i];
  }
  return found;
}

static OrtSessionOptions *create_options(void) {
  OrtSessionOptions *options = NULL;
  check(FN(SLOT_CreateSessionOptions, OrtStatus * (*)(OrtSessionOptions **))(&options), "CreateSessionOptions");
  return options;
}

/* Puts the session on exactly this EP device: with CPU fallback disabled, a node the EP does
 * not take makes session creation fail instead of silently running on ORT's CPU EP. */
static void use_only_device(OrtSessionOptions *options, OrtEnv *env, const OrtEpDevice *device) {
  check(FN(SLOT_SessionOptionsAppendExecutionProvider_V2,
           OrtStatus * (*)(OrtSessionOptions *, OrtEnv *, const OrtEpDevice *const *, size_t, const char *const *,
                           const char *const *, size_t))(options, env, &device, 1, NULL, NULL, 0),
        "SessionOptionsAppendExecutionProvider_V2");
  check(FN(SLOT_AddSessionConfigEntry, OrtStatus * (*)(OrtSessionOptions *, const char *, const char *))(
            options, "session.disable_cpu_ep_fallback", "1"),
        "AddSessionConfigEntry");
}

static OrtSession *create_session(OrtEnv *env, const char *model, OrtSessionOptions *options) {
  OrtSession *session = NULL;
  check(FN(SLOT_CreateSession, OrtStatus * (*)(OrtEnv *, const char *, const OrtSessionOptions *, OrtSession **))(
            env, model, options, &session),
        "CreateSession");
  return session;
}

static void release_session(OrtSession *s) { FN(SLOT_ReleaseSession, void (*)(OrtSession *))(s); }
static void release_options(OrtSessionOptions *o) { FN(SLOT_ReleaseSessionOptions, void (*)(OrtSessionOptions *))(o); }
static void release_env(OrtEnv *e) { FN(SLOT_ReleaseEnv, void (*)(OrtEnv *))(e); }
static void release_value(OrtValue *v) { FN(SLOT_ReleaseValue, void (*)(OrtValue *))(v); }

/* --- test_add: sum = x + y over float[3,4,5] ------------------------------------------------ */

#define N 60

static OrtValue *tensor(OrtMemoryInfo *info, float *data) {
  static const int64_t shape[3] = {3, 4, 5};
  OrtValue *v = NULL;
  check(FN(SLOT_CreateTensorWithDataAsOrtValue,
           OrtStatus * (*)(const OrtMemoryInfo *, void *, size_t, const int64_t *, size_t, int, OrtValue **))(
            info, data, N * sizeof(float), shape, 3, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &v),
        "CreateTensorWithDataAsOrtValue");
  return v;
}

/* Runs the model once. Returns the Run status (NULL on success) after checking the output. */
static OrtStatus *run_add(OrtSession *session) {
  float x[N], y[N];
  for (int i = 0; i < N; i++) {
    x[i] = (float)i * 0.5f;
    y[i] = 1.0f - (float)i;
  }
  OrtMemoryInfo *info = NULL;
  check(FN(SLOT_CreateCpuMemoryInfo, OrtStatus * (*)(int, int, OrtMemoryInfo **))(ORT_ARENA_ALLOCATOR,
                                                                                   ORT_MEM_TYPE_DEFAULT, &info),
        "CreateCpuMemoryInfo");
  OrtValue *inputs[2] = {tensor(info, x), tensor(info, y)};
  const char *input_names[2] = {"x", "y"};
  const char *output_names[1] = {"sum"};
  OrtValue *outputs[1] = {NULL};

  OrtStatus *st = FN(SLOT_Run, OrtStatus * (*)(OrtSession *, const OrtRunOptions *, const char *const *,
                                               const OrtValue *const *, size_t, const char *const *, size_t,
                                               OrtValue **))(session, NULL, input_names,
                                                             (const OrtValue *const *)inputs, 2, output_names, 1,
                                                             outputs);
  if (!st) {
    float *sum = NULL;
    check(FN(SLOT_GetTensorMutableData, OrtStatus * (*)(OrtValue *, void **))(outputs[0], (void **)&sum),
          "GetTensorMutableData");
    for (int i = 0; i < N; i++) {
      float want = x[i] + y[i];
      if (fabsf(sum[i] - want) > 1e-6f) {
        printf("WRONG sum[%d]=%g expected %g\n", i, (double)sum[i], (double)want);
        exit(1);
      }
    }
    release_value(outputs[0]);
  }
  release_value(inputs[0]);
  release_value(inputs[1]);
  FN(SLOT_ReleaseMemoryInfo, void (*)(OrtMemoryInfo *))(info);
  return st;
}

/* --- process statistics for the leak check --------------------------------------------------- */

static long proc_status_field(const char *field) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long value = -1;
  size_t n = strlen(field);
  while (fgets(line, sizeof line, f))
    if (strncmp(line, field, n) == 0 && line[n] == ':') {
      value = strtol(line + n + 1, NULL, 10);
      break;
    }
  fclose(f);
  return value;
}

/* --- modes ------------------------------------------------------------------------------------- */

/* A session of the model on EP ep_name's device alone; NULL, after saying so, when the registration offers no device
   of that EP. The caller releases *options after the session. */
static OrtSession *session_on_ep(OrtEnv *env, const char *ep_name, const char *model, OrtSessionOptions **options) {
  const OrtEpDevice *device = find_device(env, ep_name);
  if (!device) {
    printf("NO DEVICE for EP %s\n", ep_name);
    return NULL;
  }
  *options = create_options();
  use_only_device(*options, env, device);
  return create_session(env, model, *options);
}

static int mode_run(const char *library, const char *ep_name, const char *model, int cycles) {
  for (int k = 1; k <= cycles; k++) {
    OrtEnv *env = create_env();
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    check(register_library(env, library), "RegisterExecutionProviderLibrary");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    /* Cycle 1 includes booting the JVM; later cycles join it. */
    printf("REGISTER cycle=%d ms=%.1f\n", k, (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
    OrtSessionOptions *options = NULL;
    OrtSession *session = session_on_ep(env, ep_name, model, &options);
    if (!session) return 1;
    check(run_add(session), "Run");
    printf("RUN ok\n");
    release_session(session);
    release_options(options);
    unregister_library(env);
    release_env(env);
    printf("CYCLE %d threads=%ld rss_kb=%ld\n", k, proc_status_field("Threads"), proc_status_field("VmRSS"));
  }
  return 0;
}

/* After a failed registration, ORT's own CPU EP must still run the model in this process. */
static void prove_host_alive(OrtEnv *env, const char *model) {
  OrtSessionOptions *options = create_options();
  OrtSession *session = create_session(env, model, options);
  check(run_add(session), "Run on ORT's CPU EP");
  printf("RUN ok\n");
  release_session(session);
  release_options(options);
  printf("HOST alive\n");
}

static int mode_expect_register_failure(const char *library, const char *model) {
  OrtEnv *env = create_env();
  OrtStatus *st = register_library(env, library);
  if (!st) {
    printf("REGISTERED unexpectedly\n");
    unregister_library(env);
    release_env(env);
    return 1;
  }
  print_status("STATUS", st);
  release_status(st);
  prove_host_alive(env, model);
  release_env(env);
  return 0;
}

static int mode_expect_run_failure(const char *library, const char *ep_name, const char *model) {
  OrtEnv *env = create_env();
  check(register_library(env, library), "RegisterExecutionProviderLibrary");
  OrtSessionOptions *options = NULL;
  OrtSession *session = session_on_ep(env, ep_name, model, &options);
  if (!session) return 1;
  int result = 0;
  for (int attempt = 1; attempt <= 2; attempt++) {
    OrtStatus *st = run_add(session);
    if (!st) {
      printf("RUN succeeded unexpectedly (attempt %d)\n", attempt);
      result = 1;
      break;
    }
    print_status(attempt == 1 ? "STATUS" : "STATUS again", st);
    release_status(st);
  }
  release_session(session);
  release_options(options);
  unregister_library(env);
  if (result == 0) prove_host_alive(env, model);
  release_env(env);
  return result;
}

/* --- an ONNX Runtime older than javaep supports ------------------------------------------------- */

static const OrtApiBase *real_base;
static const void *old_ort_get_api(uint32_t version) { return version >= 24 ? NULL : real_base->GetApi(version); }
static const char *old_ort_version(void) { return "1.23.2"; }

static int mode_old_ort(const char *library) {
  static const OrtApiBase old_base = {old_ort_get_api, old_ort_version};
  void *lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    printf("SETUP cannot load %s: %s\n", library, dlerror());
    return 3;
  }
  typedef OrtStatus *(*create_factories_fn)(const char *, const OrtApiBase *, const void *, void **, size_t, size_t *);
  create_factories_fn create = (create_factories_fn)dlsym(lib, "CreateEpFactories");
  if (!create) {
    printf("SETUP %s has no CreateEpFactories\n", library);
    return 3;
  }
  void *factories[4] = {NULL, NULL, NULL, NULL};
  size_t n = 99;
  OrtStatus *st = create("javaep", &old_base, NULL, factories, 4, &n);
  if (!st) {
    printf("UNEXPECTED CreateEpFactories succeeded with %zu factories\n", n);
    return 1;
  }
  print_status("STATUS", st);
  release_status(st);
  printf("HOST alive factories=%zu\n", n);
  return n == 0 ? 0 : 1;
}

/* --- main --------------------------------------------------------------------------------------- */

static const OrtApiBase *load_ort(const char *path) {
  void *ort = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!ort) {
    printf("SETUP cannot load %s: %s\n", path, dlerror());
    exit(3);
  }
  const OrtApiBase *(*get_base)(void) = (const OrtApiBase *(*)(void))dlsym(ort, "OrtGetApiBase");
  if (!get_base) {
    printf("SETUP %s has no OrtGetApiBase\n", path);
    exit(3);
  }
  return get_base();
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0); /* every line reaches the test even if the process dies */
  if (argc < 6) {
    fprintf(stderr, "usage: %s <libonnxruntime.so> <library> <ep-name> <model.onnx> <mode> [cycles]\n", argv[0]);
    return 3;
  }
  const char *library = argv[2], *ep_name = argv[3], *model = argv[4], *mode = argv[5];
  int cycles = argc > 6 ? atoi(argv[6]) : 1;

  const OrtApiBase *base = load_ort(argv[1]);
  real_base = base;
  uint32_t version = 29;
  for (; version >= 24 && !(api = base->GetApi(version)); version--) {
  }
  if (!api) {
    printf("SETUP ORT %s offers no API version between 24 and 29\n", base->GetVersionString());
    return 3;
  }
  printf("ORT %s api=%u\n", base->GetVersionString(), version);

  if (strcmp(mode, "old-ort") == 0) return mode_old_ort(library);
  if (strcmp(mode, "run") == 0) return mode_run(library, ep_name, model, cycles < 1 ? 1 : cycles);
  if (strcmp(mode, "expect-register-failure") == 0) return mode_expect_register_failure(library, model);
  if (strcmp(mode, "expect-run-failure") == 0) return mode_expect_run_failure(library, ep_name, model);
  fprintf(stderr, "unknown mode %s\n", mode);
  return 3;
}
