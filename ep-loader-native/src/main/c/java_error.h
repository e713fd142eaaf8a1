/*
 * Turns a pending Java exception into text for an OrtStatus. The exception is always cleared:
 * the thread may belong to the host and must go back to it clean.
 */
#ifndef JAVAEP_JAVA_ERROR_H
#define JAVAEP_JAVA_ERROR_H

#include <jni.h>

typedef struct jep_java_exception {
  char *text;           /* Throwable.toString(); heap */
  int old_jvm;          /* UnsupportedClassVersionError: the classes need a newer Java */
  int class_not_found;  /* ClassNotFoundException or NoClassDefFoundError */
} jep_java_exception;

/* Returns 0 when no exception is pending. With print_stack the stack trace goes to stderr
 * (System.err), which is where our messages say to look. */
int jep_take_exception(JNIEnv *env, int print_stack, jep_java_exception *out);
void jep_java_exception_free(jep_java_exception *e);

/* System.getProperty("java.version") of the running JVM, or "unknown"; heap. */
char *jep_java_version(JNIEnv *env);

#endif
