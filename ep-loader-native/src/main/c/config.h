/*
 * Where the loader's settings come from, resolved into one record.
 *
 *   java.home   JAVAEP_JAVA_HOME > java.home in javaep.properties (relative: against its folder) > JAVA_HOME
 *   class path  JAVAEP_CLASSPATH (relative entries against the current directory)
 *               > class.path in javaep.properties (relative entries against its folder)
 *   options     jvm.options in javaep.properties, then JAVAEP_JVM_OPTIONS (both split on whitespace)
 *
 * Each value remembers where it came from, so error messages can name the setting to change.
 */
#ifndef JAVAEP_CONFIG_H
#define JAVAEP_CONFIG_H

#include <stddef.h>

#include "error.h"

typedef struct jep_config {
  char *library_path;    /* this libjavaep.so / javaep.dll */
  char *library_dir;     /* its folder: javaep.home */
  char *properties_path; /* <library_dir>/javaep.properties */
  int properties_found;

  char *java_home;             /* NULL when configured nowhere */
  const char *java_home_from;  /* human-readable source, e.g. "JAVAEP_JAVA_HOME" */

  char **class_path;           /* absolute entries */
  size_t class_path_count;
  char *class_path_joined;     /* entries joined with the platform separator ("" when none) */
  const char *class_path_from;

  char **jvm_options;
  size_t jvm_option_count;
} jep_config;

jep_error *jep_config_load(jep_config *out);
void jep_config_free(jep_config *c);

#endif
