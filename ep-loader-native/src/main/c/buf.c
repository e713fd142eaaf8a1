#include "buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reserve(jep_buf *b, size_t extra) {
  if (b->oom) return 0;
  size_t need = b->len + extra + 1;
  if (need <= b->cap) return 1;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < need) cap *= 2;
  char *p = realloc(b->data, cap);
  if (!p) {
    b->oom = 1;
    return 0;
  }
  b->data = p;
  b->cap = cap;
  return 1;
}

void jep_buf_append_n(jep_buf *b, const char *s, size_t n) {
  if (!reserve(b, n)) return;
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void jep_buf_append(jep_buf *b, const char *s) { jep_buf_append_n(b, s ? s : "(null)", strlen(s ? s : "(null)")); }

void jep_buf_append_char(jep_buf *b, char c) { jep_buf_append_n(b, &c, 1); }

void jep_buf_vappendf(jep_buf *b, const char *fmt, va_list ap) {
  va_list probe;
  va_copy(probe, ap);
  int n = vsnprintf(NULL, 0, fmt, probe);
  va_end(probe);
  if (n < 0) {
    b->oom = 1;
    return;
  }
  if (!reserve(b, (size_t)n)) return;
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
}

void jep_buf_appendf(jep_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  jep_buf_vappendf(b, fmt, ap);
  va_end(ap);
}

char *jep_buf_take(jep_buf *b) {
  char *out = NULL;
  if (!b->oom) out = b->data ? b->data : jep_strdup("");
  else free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
  b->oom = 0;
  return out;
}

void jep_buf_free(jep_buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
  b->oom = 0;
}

char *jep_strdup(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}
