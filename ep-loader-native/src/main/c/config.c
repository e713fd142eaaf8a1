#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "debug_log.h"
#include "ort_min.h"
#include "platform.h"
#include "properties.h"

static jep_error *oom(void) { return jep_fail(JEP_ORT_FAIL, "out of memory while reading the loader configuration"); }

static char *dir_of(const char *path) {
  size_t n = strlen(path);
  while (n > 0 && !jep_is_dir_sep(path[n - 1])) n--;
  while (n > 1 && jep_is_dir_sep(path[n - 1])) n--; /* drop the separator, keep a lone root */
  jep_buf b = {0};
  if (n == 0) jep_buf_append(&b, ".");
  else jep_buf_append_n(&b, path, n);
  return jep_buf_take(&b);
}

static char *join(const char *dir, const char *name) {
  jep_buf b = {0};
  jep_buf_append(&b, dir);
  if (b.len > 0 && !jep_is_dir_sep(b.data[b.len - 1])) jep_buf_append_char(&b, JEP_DIR_SEP);
  jep_buf_append(&b, name);
  return jep_buf_take(&b);
}

static int push(char ***items, size_t *count, char *item) {
  if (!item) return 0;
  char **grown = realloc(*items, (*count + 1) * sizeof *grown);
  if (!grown) {
    free(item);
    return 0;
  }
  grown[(*count)++] = item;
  *items = grown;
  return 1;
}

/* An entry "<dir><separator><star>" means every jar in dir, as on the java command line;
 * JNI_CreateJavaVM does not expand it (the launcher does), so the loader must. */
static int is_wildcard(const char *entry) {
  size_t n = strlen(entry);
  return (n == 1 && entry[0] == '*') || (n >= 2 && entry[n - 1] == '*' && jep_is_dir_sep(entry[n - 2]));
}

static jep_error *add_jars_of(jep_config *c, const char *wildcard) {
  jep_buf b = {0};
  jep_buf_append_n(&b, wildcard, strlen(wildcard) - 1);
  char *dir = jep_buf_take(&b);
  if (!dir) return oom();
  size_t n = 0;
  char **jars = jep_list_jars(*dir ? dir : ".", &n);
  jep_error *err = NULL;
  for (size_t i = 0; i < n; i++) {
    if (!err && !push(&c->class_path, &c->class_path_count, join(dir, jars[i]))) err = oom();
    free(jars[i]);
  }
  free(jars);
  if (n == 0) {
    /* Keep the pattern: error messages then show it, and it counts as a missing entry. */
    jep_debug("class path entry '%s' matches no jar", wildcard);
    if (!push(&c->class_path, &c->class_path_count, jep_strdup(wildcard))) err = oom();
  }
  free(dir);
  return err;
}

/* Splits a class path on the platform separator; relative entries are resolved against base. */
static jep_error *add_class_path(jep_config *c, const char *list, const char *base) {
  const char *p = list;
  while (*p) {
    const char *end = strchr(p, JEP_PATH_LIST_SEP);
    size_t n = end ? (size_t)(end - p) : strlen(p);
    while (n > 0 && (*p == ' ' || *p == '\t')) p++, n--;
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t')) n--;
    if (n > 0) {
      jep_buf b = {0};
      jep_buf_append_n(&b, p, n);
      char *entry = jep_buf_take(&b);
      if (entry && !jep_path_is_absolute(entry)) {
        char *abs = join(base, entry);
        free(entry);
        entry = abs;
      }
      if (entry && is_wildcard(entry)) {
        jep_error *err = add_jars_of(c, entry);
        free(entry);
        if (err) return err;
      } else if (!push(&c->class_path, &c->class_path_count, entry)) {
        return oom();
      }
    }
    p += end ? (size_t)(end - p) + 1 : strlen(p);
  }
  return NULL;
}

static char *join_class_path(const jep_config *c) {
  jep_buf b = {0};
  jep_buf_append(&b, "");
  for (size_t i = 0; i < c->class_path_count; i++) {
    if (i) jep_buf_append_char(&b, JEP_PATH_LIST_SEP);
    jep_buf_append(&b, c->class_path[i]);
  }
  return jep_buf_take(&b);
}

/* JVM options are split on whitespace; there is no quoting (options with spaces are not supported). */
static jep_error *add_options(jep_config *c, const char *text) {
  const char *p = text;
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    if (!*p) return NULL;
    const char *start = p;
    while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') p++;
    jep_buf b = {0};
    jep_buf_append_n(&b, start, (size_t)(p - start));
    if (!push(&c->jvm_options, &c->jvm_option_count, jep_buf_take(&b))) return oom();
  }
}

static jep_error *resolve(jep_config *c, const jep_properties *props) {
  jep_error *err;

  c->java_home = jep_getenv("JAVAEP_JAVA_HOME");
  c->java_home_from = "JAVAEP_JAVA_HOME";
  const char *home = jep_properties_get(props, "java.home");
  if (!c->java_home && home && *home) {
    /* Relative to the properties file's folder, like class.path: a distribution that carries its
     * own runtime (java.home=runtime) works wherever it is copied. */
    c->java_home = jep_path_is_absolute(home) ? jep_strdup(home) : join(c->library_dir, home);
    if (!c->java_home) return oom();
    c->java_home_from = "java.home in javaep.properties";
  }
  if (!c->java_home) {
    c->java_home = jep_getenv("JAVA_HOME");
    c->java_home_from = "JAVA_HOME";
  }
  if (!c->java_home) c->java_home_from = "nothing";

  char *env_cp = jep_getenv("JAVAEP_CLASSPATH");
  if (env_cp) {
    char *cwd = jep_current_dir();
    err = cwd ? add_class_path(c, env_cp, cwd) : jep_fail(JEP_ORT_FAIL, "cannot read the current directory to resolve JAVAEP_CLASSPATH");
    c->class_path_from = "JAVAEP_CLASSPATH";
    free(cwd);
    free(env_cp);
    if (err) return err;
  } else if (jep_properties_get(props, "class.path")) {
    c->class_path_from = "class.path in javaep.properties";
    if ((err = add_class_path(c, jep_properties_get(props, "class.path"), c->library_dir))) return err;
  } else {
    c->class_path_from = "nothing";
  }
  if (!(c->class_path_joined = join_class_path(c))) return oom();

  if (jep_properties_get(props, "jvm.options") && (err = add_options(c, jep_properties_get(props, "jvm.options"))))
    return err;
  char *env_opts = jep_getenv("JAVAEP_JVM_OPTIONS");
  if (env_opts) {
    err = add_options(c, env_opts);
    free(env_opts);
    if (err) return err;
  }
  return NULL;
}

jep_error *jep_config_load(jep_config *out) {
  memset(out, 0, sizeof *out);
  out->library_path = jep_self_path();
  if (!out->library_path)
    return jep_fail(JEP_ORT_FAIL, "cannot find the path of the loader library itself, so javaep.properties cannot be located");
  if (!(out->library_dir = dir_of(out->library_path)) ||
      !(out->properties_path = join(out->library_dir, "javaep.properties"))) {
    jep_config_free(out);
    return oom();
  }

  jep_properties props;
  jep_error *err = jep_properties_load(out->properties_path, &props);
  if (!err) {
    out->properties_found = props.found;
    err = resolve(out, &props);
    jep_properties_free(&props);
  }
  if (err) {
    jep_config_free(out);
    return err;
  }

  jep_debug("library %s", out->library_path);
  jep_debug("properties %s (%s)", out->properties_path, out->properties_found ? "read" : "not present");
  jep_debug("java.home '%s' from %s", out->java_home ? out->java_home : "", out->java_home_from);
  jep_debug("class path '%s' from %s", out->class_path_joined, out->class_path_from);
  for (size_t i = 0; i < out->jvm_option_count; i++) jep_debug("extra JVM option %s", out->jvm_options[i]);
  return NULL;
}

void jep_config_free(jep_config *c) {
  free(c->library_path);
  free(c->library_dir);
  free(c->properties_path);
  free(c->java_home);
  for (size_t i = 0; i < c->class_path_count; i++) free(c->class_path[i]);
  free(c->class_path);
  free(c->class_path_joined);
  for (size_t i = 0; i < c->jvm_option_count; i++) free(c->jvm_options[i]);
  free(c->jvm_options);
  memset(c, 0, sizeof *c);
}
