/*
 * A growable NUL-terminated string. Allocation failure is sticky (oom flag) instead of
 * propagating through every caller: the loader checks once at the end and falls back to a
 * fixed message, because a host out of memory still deserves an answer rather than a crash.
 */
#ifndef JAVAEP_BUF_H
#define JAVAEP_BUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct jep_buf {
  char *data;
  size_t len;
  size_t cap;
  int oom;
} jep_buf;

void jep_buf_append(jep_buf *b, const char *s);
void jep_buf_append_n(jep_buf *b, const char *s, size_t n);
void jep_buf_append_char(jep_buf *b, char c);
void jep_buf_appendf(jep_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void jep_buf_vappendf(jep_buf *b, const char *fmt, va_list ap);
/* Hands the string to the caller (free it); NULL after an allocation failure. Resets b. */
char *jep_buf_take(jep_buf *b);
void jep_buf_free(jep_buf *b);

/* strdup is not in C11. */
char *jep_strdup(const char *s);

#endif
