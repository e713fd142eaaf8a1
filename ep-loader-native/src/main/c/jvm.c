#include "jvm.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "debug_log.h"
#include "ort_min.h"
#include "platform.h"

/* The newest JNI version our jni.h knows that every JDK 25 supports. Asking for it makes an
 * older JVM (before 21) refuse cleanly with JNI_EVERSION instead of failing later. */
#ifdef JNI_VERSION_21
#define JEP_JNI_CREATE_VERSION JNI_VERSION_21
#else
#define JEP_JNI_CREATE_VERSION JNI_VERSION_1_8
#endif

typedef jint(JNICALL *get_created_vms_fn)(JavaVM **, jsize, jsize *);
typedef jint(JNICALL *create_vm_fn)(JavaVM **, void **, void *);

/* Guarded by jep_lock. */
static JavaVM *current_vm;
static jep_error *creation_failure;

static JavaVM *find_running_vm(void) {
  get_created_vms_fn get = (get_created_vms_fn)jep_global_sym("JNI_GetCreatedJavaVMs");
  /* The no-load handle is never closed: libjvm is never unloaded anyway. */
  if (!get) get = (get_created_vms_fn)jep_lib_sym(jep_lib_loaded_jvm(), "JNI_GetCreatedJavaVMs");
  if (!get) return NULL;
  JavaVM *vms[1];
  jsize n = 0;
  if (get(vms, 1, &n) != JNI_OK || n < 1) return NULL;
  return vms[0];
}

static jep_error *check_class_path(const jep_config *cfg) {
  if (cfg->class_path_count == 0)
    return jep_fail(JEP_ORT_INVALID_ARGUMENT,
                    "no class path configured for the JVM: set JAVAEP_CLASSPATH or class.path in %s to the javaep "
                    "jars (lib/*.jar of the javaep distribution)",
                    cfg->properties_path);
  for (size_t i = 0; i < cfg->class_path_count; i++)
    if (jep_path_exists(cfg->class_path[i])) return NULL;
  return jep_fail(JEP_ORT_NO_SUCHFILE,
                  "none of the class path entries exists (class path '%s' from %s): set JAVAEP_CLASSPATH or "
                  "class.path in %s to the javaep jars (lib/*.jar of the javaep distribution)",
                  cfg->class_path_joined, cfg->class_path_from, cfg->properties_path);
}

static char *option(const char *prefix, const char *value) {
  jep_buf b = {0};
  jep_buf_append(&b, prefix);
  jep_buf_append(&b, value);
  return jep_buf_take(&b);
}

static jep_error *describe_create_failure(jint rc, const jep_config *cfg, const char *libjvm) {
  switch (rc) {
    case JNI_EVERSION:
      return jep_fail(JEP_ORT_FAIL,
                      "the JVM in '%s' (java.home from %s) is too old: javaep needs Java 25 or newer; set "
                      "JAVAEP_JAVA_HOME or java.home in %s to a JDK 25 home",
                      libjvm, cfg->java_home_from, cfg->properties_path);
    case JNI_ENOMEM:
      return jep_fail(JEP_ORT_FAIL,
                      "JNI_CreateJavaVM ran out of memory with '%s': lower -Xmx/-Xss in jvm.options "
                      "(javaep.properties) or JAVAEP_JVM_OPTIONS",
                      libjvm);
    case JNI_EEXIST:
      return jep_fail(JEP_ORT_FAIL,
                      "JNI_CreateJavaVM says a JVM already exists in this process, but JNI_GetCreatedJavaVMs "
                      "does not show it (another libjvm, not visible to the loader, may run it): make the process "
                      "use one JDK, or set JAVAEP_JAVA_HOME to the JDK it already runs");
    default:
      return jep_fail(JEP_ORT_FAIL,
                      "JNI_CreateJavaVM failed with code %d using '%s' (the JVM printed its reason on stderr): "
                      "check jvm.options in %s and JAVAEP_JVM_OPTIONS",
                      (int)rc, libjvm, cfg->properties_path);
  }
}

/* Loads libjvm and creates the JVM on the calling thread, which is left attached. */
static jep_error *create_vm(const jep_config *cfg, JavaVM **vm, JNIEnv **env, int *attempted) {
  *attempted = 0;
  if (!cfg->java_home)
    return jep_fail(JEP_ORT_NO_SUCHFILE,
                    "no JDK configured (JAVAEP_JAVA_HOME, java.home in %s and JAVA_HOME are all unset): set "
                    "JAVAEP_JAVA_HOME or java.home in %s to a JDK 25 home",
                    cfg->properties_path, cfg->properties_path);
  jep_error *err;
  jep_buf path = {0};
  jep_buf_append(&path, cfg->java_home);
  if (path.len > 0 && !jep_is_dir_sep(path.data[path.len - 1])) jep_buf_append_char(&path, JEP_DIR_SEP);
  jep_buf_append(&path, JEP_LIBJVM_IN_HOME);
  char *libjvm = jep_buf_take(&path);
  if (!libjvm) return jep_fail(JEP_ORT_FAIL, "out of memory while locating libjvm");

  jep_preload_jdk_runtime(cfg->java_home);
  char *why = NULL;
  void *lib = jep_lib_open(libjvm, &why);
  if (!lib) {
    err = jep_fail(JEP_ORT_NO_SUCHFILE,
                   "cannot load " JEP_LIBJVM_NAME " from '%s' (%s): set JAVAEP_JAVA_HOME or java.home in %s to a "
                   "JDK 25 home (java.home '%s' came from %s)",
                   libjvm, why ? why : "unknown reason", cfg->properties_path, cfg->java_home, cfg->java_home_from);
    free(why);
    free(libjvm);
    return err;
  }
  create_vm_fn create = (create_vm_fn)jep_lib_sym(lib, "JNI_CreateJavaVM");
  if (!create) {
    err = jep_fail(JEP_ORT_NO_SUCHFILE,
                   "'%s' has no JNI_CreateJavaVM, so it is not a JVM: set JAVAEP_JAVA_HOME or java.home in %s to a "
                   "JDK 25 home",
                   libjvm, cfg->properties_path);
    free(libjvm);
    return err;
  }

  /* Checked after libjvm loads, so a missing JDK is reported first, and before the JVM is
   * created, so a useless class path does not spend the process's only chance to create one. */
  if ((err = check_class_path(cfg))) {
    free(libjvm);
    return err;
  }

  size_t n = 4 + cfg->jvm_option_count;
  JavaVMOption *options = calloc(n, sizeof *options);
  char *class_path = option("-Djava.class.path=", cfg->class_path_joined);
  char *home = option("-Djavaep.home=", cfg->library_dir);
  if (!options || !class_path || !home) {
    free(options);
    free(class_path);
    free(home);
    free(libjvm);
    return jep_fail(JEP_ORT_FAIL, "out of memory while preparing the JVM options");
  }
  options[0].optionString = class_path;
  options[1].optionString = "-Xrs"; /* leave SIGINT/SIGTERM/SIGQUIT to the host */
  options[2].optionString = "--enable-native-access=ALL-UNNAMED"; /* FFM without warnings */
  options[3].optionString = home;
  for (size_t i = 0; i < cfg->jvm_option_count; i++) options[4 + i].optionString = cfg->jvm_options[i];

  JavaVMInitArgs args;
  memset(&args, 0, sizeof args);
  args.version = JEP_JNI_CREATE_VERSION;
  args.nOptions = (jint)n;
  args.options = options;
  args.ignoreUnrecognized = JNI_FALSE; /* a typo in jvm.options should be an error, not silence */

  jep_debug("creating a JVM from %s", libjvm);
  for (size_t i = 0; i < n; i++) jep_debug("  JVM option %s", options[i].optionString);
  *attempted = 1;
  jint rc = create(vm, (void **)env, &args);
  err = rc == JNI_OK ? NULL : describe_create_failure(rc, cfg, libjvm);
  if (!err) jep_debug("JVM created");

  free(options);
  free(class_path);
  free(home);
  free(libjvm);
  return err;
}

static jep_error *attach(JavaVM *vm, jep_thread *t) {
  t->vm = vm;
  t->attached = 0;
  jint rc = (*vm)->GetEnv(vm, (void **)&t->env, JNI_VERSION_1_8);
  if (rc == JNI_OK) return NULL;
  if (rc != JNI_EDETACHED)
    return jep_fail(JEP_ORT_FAIL, "the running JVM refused GetEnv(JNI 1.8) with code %d: javaep needs Java 25 or newer",
                    (int)rc);
  JavaVMAttachArgs args = {JNI_VERSION_1_8, "javaep-loader", NULL};
  rc = (*vm)->AttachCurrentThread(vm, (void **)&t->env, &args);
  if (rc != JNI_OK) return jep_fail(JEP_ORT_FAIL, "cannot attach this thread to the JVM (code %d)", (int)rc);
  t->attached = 1;
  jep_debug("attached the calling thread to the JVM");
  return NULL;
}

jep_error *jep_jvm_enter(const jep_config *cfg, jep_thread *t) {
  memset(t, 0, sizeof *t);
  jep_error *err = NULL;
  int created_here = 0;

  jep_lock();
  if (!current_vm && creation_failure) {
    err = jep_fail(creation_failure->code,
                   "%s (JNI_CreateJavaVM already failed once in this process and a JVM cannot be created twice: "
                   "restart the process after fixing it)",
                   creation_failure->message);
  } else if (!current_vm) {
    JavaVM *running = find_running_vm();
    if (running) {
      jep_debug("joining the JVM already running in this process");
      current_vm = running;
    } else {
      int attempted = 0;
      JavaVM *vm = NULL;
      JNIEnv *env = NULL;
      err = create_vm(cfg, &vm, &env, &attempted);
      if (!err) {
        current_vm = vm;
        t->vm = vm;
        t->env = env;
        t->attached = 1; /* the creating thread was attached by JNI_CreateJavaVM; we let it go after the call */
        created_here = 1;
      } else if (attempted) {
        /* Only a real JNI_CreateJavaVM attempt is final; a missing libjvm can be fixed and retried. */
        creation_failure = jep_error_copy(err);
      }
    }
  }
  JavaVM *vm = current_vm;
  jep_unlock();

  if (err || created_here) return err;
  return attach(vm, t);
}

jep_error *jep_jvm_enter_existing(jep_thread *t) {
  memset(t, 0, sizeof *t);
  jep_lock();
  if (!current_vm) current_vm = find_running_vm();
  JavaVM *vm = current_vm;
  jep_unlock();
  if (!vm)
    return jep_fail(JEP_ORT_INVALID_ARGUMENT,
                    "ReleaseEpFactory was called but this process has no JVM, so the factory was not made by javaep");
  return attach(vm, t);
}

void jep_jvm_leave(jep_thread *t) {
  if (t->attached && t->vm) {
    (*t->vm)->DetachCurrentThread(t->vm);
    jep_debug("detached the calling thread from the JVM");
  }
  t->attached = 0;
  t->env = NULL;
}
