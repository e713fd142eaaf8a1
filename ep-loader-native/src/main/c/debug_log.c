#include "debug_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

static volatile int enabled;

void jep_debug_refresh(void) {
  char *v = jep_getenv("JAVAEP_DEBUG");
  enabled = v && strcmp(v, "1") == 0;
  free(v);
}

int jep_debug_enabled(void) { return enabled; }

void jep_debug(const char *fmt, ...) {
  if (!enabled) return;
  va_list ap;
  va_start(ap, fmt);
  fputs("javaep[loader]: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  fflush(stderr);
  va_end(ap);
}
