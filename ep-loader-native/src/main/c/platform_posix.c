/* Linux implementation of platform.h. */
#define _GNU_SOURCE /* dladdr, RTLD_DEFAULT, RTLD_NOLOAD, realpath */

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "platform.h"

char *jep_getenv(const char *name) {
  const char *v = getenv(name);
  return v && *v ? jep_strdup(v) : NULL;
}

/* Any static symbol of ours: dladdr maps it back to the file this code was loaded from. */
static void self_anchor(void) {}

char *jep_self_path(void) {
  Dl_info info;
  if (!dladdr((void *)(uintptr_t)&self_anchor, &info) || !info.dli_fname) return NULL;
  /* dli_fname is the name ORT passed to dlopen; resolve it so a symlinked library finds the
   * javaep.properties of the folder it really lives in, and a relative name survives chdir. */
  char *resolved = realpath(info.dli_fname, NULL);
  return resolved ? resolved : jep_strdup(info.dli_fname);
}

char *jep_current_dir(void) {
  size_t size = 256;
  for (;;) {
    char *buf = malloc(size);
    if (!buf) return NULL;
    if (getcwd(buf, size)) return buf;
    free(buf);
    if (errno != ERANGE) return NULL;
    size *= 2;
  }
}

int jep_path_is_absolute(const char *path) { return path[0] == '/'; }

int jep_is_dir_sep(char c) { return c == '/'; }

int jep_path_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

FILE *jep_fopen_read(const char *path) { return fopen(path, "r"); }

void *jep_lib_open(const char *path, char **error) {
  /* RTLD_GLOBAL like the java launcher: JNI_GetCreatedJavaVMs stays findable for later joins. */
  void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  if (!h && error) {
    const char *why = dlerror();
    *error = jep_strdup(why ? why : "unknown dlopen error");
  }
  return h;
}

void *jep_lib_sym(void *lib, const char *name) { return lib ? dlsym(lib, name) : NULL; }

void *jep_lib_loaded_jvm(void) {
  /* RTLD_NOLOAD matches an already loaded libjvm.so by its soname even if it was loaded
   * RTLD_LOCAL by someone else, where RTLD_DEFAULT cannot see it. */
  return dlopen(JEP_LIBJVM_NAME, RTLD_NOW | RTLD_NOLOAD);
}

void *jep_global_sym(const char *name) { return dlsym(RTLD_DEFAULT, name); }

void jep_preload_jdk_runtime(const char *java_home) { (void)java_home; }

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void jep_lock(void) { pthread_mutex_lock(&lock); }

void jep_unlock(void) { pthread_mutex_unlock(&lock); }

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int is_jar_name(const char *name) {
  size_t n = strlen(name);
  return n > 4 && (strcmp(name + n - 4, ".jar") == 0 || strcmp(name + n - 4, ".JAR") == 0);
}

char **jep_list_jars(const char *dir, size_t *count) {
  *count = 0;
  DIR *d = opendir(dir);
  if (!d) return NULL;
  char **names = NULL;
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (!is_jar_name(e->d_name)) continue;
    char **grown = realloc(names, (n + 1) * sizeof *grown);
    if (!grown) break;
    names = grown;
    if ((names[n] = jep_strdup(e->d_name)) != NULL) n++;
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, by_name);
  *count = n;
  return names;
}
