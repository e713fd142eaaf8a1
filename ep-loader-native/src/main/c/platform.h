/*
 * Everything that differs between Linux and Windows, behind one small interface.
 * All strings are UTF-8; platform_windows.c converts to and from UTF-16 at the edge.
 * Returned strings are heap-allocated and owned by the caller unless said otherwise.
 */
#ifndef JAVAEP_PLATFORM_H
#define JAVAEP_PLATFORM_H

#include <stddef.h>
#include <stdio.h>

#ifdef _WIN32
#define JEP_PATH_LIST_SEP ';'
#define JEP_DIR_SEP '\\'
#define JEP_LIBJVM_IN_HOME "bin\\server\\jvm.dll"
#define JEP_LIBJVM_NAME "jvm.dll"
#else
#define JEP_PATH_LIST_SEP ':'
#define JEP_DIR_SEP '/'
#define JEP_LIBJVM_IN_HOME "lib/server/libjvm.so"
#define JEP_LIBJVM_NAME "libjvm.so"
#endif

/* Environment variable or NULL when unset or empty. */
char *jep_getenv(const char *name);

/* Absolute path of this loader library (libjavaep.so / javaep.dll), or NULL. */
char *jep_self_path(void);

char *jep_current_dir(void);
int jep_path_is_absolute(const char *path);
int jep_is_dir_sep(char c);
int jep_path_exists(const char *path);
FILE *jep_fopen_read(const char *path);
/* The .jar / .JAR files directly inside dir, sorted by name, for class path wildcard entries
 * (dir + separator + star), which only the java launcher expands, not JNI_CreateJavaVM.
 * *count = 0 when there are none or dir is unreadable. */
char **jep_list_jars(const char *dir, size_t *count);

/* Loads a shared library by path the way the Java launcher loads libjvm. On failure returns NULL
 * and sets *error to the system's reason. */
void *jep_lib_open(const char *path, char **error);
void *jep_lib_sym(void *lib, const char *name);
/* Looks for a JVM library that is already loaded; never loads anything. */
void *jep_lib_loaded_jvm(void);
/* A symbol from the process's global scope (NULL on Windows, which has none). */
void *jep_global_sym(const char *name);
/* Windows: load the JDK's own C runtime from <java.home>\bin first, as the java launcher does,
 * because jvm.dll's folder is bin\server and the runtime DLLs live one level up. */
void jep_preload_jdk_runtime(const char *java_home);

/* One process-wide lock for JVM bootstrap and the entry-class cache. */
void jep_lock(void);
void jep_unlock(void);

#endif
