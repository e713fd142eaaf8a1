/*
 * Turns loader failures into OrtStatus objects ORT owns, through OrtApi version 1's CreateStatus
 * (slot 0 in every ORT release), the only ORT function the loader ever calls.
 */
#ifndef JAVAEP_STATUS_H
#define JAVAEP_STATUS_H

#include "error.h"
#include "ort_min.h"

/* Remembers the OrtApiBase from CreateEpFactories; ReleaseEpFactory gets none of its own. */
void jep_status_remember(const OrtApiBase *base);
/* Frees e and returns a status "javaep: <message>", or NULL for e == NULL. Returns NULL also
 * when ORT gave us no usable API (there is then no way to report anything). */
OrtStatus *jep_status_from(jep_error *e);

#endif
