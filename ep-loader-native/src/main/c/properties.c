#include "properties.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "ort_min.h"
#include "platform.h"

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f'; }

static int is_escapable(char c) { return c == '\\' || c == ':' || c == '=' || c == '#' || c == '!' || c == ' '; }

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* The code unit of "\uXXXX" at s (s[0] == '\\'), or -1 if s does not start with one. */
static long unicode_escape(const char *s, size_t n) {
  if (n < 6 || s[1] != 'u') return -1;
  long v = 0;
  for (int i = 2; i < 6; i++) {
    int h = hex_value(s[i]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

static void append_utf8(jep_buf *b, unsigned long cp) {
  char out[4];
  size_t n;
  if (cp < 0x80) {
    out[0] = (char)cp;
    n = 1;
  } else if (cp < 0x800) {
    out[0] = (char)(0xC0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    out[0] = (char)(0xE0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    n = 4;
  }
  jep_buf_append_n(b, out, n);
}

/* Copies s[0..n) without surrounding whitespace, resolving the escapes described in the header. */
static char *unescape_trimmed(const char *s, size_t n) {
  while (n > 0 && is_space(*s)) s++, n--;
  while (n > 0 && is_space(s[n - 1]) && !(n >= 2 && s[n - 2] == '\\')) n--;
  jep_buf b = {0};
  jep_buf_append(&b, "");
  for (size_t i = 0; i < n; i++) {
    long unit = s[i] == '\\' ? unicode_escape(s + i, n - i) : -1;
    if (unit >= 0) {
      /* Properties.store writes non-ASCII as UTF-16 escapes; a surrogate pair is two of them. */
      unsigned long cp = (unsigned long)unit;
      long low = unit >= 0xD800 && unit < 0xDC00 ? unicode_escape(s + i + 6, n - i - 6) : -1;
      if (low >= 0xDC00 && low < 0xE000) {
        cp = 0x10000 + (((unsigned long)unit - 0xD800) << 10) + ((unsigned long)low - 0xDC00);
        i += 6;
      }
      append_utf8(&b, cp);
      i += 5;
      continue;
    }
    if (s[i] == '\\' && i + 1 < n && is_escapable(s[i + 1])) i++;
    jep_buf_append_char(&b, s[i]);
  }
  return jep_buf_take(&b);
}

/* The first '=' that is not escaped separates key from value. */
static const char *find_separator(const char *line) {
  for (const char *p = line; *p; p++) {
    if (*p == '\\' && p[1]) p++;
    else if (*p == '=') return p;
  }
  return NULL;
}

static int add(jep_properties *p, char *key, char *value) {
  jep_property *items = realloc(p->items, (p->count + 1) * sizeof *items);
  if (!items) return 0;
  p->items = items;
  items[p->count].key = key;
  items[p->count].value = value;
  p->count++;
  return 1;
}

static jep_error *parse_line(jep_properties *p, const char *line) {
  const char *s = line;
  while (is_space(*s)) s++;
  if (!*s || *s == '#' || *s == '!') return NULL;
  const char *eq = find_separator(s);
  if (!eq) return NULL; /* a line without '=' carries nothing we use; tolerate it like Java would */
  char *key = unescape_trimmed(s, (size_t)(eq - s));
  char *value = unescape_trimmed(eq + 1, strlen(eq + 1));
  if (!key || !value || !add(p, key, value)) {
    free(key);
    free(value);
    return jep_fail(JEP_ORT_FAIL, "out of memory while reading javaep.properties");
  }
  return NULL;
}

jep_error *jep_properties_load(const char *path, jep_properties *out) {
  memset(out, 0, sizeof *out);
  errno = 0;
  FILE *f = jep_fopen_read(path);
  if (!f) {
    if (errno == ENOENT || !jep_path_exists(path)) return NULL;
    return jep_fail(JEP_ORT_INVALID_ARGUMENT, "cannot read '%s' (%s): fix its permissions or remove it",
                    path, strerror(errno));
  }
  out->found = 1;
  jep_buf line = {0};
  jep_error *err = NULL;
  int c;
  do {
    c = fgetc(f);
    if (c == EOF || c == '\n') {
      char *text = jep_buf_take(&line);
      if (!text) err = jep_fail(JEP_ORT_FAIL, "out of memory while reading '%s'", path);
      else err = parse_line(out, text);
      free(text);
    } else {
      jep_buf_append_char(&line, (char)c);
    }
  } while (c != EOF && !err);
  jep_buf_free(&line);
  fclose(f);
  if (err) jep_properties_free(out);
  return err;
}

const char *jep_properties_get(const jep_properties *p, const char *key) {
  for (size_t i = p->count; i > 0; i--)
    if (strcmp(p->items[i - 1].key, key) == 0) return p->items[i - 1].value;
  return NULL;
}

void jep_properties_free(jep_properties *p) {
  for (size_t i = 0; i < p->count; i++) {
    free(p->items[i].key);
    free(p->items[i].value);
  }
  free(p->items);
  memset(p, 0, sizeof *p);
}
