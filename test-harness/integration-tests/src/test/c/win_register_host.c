/*
 * Windows registration check for javaep.dll, run under wine on Linux (or on real Windows):
 * loads the real onnxruntime.dll, registers javaep.dll with no JVM configured, and expects ORT
 * to hand back javaep's error status (the message must say how to set JAVAEP_JAVA_HOME).
 *
 *   win_register_host.exe <onnxruntime.dll> <javaep.dll>
 *
 * Prints "STATUS code=<n> msg=<message>". Exit: 0 registration failed with a status (expected),
 * 1 registration succeeded, 2 ORT setup failed, 3 the process crashed (unhandled exception).
 * Built with mingw-w64 (-municode): ORTCHAR_T is wchar_t on Windows, so paths stay UTF-16.
 */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <stdint.h>
#include <stdio.h>

typedef struct OrtStatus OrtStatus;
typedef struct OrtEnv OrtEnv;

typedef struct OrtApiBase {
  const void *(__stdcall *GetApi)(uint32_t version);
  const char *(__stdcall *GetVersionString)(void);
} OrtApiBase;

enum { SLOT_GetErrorCode = 1, SLOT_GetErrorMessage = 2, SLOT_CreateEnv = 3, SLOT_ReleaseEnv = 92,
       SLOT_ReleaseStatus = 93, SLOT_RegisterExecutionProviderLibrary = 301,
       SLOT_UnregisterExecutionProviderLibrary = 302 };

static const void *const *api;
#define FN(slot, type) ((type)api[slot])

/* Any crash, in ORT or in javaep.dll, ends the process with a recognisable exit code. */
static LONG WINAPI on_crash(EXCEPTION_POINTERS *info) {
  printf("CRASH exception=0x%08lx at %p\n", (unsigned long)info->ExceptionRecord->ExceptionCode,
         info->ExceptionRecord->ExceptionAddress);
  fflush(stdout);
  ExitProcess(3);
  return EXCEPTION_EXECUTE_HANDLER;
}

static int status_code(OrtStatus *st) { return FN(SLOT_GetErrorCode, int(__stdcall *)(const OrtStatus *))(st); }
static const char *status_message(OrtStatus *st) {
  return FN(SLOT_GetErrorMessage, const char *(__stdcall *)(const OrtStatus *))(st);
}
static void release_status(OrtStatus *st) { FN(SLOT_ReleaseStatus, void(__stdcall *)(OrtStatus *))(st); }

int wmain(int argc, wchar_t **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  SetUnhandledExceptionFilter(on_crash);
  SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
  if (argc < 3) {
    fprintf(stderr, "usage: win_register_host <onnxruntime.dll> <javaep.dll>\n");
    return 2;
  }

  HMODULE ort = LoadLibraryExW(argv[1], NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
  if (!ort) {
    printf("SETUP cannot load onnxruntime.dll (error %lu)\n", (unsigned long)GetLastError());
    return 2;
  }
  const OrtApiBase *(__stdcall *get_base)(void) =
      (const OrtApiBase *(__stdcall *)(void))(void *)GetProcAddress(ort, "OrtGetApiBase");
  if (!get_base) {
    printf("SETUP onnxruntime.dll has no OrtGetApiBase\n");
    return 2;
  }
  const OrtApiBase *base = get_base();
  uint32_t version = 29;
  for (; version >= 24 && !(api = base->GetApi(version)); version--) {
  }
  if (!api) {
    printf("SETUP ORT %s offers no API version between 24 and 29\n", base->GetVersionString());
    return 2;
  }
  printf("ORT %s api=%u\n", base->GetVersionString(), version);

  OrtEnv *env = NULL;
  OrtStatus *st = FN(SLOT_CreateEnv, OrtStatus * (__stdcall *)(int, const char *, OrtEnv **))(2, "win_register_host", &env);
  if (st) {
    printf("SETUP CreateEnv failed: code=%d msg=%s\n", status_code(st), status_message(st));
    return 2;
  }

  st = FN(SLOT_RegisterExecutionProviderLibrary, OrtStatus * (__stdcall *)(OrtEnv *, const char *, const wchar_t *))(
      env, "javaep", argv[2]);
  int result;
  if (st) {
    printf("STATUS code=%d msg=%s\n", status_code(st), status_message(st));
    release_status(st);
    result = 0;
  } else {
    printf("REGISTERED unexpectedly\n");
    st = FN(SLOT_UnregisterExecutionProviderLibrary, OrtStatus * (__stdcall *)(OrtEnv *, const char *))(env, "javaep");
    if (st) release_status(st);
    result = 1;
  }
  FN(SLOT_ReleaseEnv, void(__stdcall *)(OrtEnv *))(env);
  printf("HOST alive\n");
  return result;
}
