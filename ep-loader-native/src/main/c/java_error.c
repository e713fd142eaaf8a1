#include "java_error.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"

static int is_instance(JNIEnv *env, jobject obj, const char *class_name) {
  jclass cls = (*env)->FindClass(env, class_name);
  if (!cls) {
    (*env)->ExceptionClear(env);
    return 0;
  }
  int yes = (*env)->IsInstanceOf(env, obj, cls) == JNI_TRUE;
  (*env)->DeleteLocalRef(env, cls);
  return yes;
}

/* Copies a Java string as modified UTF-8, which is what JNI offers. */
static char *copy_string(JNIEnv *env, jstring s) {
  if (!s) return NULL;
  const char *chars = (*env)->GetStringUTFChars(env, s, NULL);
  if (!chars) {
    (*env)->ExceptionClear(env);
    return NULL;
  }
  char *out = jep_strdup(chars);
  (*env)->ReleaseStringUTFChars(env, s, chars);
  return out;
}

static char *call_to_string(JNIEnv *env, jobject obj) {
  jclass object = (*env)->FindClass(env, "java/lang/Object");
  jmethodID to_string = object ? (*env)->GetMethodID(env, object, "toString", "()Ljava/lang/String;") : NULL;
  jstring s = to_string ? (jstring)(*env)->CallObjectMethod(env, obj, to_string) : NULL;
  if ((*env)->ExceptionCheck(env)) {
    (*env)->ExceptionClear(env); /* toString() itself threw; we fall back below */
    s = NULL;
  }
  char *text = copy_string(env, s);
  if (s) (*env)->DeleteLocalRef(env, s);
  if (object) (*env)->DeleteLocalRef(env, object);
  return text;
}

static void print_stack_trace(JNIEnv *env, jthrowable t) {
  jclass throwable = (*env)->FindClass(env, "java/lang/Throwable");
  jmethodID print = throwable ? (*env)->GetMethodID(env, throwable, "printStackTrace", "()V") : NULL;
  if (print) (*env)->CallVoidMethod(env, t, print);
  (*env)->ExceptionClear(env);
  if (throwable) (*env)->DeleteLocalRef(env, throwable);
}

int jep_take_exception(JNIEnv *env, int print_stack, jep_java_exception *out) {
  memset(out, 0, sizeof *out);
  jthrowable t = (*env)->ExceptionOccurred(env);
  if (!t) return 0;
  (*env)->ExceptionClear(env);
  out->old_jvm = is_instance(env, t, "java/lang/UnsupportedClassVersionError");
  out->class_not_found =
      is_instance(env, t, "java/lang/ClassNotFoundException") || is_instance(env, t, "java/lang/NoClassDefFoundError");
  out->text = call_to_string(env, t);
  if (!out->text) out->text = jep_strdup("a Java exception whose toString() failed");
  if (print_stack) print_stack_trace(env, t);
  (*env)->DeleteLocalRef(env, t);
  return 1;
}

void jep_java_exception_free(jep_java_exception *e) {
  free(e->text);
  e->text = NULL;
}

char *jep_java_version(JNIEnv *env) {
  char *out = NULL;
  jclass system = (*env)->FindClass(env, "java/lang/System");
  jmethodID get = system ? (*env)->GetStaticMethodID(env, system, "getProperty", "(Ljava/lang/String;)Ljava/lang/String;")
                         : NULL;
  jstring key = get ? (*env)->NewStringUTF(env, "java.version") : NULL;
  jstring value = key ? (jstring)(*env)->CallStaticObjectMethod(env, system, get, key) : NULL;
  if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
  else out = copy_string(env, value);
  if (value) (*env)->DeleteLocalRef(env, value);
  if (key) (*env)->DeleteLocalRef(env, key);
  if (system) (*env)->DeleteLocalRef(env, system);
  return out ? out : jep_strdup("unknown");
}
