/*
 * Finds the Java side of the loader, dev.javaep.boot.NativeEntry, and its two static methods.
 *
 * In a JVM the loader created, the class is on java.class.path. In a JVM the loader joined (a
 * Java host that also uses ORT), the host's class path may already have it (found through
 * FindClass, the thread's context class loader or the system class loader); if not, the loader
 * builds a URLClassLoader over the configured class path, child of the system class loader.
 * The class is cached as a global reference for the life of the process.
 */
#ifndef JAVAEP_ENTRY_CLASS_H
#define JAVAEP_ENTRY_CLASS_H

#include <jni.h>

#include "config.h"
#include "error.h"

#define JEP_ENTRY_CLASS "dev.javaep.boot.NativeEntry"
#define JEP_ENTRY_CLASS_JNI "dev/javaep/boot/NativeEntry"
#define JEP_CREATE_NAME "createEpFactories"
#define JEP_CREATE_SIG "(JJJJJJ)J"
#define JEP_RELEASE_NAME "releaseEpFactory"
#define JEP_RELEASE_SIG "(J)J"

typedef struct jep_entry {
  jclass cls; /* global reference */
  jmethodID create;
  jmethodID release;
} jep_entry;

/* Loads (once) and returns the entry class. Needs a local frame of about 16 references. */
jep_error *jep_entry_resolve(JNIEnv *env, const jep_config *cfg, jep_entry *out);
/* The entry resolved earlier, for ReleaseEpFactory; fails if there was none. */
jep_error *jep_entry_cached(jep_entry *out);

#endif
