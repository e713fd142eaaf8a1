/*
 * Gets the calling thread into a JVM: the one already running in the process (joined), or one
 * the loader creates from java.home. A JVM is created at most once per process and never
 * destroyed; a failed JNI_CreateJavaVM is remembered and reported again, because HotSpot cannot
 * be created a second time in the same process.
 */
#ifndef JAVAEP_JVM_H
#define JAVAEP_JVM_H

#include <jni.h>

#include "config.h"
#include "error.h"

typedef struct jep_thread {
  JavaVM *vm;
  JNIEnv *env;
  int attached; /* the loader attached this thread and detaches it in jep_jvm_leave */
} jep_thread;

/* Joins or creates the JVM, then attaches the calling thread if it is not attached yet. */
jep_error *jep_jvm_enter(const jep_config *cfg, jep_thread *t);
/* Attaches to the JVM the loader already uses; fails if there is none. */
jep_error *jep_jvm_enter_existing(jep_thread *t);
/* Detaches the thread if jep_jvm_enter attached it; the JVM itself stays. */
void jep_jvm_leave(jep_thread *t);

#endif
