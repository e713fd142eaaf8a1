#include "entry_class.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "debug_log.h"
#include "java_error.h"
#include "ort_min.h"
#include "platform.h"

/* Guarded by jep_lock. */
static jep_entry cached;
static int have_cached;

static jep_error *old_jvm_error(JNIEnv *env, const jep_config *cfg, const char *detail) {
  char *version = jep_java_version(env);
  jep_error *err = jep_fail(JEP_ORT_FAIL,
                            "the JVM in this process is Java %s, but javaep needs Java 25 or newer (%s): run the "
                            "process on a JDK 25, or, where javaep starts the JVM itself, set JAVAEP_JAVA_HOME or "
                            "java.home in %s to a JDK 25 home",
                            version, detail, cfg->properties_path);
  free(version);
  return err;
}

/* "(missing: a, b)" for entries that do not exist, or "" */
static char *missing_entries(const jep_config *cfg) {
  jep_buf b = {0};
  jep_buf_append(&b, "");
  size_t n = 0;
  for (size_t i = 0; i < cfg->class_path_count; i++) {
    if (jep_path_exists(cfg->class_path[i])) continue;
    jep_buf_append(&b, n++ ? ", " : "; missing: ");
    jep_buf_append(&b, cfg->class_path[i]);
  }
  return jep_buf_take(&b);
}

static jep_error *not_found_error(const jep_config *cfg, const char *why) {
  if (cfg->class_path_count == 0)
    return jep_fail(JEP_ORT_NO_SUCHFILE,
                    "class " JEP_ENTRY_CLASS " is not visible in the running JVM (%s) and no class path is "
                    "configured: set JAVAEP_CLASSPATH or class.path in %s to the javaep jars (lib/*.jar of the "
                    "javaep distribution)",
                    why, cfg->properties_path);
  char *missing = missing_entries(cfg);
  jep_error *err = jep_fail(JEP_ORT_NO_SUCHFILE,
                            "cannot load class " JEP_ENTRY_CLASS " from the class path '%s' (from %s%s): %s: set "
                            "JAVAEP_CLASSPATH or class.path in %s to the javaep jars (lib/*.jar of the javaep "
                            "distribution)",
                            cfg->class_path_joined, cfg->class_path_from, missing ? missing : "", why,
                            cfg->properties_path);
  free(missing);
  return err;
}

/* Turns the pending exception of a failed step into an error. */
static jep_error *pending_error(JNIEnv *env, const jep_config *cfg, const char *step) {
  jep_java_exception ex;
  if (!jep_take_exception(env, 0, &ex)) return jep_fail(JEP_ORT_FAIL, "%s failed without a Java exception", step);
  jep_error *err = ex.old_jvm ? old_jvm_error(env, cfg, ex.text) : ex.class_not_found ? not_found_error(cfg, ex.text)
                                                            : jep_fail(JEP_ORT_FAIL, "%s failed: %s", step, ex.text);
  jep_java_exception_free(&ex);
  return err;
}

/* In a joined JVM, FindClass resolves against the loader of the Java frame that called into
 * native code, which for an FFM downcall may be a JDK-internal frame that cannot see the host's
 * classes. The host's own loaders can: the thread's context class loader, then the system one.
 * Returns a local reference, or NULL with no exception pending. */
static jclass load_with_host_loaders(JNIEnv *env) {
  jclass thread_cls = (*env)->FindClass(env, "java/lang/Thread");
  jclass loader_cls = (*env)->FindClass(env, "java/lang/ClassLoader");
  jmethodID current = thread_cls ? (*env)->GetStaticMethodID(env, thread_cls, "currentThread", "()Ljava/lang/Thread;") : NULL;
  jmethodID context = thread_cls ? (*env)->GetMethodID(env, thread_cls, "getContextClassLoader", "()Ljava/lang/ClassLoader;") : NULL;
  jmethodID system = loader_cls ? (*env)->GetStaticMethodID(env, loader_cls, "getSystemClassLoader", "()Ljava/lang/ClassLoader;") : NULL;
  jmethodID load = loader_cls ? (*env)->GetMethodID(env, loader_cls, "loadClass", "(Ljava/lang/String;)Ljava/lang/Class;") : NULL;
  jstring name = load ? (*env)->NewStringUTF(env, JEP_ENTRY_CLASS) : NULL;
  if (!current || !context || !system || !name) {
    (*env)->ExceptionClear(env);
    return NULL;
  }
  jobject thread = (*env)->CallStaticObjectMethod(env, thread_cls, current);
  jobject loaders[2] = {NULL, NULL};
  if (thread && !(*env)->ExceptionCheck(env)) loaders[0] = (*env)->CallObjectMethod(env, thread, context);
  (*env)->ExceptionClear(env);
  loaders[1] = (*env)->CallStaticObjectMethod(env, loader_cls, system);
  (*env)->ExceptionClear(env);
  for (int i = 0; i < 2; i++) {
    if (!loaders[i]) continue;
    jobject cls = (*env)->CallObjectMethod(env, loaders[i], load, name);
    if (cls && !(*env)->ExceptionCheck(env)) {
      jep_debug("found " JEP_ENTRY_CLASS " through the %s class loader", i == 0 ? "thread context" : "system");
      return (jclass)cls;
    }
    jep_java_exception ex;
    if (jep_take_exception(env, 0, &ex)) {
      jep_debug("the %s class loader cannot load it either (%s)", i == 0 ? "thread context" : "system", ex.text);
      jep_java_exception_free(&ex);
    }
  }
  return NULL;
}

/* new URLClassLoader(urls, ClassLoader.getSystemClassLoader()).loadClass(name). Returns a local
 * reference or NULL with a Java exception pending. */
static jclass load_with_url_class_loader(JNIEnv *env, const jep_config *cfg) {
  jclass file_cls = (*env)->FindClass(env, "java/io/File");
  jclass uri_cls = (*env)->FindClass(env, "java/net/URI");
  jclass url_cls = (*env)->FindClass(env, "java/net/URL");
  jclass loader_cls = (*env)->FindClass(env, "java/lang/ClassLoader");
  jclass url_loader_cls = (*env)->FindClass(env, "java/net/URLClassLoader");
  if (!file_cls || !uri_cls || !url_cls || !loader_cls || !url_loader_cls) return NULL;

  jmethodID file_new = (*env)->GetMethodID(env, file_cls, "<init>", "(Ljava/lang/String;)V");
  jmethodID to_uri = (*env)->GetMethodID(env, file_cls, "toURI", "()Ljava/net/URI;");
  jmethodID to_url = (*env)->GetMethodID(env, uri_cls, "toURL", "()Ljava/net/URL;");
  jmethodID system_loader = (*env)->GetStaticMethodID(env, loader_cls, "getSystemClassLoader", "()Ljava/lang/ClassLoader;");
  jmethodID url_loader_new = (*env)->GetMethodID(env, url_loader_cls, "<init>", "([Ljava/net/URL;Ljava/lang/ClassLoader;)V");
  jmethodID load_class = (*env)->GetMethodID(env, loader_cls, "loadClass", "(Ljava/lang/String;)Ljava/lang/Class;");
  if (!file_new || !to_uri || !to_url || !system_loader || !url_loader_new || !load_class) return NULL;

  jobjectArray urls = (*env)->NewObjectArray(env, (jsize)cfg->class_path_count, url_cls, NULL);
  if (!urls) return NULL;
  for (size_t i = 0; i < cfg->class_path_count; i++) {
    jstring path = (*env)->NewStringUTF(env, cfg->class_path[i]);
    if (!path) return NULL;
    jobject file = (*env)->NewObject(env, file_cls, file_new, path);
    jobject uri = file ? (*env)->CallObjectMethod(env, file, to_uri) : NULL;
    jobject url = uri && !(*env)->ExceptionCheck(env) ? (*env)->CallObjectMethod(env, uri, to_url) : NULL;
    if (!url || (*env)->ExceptionCheck(env)) return NULL;
    (*env)->SetObjectArrayElement(env, urls, (jsize)i, url);
    (*env)->DeleteLocalRef(env, url);
    (*env)->DeleteLocalRef(env, uri);
    (*env)->DeleteLocalRef(env, file);
    (*env)->DeleteLocalRef(env, path);
  }
  jobject parent = (*env)->CallStaticObjectMethod(env, loader_cls, system_loader);
  if ((*env)->ExceptionCheck(env)) return NULL;
  jobject loader = (*env)->NewObject(env, url_loader_cls, url_loader_new, urls, parent);
  if (!loader) return NULL;
  jstring name = (*env)->NewStringUTF(env, JEP_ENTRY_CLASS);
  if (!name) return NULL;
  jobject cls = (*env)->CallObjectMethod(env, loader, load_class, name);
  if ((*env)->ExceptionCheck(env)) return NULL;
  return (jclass)cls;
}

static jep_error *find_class(JNIEnv *env, const jep_config *cfg, jclass *out) {
  *out = (*env)->FindClass(env, JEP_ENTRY_CLASS_JNI);
  if (*out) {
    jep_debug("found " JEP_ENTRY_CLASS " on the JVM's class path");
    return NULL;
  }
  jep_java_exception ex;
  jep_take_exception(env, 0, &ex);
  if (ex.old_jvm) {
    jep_error *err = old_jvm_error(env, cfg, ex.text);
    jep_java_exception_free(&ex);
    return err;
  }
  jep_debug("FindClass(" JEP_ENTRY_CLASS ") failed (%s)", ex.text ? ex.text : "?");
  if ((*out = load_with_host_loaders(env)) != NULL) {
    jep_java_exception_free(&ex);
    return NULL;
  }
  jep_debug("trying a URLClassLoader over the configured class path");
  if (cfg->class_path_count == 0) {
    jep_error *err = not_found_error(cfg, ex.text ? ex.text : "not found");
    jep_java_exception_free(&ex);
    return err;
  }
  jep_java_exception_free(&ex);
  *out = load_with_url_class_loader(env, cfg);
  if (*out) return NULL;
  return pending_error(env, cfg, "loading " JEP_ENTRY_CLASS " through a URLClassLoader");
}

/* GetStaticMethodID also initializes the class, so a failing static initializer shows up here. */
static jep_error *find_method(JNIEnv *env, const jep_config *cfg, jclass cls, const char *name, const char *sig,
                              jmethodID *out) {
  *out = (*env)->GetStaticMethodID(env, cls, name, sig);
  if (*out) return NULL;
  jep_java_exception ex;
  if (!jep_take_exception(env, 1, &ex))
    return jep_fail(JEP_ORT_FAIL, "cannot find " JEP_ENTRY_CLASS ".%s%s", name, sig);
  jep_error *err;
  if (ex.old_jvm) err = old_jvm_error(env, cfg, ex.text);
  else if (strstr(ex.text, "NoSuchMethodError"))
    err = jep_fail(JEP_ORT_FAIL,
                   "class " JEP_ENTRY_CLASS " has no static method %s%s (%s): the javaep jars on the class path "
                   "('%s') do not match this loader; use the loader and the jars of one javaep distribution",
                   name, sig, ex.text, cfg->class_path_joined);
  else
    err = jep_fail(JEP_ORT_EP_FAIL, "initializing class " JEP_ENTRY_CLASS " failed: %s (see stderr)", ex.text);
  jep_java_exception_free(&ex);
  return err;
}

static int take_cached(jep_entry *out) {
  jep_lock();
  int have = have_cached;
  if (have) *out = cached;
  jep_unlock();
  return have;
}

jep_error *jep_entry_resolve(JNIEnv *env, const jep_config *cfg, jep_entry *out) {
  if (take_cached(out)) return NULL;

  jclass cls = NULL;
  jep_entry found = {0};
  jep_error *err = find_class(env, cfg, &cls);
  if (!err) err = find_method(env, cfg, cls, JEP_CREATE_NAME, JEP_CREATE_SIG, &found.create);
  if (!err) err = find_method(env, cfg, cls, JEP_RELEASE_NAME, JEP_RELEASE_SIG, &found.release);
  if (!err && !(found.cls = (jclass)(*env)->NewGlobalRef(env, cls)))
    err = jep_fail(JEP_ORT_FAIL, "out of memory in the JVM while keeping " JEP_ENTRY_CLASS);
  if (cls) (*env)->DeleteLocalRef(env, cls);
  if (err) return err;

  jep_lock();
  if (have_cached) {
    /* Another thread won the race; both found the same class, keep the first. */
    (*env)->DeleteGlobalRef(env, found.cls);
  } else {
    cached = found;
    have_cached = 1;
  }
  *out = cached;
  jep_unlock();
  return NULL;
}

jep_error *jep_entry_cached(jep_entry *out) {
  if (!take_cached(out))
    return jep_fail(JEP_ORT_INVALID_ARGUMENT,
                    "ReleaseEpFactory was called before CreateEpFactories succeeded, so the factory is not javaep's");
  return NULL;
}
