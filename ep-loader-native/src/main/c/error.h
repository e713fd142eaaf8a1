/*
 * The loader's own failures: an ORT error code and a message that says what to set or fix.
 * Internal steps return a jep_error* (NULL = success) and the exported functions turn it into
 * an OrtStatus at the very end, so no step needs to know about ORT.
 */
#ifndef JAVAEP_ERROR_H
#define JAVAEP_ERROR_H

typedef struct jep_error {
  int code;      /* an OrtErrorCode (see ort_min.h) */
  char *message; /* without the "javaep: " prefix; never NULL */
  int is_static; /* the out-of-memory fallback must not be freed */
} jep_error;

/* Formats a new error. Never returns NULL: on allocation failure returns a static one. */
jep_error *jep_fail(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
jep_error *jep_error_copy(const jep_error *e);
void jep_error_free(jep_error *e);

#endif
