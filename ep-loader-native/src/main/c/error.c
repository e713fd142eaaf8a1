#include "error.h"

#include <stdarg.h>
#include <stdlib.h>

#include "buf.h"
#include "ort_min.h"

static jep_error out_of_memory = {JEP_ORT_FAIL, "out of memory while reporting a loader failure", 1};

static jep_error *make(int code, char *message) {
  if (!message) return &out_of_memory;
  jep_error *e = malloc(sizeof *e);
  if (!e) {
    free(message);
    return &out_of_memory;
  }
  e->code = code;
  e->message = message;
  e->is_static = 0;
  return e;
}

jep_error *jep_fail(int code, const char *fmt, ...) {
  jep_buf b = {0};
  va_list ap;
  va_start(ap, fmt);
  jep_buf_vappendf(&b, fmt, ap);
  va_end(ap);
  return make(code, jep_buf_take(&b));
}

jep_error *jep_error_copy(const jep_error *e) { return make(e->code, jep_strdup(e->message)); }

void jep_error_free(jep_error *e) {
  if (!e || e->is_static) return;
  free(e->message);
  free(e);
}
