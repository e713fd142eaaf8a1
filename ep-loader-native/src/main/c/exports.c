/*
 * The two symbols ORT looks up in a plugin EP library. Each one gets the calling thread into the
 * JVM, calls the matching static method of dev.javaep.boot.NativeEntry with every pointer as a
 * long, and hands the returned OrtStatus* back to ORT untouched. The loader's own failures become
 * statuses too; nothing here may abort or crash the host.
 */
#include <stdint.h>

#include "config.h"
#include "debug_log.h"
#include "entry_class.h"
#include "java_error.h"
#include "jvm.h"
#include "ort_min.h"
#include "status.h"

#ifdef _WIN32
#define JEP_EXPORT __declspec(dllexport)
#else
#define JEP_EXPORT __attribute__((visibility("default")))
#endif

#define JEP_LOCAL_FRAME 64

static jlong as_long(const void *p) { return (jlong)(intptr_t)p; }

/* Calls one static entry method; a Java exception becomes an error naming it. */
static jep_error *call_entry(JNIEnv *env, const jep_entry *entry, jmethodID method, const char *name, jlong *result,
                             const jlong *args, int nargs) {
  if (nargs == 6)
    *result = (*env)->CallStaticLongMethod(env, entry->cls, method, args[0], args[1], args[2], args[3], args[4], args[5]);
  else
    *result = (*env)->CallStaticLongMethod(env, entry->cls, method, args[0]);
  jep_java_exception ex;
  if (!jep_take_exception(env, 1, &ex)) return NULL;
  jep_error *err = ex.old_jvm ? jep_fail(JEP_ORT_FAIL,
                                         "%s: javaep needs Java 25 or newer (%s): set JAVAEP_JAVA_HOME or java.home in "
                                         "javaep.properties to a JDK 25 home",
                                         name, ex.text)
                              : jep_fail(JEP_ORT_EP_FAIL, JEP_ENTRY_CLASS ".%s threw %s (see stderr)", name, ex.text);
  jep_java_exception_free(&ex);
  *result = 0;
  return err;
}

static jep_error *create_factories(const char *registered_name, const OrtApiBase *ort_api_base,
                                   const OrtLogger *default_logger, OrtEpFactory **factories, size_t max_factories,
                                   size_t *num_factories, jlong *result) {
  if (!factories || !num_factories)
    return jep_fail(JEP_ORT_INVALID_ARGUMENT, "CreateEpFactories was called with a NULL factories or num_factories");

  jep_config cfg;
  jep_error *err = jep_config_load(&cfg);
  if (err) return err;

  jep_thread t;
  err = jep_jvm_enter(&cfg, &t);
  if (!err) {
    if ((*t.env)->PushLocalFrame(t.env, JEP_LOCAL_FRAME) != 0) {
      (*t.env)->ExceptionClear(t.env);
      err = jep_fail(JEP_ORT_FAIL, "out of memory in the JVM");
    } else {
      jep_entry entry;
      err = jep_entry_resolve(t.env, &cfg, &entry);
      if (!err) {
        jep_debug("calling " JEP_ENTRY_CLASS "." JEP_CREATE_NAME " for '%s'", registered_name ? registered_name : "");
        const jlong args[6] = {as_long(registered_name), as_long(ort_api_base), as_long(default_logger),
                               as_long(factories),       (jlong)max_factories,  as_long(num_factories)};
        err = call_entry(t.env, &entry, entry.create, JEP_CREATE_NAME, result, args, 6);
      }
      (*t.env)->PopLocalFrame(t.env, NULL);
    }
    jep_jvm_leave(&t);
  }
  jep_config_free(&cfg);
  return err;
}

JEP_EXPORT OrtStatus *CreateEpFactories(const char *registered_name, const OrtApiBase *ort_api_base,
                                        const OrtLogger *default_logger, OrtEpFactory **factories,
                                        size_t max_factories, size_t *num_factories) {
  jep_debug_refresh();
  /* Zero first: whatever fails below, ORT never sees a stale factory count. */
  if (num_factories) *num_factories = 0;
  if (!ort_api_base) {
    /* Without an OrtApiBase no status can be made; report success with no factories. */
    jep_debug("CreateEpFactories got a NULL OrtApiBase; registering no factories");
    return NULL;
  }
  jep_status_remember(ort_api_base);
  jlong result = 0;
  jep_error *err = create_factories(registered_name, ort_api_base, default_logger, factories, max_factories,
                                    num_factories, &result);
  if (err) {
    if (num_factories) *num_factories = 0;
    return jep_status_from(err);
  }
  return (OrtStatus *)(intptr_t)result;
}

JEP_EXPORT OrtStatus *ReleaseEpFactory(OrtEpFactory *factory) {
  jep_debug_refresh();
  if (!factory) return NULL; /* like free(NULL) */
  jep_entry entry;
  jep_error *err = jep_entry_cached(&entry);
  if (err) return jep_status_from(err);

  jep_thread t;
  jlong result = 0;
  err = jep_jvm_enter_existing(&t);
  if (!err) {
    /* The thread may stay attached after we return (a Java host's, or one an upcall attached):
     * a local frame makes sure no reference outlives the call. */
    if ((*t.env)->PushLocalFrame(t.env, JEP_LOCAL_FRAME) != 0) {
      (*t.env)->ExceptionClear(t.env);
      err = jep_fail(JEP_ORT_FAIL, "out of memory in the JVM");
    } else {
      jep_debug("calling " JEP_ENTRY_CLASS "." JEP_RELEASE_NAME " for factory %p", (void *)factory);
      const jlong args[1] = {as_long(factory)};
      err = call_entry(t.env, &entry, entry.release, JEP_RELEASE_NAME, &result, args, 1);
      (*t.env)->PopLocalFrame(t.env, NULL);
    }
    jep_jvm_leave(&t);
  }
  if (err) return jep_status_from(err);
  return (OrtStatus *)(intptr_t)result;
}
