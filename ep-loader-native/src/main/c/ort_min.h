/*
 * The few ONNX Runtime C ABI facts the loader needs, declared by hand.
 *
 * The loader knows nothing about ORT beyond its two entry points: every pointer ORT hands us is
 * passed on to Java untouched. We only need OrtApiBase to reach OrtApi version 1, whose slot 0
 * (CreateStatus) is the same in every ORT release, so the loader can report its own failures
 * before Java has negotiated a real API version.
 */
#ifndef JAVAEP_ORT_MIN_H
#define JAVAEP_ORT_MIN_H

#include <stdint.h>

#ifdef _WIN32
#define JEP_ORT_CALL __stdcall /* ORT_API_CALL; a no-op on x64, kept for clarity */
#else
#define JEP_ORT_CALL
#endif

/* Opaque ORT types: the loader never looks inside them. */
typedef struct OrtStatus OrtStatus;
typedef struct OrtLogger OrtLogger;
typedef struct OrtEpFactory OrtEpFactory;

typedef struct OrtApiBase {
  const void *(JEP_ORT_CALL *GetApi)(uint32_t version);
  const char *(JEP_ORT_CALL *GetVersionString)(void);
} OrtApiBase;

/* The prefix of OrtApi that is identical in every version; version 1 is always served. */
typedef struct OrtApiV1Prefix {
  OrtStatus *(JEP_ORT_CALL *CreateStatus)(int code, const char *msg);
} OrtApiV1Prefix;

/* OrtErrorCode values the loader uses. */
enum {
  JEP_ORT_FAIL = 1,
  JEP_ORT_INVALID_ARGUMENT = 2,
  JEP_ORT_NO_SUCHFILE = 3,
  JEP_ORT_EP_FAIL = 11
};

#endif
