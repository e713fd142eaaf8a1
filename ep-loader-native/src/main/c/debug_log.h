/*
 * JAVAEP_DEBUG=1 prints the loader's decisions to stderr. Otherwise the loader is silent: it lives
 * inside someone else's process, and its failures travel back as OrtStatus messages instead.
 */
#ifndef JAVAEP_DEBUG_LOG_H
#define JAVAEP_DEBUG_LOG_H

void jep_debug_refresh(void); /* re-reads JAVAEP_DEBUG; called once per entry point */
int jep_debug_enabled(void);
void jep_debug(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#endif
