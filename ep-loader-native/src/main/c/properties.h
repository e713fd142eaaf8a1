/*
 * Reads javaep.properties: "key=value" lines, "#" or "!" comments, blank lines ignored,
 * whitespace around keys and values trimmed, the last occurrence of a key wins.
 *
 * Backslash is an escape only before \ : = # ! space, and in \uXXXX (what java.util.Properties
 * .store writes); any other backslash is kept, so a hand-written C:\jdk\bin stays intact.
 * The file is read as UTF-8.
 */
#ifndef JAVAEP_PROPERTIES_H
#define JAVAEP_PROPERTIES_H

#include <stddef.h>

#include "error.h"

typedef struct jep_property {
  char *key;
  char *value;
} jep_property;

typedef struct jep_properties {
  jep_property *items;
  size_t count;
  int found; /* the file existed */
} jep_properties;

/* A missing file is not an error (found = 0); an unreadable one is. */
jep_error *jep_properties_load(const char *path, jep_properties *out);
const char *jep_properties_get(const jep_properties *p, const char *key);
void jep_properties_free(jep_properties *p);

#endif
