/* Windows implementation of platform.h: UTF-8 inside, UTF-16 at every Win32 call. */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include "buf.h"
#include "platform.h"

static wchar_t *to_wide(const char *s) {
  int n = MultiByteToWideChar(CP_UTF8, 0, s, -1, NULL, 0);
  if (n <= 0) return NULL;
  wchar_t *w = malloc((size_t)n * sizeof *w);
  if (w && MultiByteToWideChar(CP_UTF8, 0, s, -1, w, n) <= 0) {
    free(w);
    return NULL;
  }
  return w;
}

static char *to_utf8(const wchar_t *w) {
  int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
  if (n <= 0) return NULL;
  char *s = malloc((size_t)n);
  if (s && WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL) <= 0) {
    free(s);
    return NULL;
  }
  return s;
}

char *jep_getenv(const char *name) {
  wchar_t *wname = to_wide(name);
  if (!wname) return NULL;
  char *out = NULL;
  DWORD n = GetEnvironmentVariableW(wname, NULL, 0);
  if (n > 1) {
    wchar_t *w = malloc(n * sizeof *w);
    if (w && GetEnvironmentVariableW(wname, w, n) > 0) out = to_utf8(w);
    free(w);
  }
  free(wname);
  return out;
}

static void self_anchor(void) {}

char *jep_self_path(void) {
  HMODULE self = NULL;
  if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                          (LPCWSTR)(void *)(uintptr_t)&self_anchor, &self))
    return NULL;
  /* GetModuleFileNameW truncates silently; grow until the answer fits. */
  for (DWORD size = MAX_PATH; size <= 32768 * 2; size *= 2) {
    wchar_t *w = malloc(size * sizeof *w);
    if (!w) return NULL;
    DWORD n = GetModuleFileNameW(self, w, size);
    if (n > 0 && n < size) {
      char *out = to_utf8(w);
      free(w);
      return out;
    }
    free(w);
    if (n == 0) return NULL;
  }
  return NULL;
}

char *jep_current_dir(void) {
  DWORD n = GetCurrentDirectoryW(0, NULL);
  if (n == 0) return NULL;
  wchar_t *w = malloc(n * sizeof *w);
  if (!w) return NULL;
  char *out = GetCurrentDirectoryW(n, w) ? to_utf8(w) : NULL;
  free(w);
  return out;
}

int jep_is_dir_sep(char c) { return c == '\\' || c == '/'; }

int jep_path_is_absolute(const char *p) {
  /* C:\x, C:/x, \\server\share, and rooted \x all count: none may be joined to a base folder. */
  if (jep_is_dir_sep(p[0])) return 1;
  return ((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':' && jep_is_dir_sep(p[2]);
}

int jep_path_exists(const char *path) {
  wchar_t *w = to_wide(path);
  if (!w) return 0;
  DWORD attrs = GetFileAttributesW(w);
  free(w);
  return attrs != INVALID_FILE_ATTRIBUTES;
}

FILE *jep_fopen_read(const char *path) {
  wchar_t *w = to_wide(path);
  if (!w) return NULL;
  FILE *f = _wfopen(w, L"r");
  free(w);
  return f;
}

static char *last_error_text(void) {
  DWORD code = GetLastError();
  wchar_t *msg = NULL;
  DWORD n = FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
                           NULL, code, 0, (LPWSTR)(void *)&msg, 0, NULL);
  jep_buf b = {0};
  if (n && msg) {
    while (n > 0 && (msg[n - 1] == L'\r' || msg[n - 1] == L'\n' || msg[n - 1] == L' ')) msg[--n] = 0;
    char *text = to_utf8(msg);
    jep_buf_appendf(&b, "%s (error %lu)", text ? text : "?", (unsigned long)code);
    free(text);
  } else {
    jep_buf_appendf(&b, "error %lu", (unsigned long)code);
  }
  if (msg) LocalFree(msg);
  return jep_buf_take(&b);
}

static HMODULE load(const char *path) {
  wchar_t *w = to_wide(path);
  if (!w) return NULL;
  /* The same flag ORT uses: dependencies are searched in the DLL's own folder first. */
  HMODULE h = LoadLibraryExW(w, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
  free(w);
  return h;
}

void *jep_lib_open(const char *path, char **error) {
  /* Keep Windows from showing a "DLL not found" dialog box inside someone else's process. */
  UINT old_mode = SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
  HMODULE h = load(path);
  if (!h && error) *error = last_error_text();
  SetErrorMode(old_mode);
  return (void *)h;
}

void *jep_lib_sym(void *lib, const char *name) {
  return lib ? (void *)(uintptr_t)GetProcAddress((HMODULE)lib, name) : NULL;
}

void *jep_lib_loaded_jvm(void) { return (void *)GetModuleHandleW(L"jvm.dll"); }

void *jep_global_sym(const char *name) {
  (void)name;
  return NULL;
}

void jep_preload_jdk_runtime(const char *java_home) {
  static const char *const names[] = {"vcruntime140.dll", "vcruntime140_1.dll", "msvcp140.dll"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    jep_buf b = {0};
    jep_buf_appendf(&b, "%s\\bin\\%s", java_home, names[i]);
    char *path = jep_buf_take(&b);
    if (path && jep_path_exists(path)) (void)load(path); /* best effort; jvm.dll reports what is missing */
    free(path);
  }
}

static SRWLOCK lock = SRWLOCK_INIT;

void jep_lock(void) { AcquireSRWLockExclusive(&lock); }

void jep_unlock(void) { ReleaseSRWLockExclusive(&lock); }

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

char **jep_list_jars(const char *dir, size_t *count) {
  *count = 0;
  jep_buf pattern = {0};
  jep_buf_appendf(&pattern, "%s\\*", dir);
  char *p = jep_buf_take(&pattern);
  wchar_t *w = p ? to_wide(p) : NULL;
  free(p);
  if (!w) return NULL;
  WIN32_FIND_DATAW fd;
  HANDLE h = FindFirstFileW(w, &fd);
  free(w);
  if (h == INVALID_HANDLE_VALUE) return NULL;
  char **names = NULL;
  size_t n = 0;
  do {
    if (fd.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) continue;
    size_t len = wcslen(fd.cFileName);
    if (len <= 4 || _wcsicmp(fd.cFileName + len - 4, L".jar") != 0) continue;
    char **grown = realloc(names, (n + 1) * sizeof *grown);
    if (!grown) break;
    names = grown;
    if ((names[n] = to_utf8(fd.cFileName)) != NULL) n++;
  } while (FindNextFileW(h, &fd));
  FindClose(h);
  if (n) qsort(names, n, sizeof *names, by_name);
  *count = n;
  return names;
}
