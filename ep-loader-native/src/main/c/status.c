#include "status.h"

#include <stdlib.h>

#include "buf.h"
#include "debug_log.h"
#include "platform.h"

static const OrtApiBase *remembered;

void jep_status_remember(const OrtApiBase *base) {
  jep_lock();
  remembered = base;
  jep_unlock();
}

OrtStatus *jep_status_from(jep_error *e) {
  if (!e) return NULL;
  jep_lock();
  const OrtApiBase *base = remembered;
  jep_unlock();

  const OrtApiV1Prefix *api = base && base->GetApi ? (const OrtApiV1Prefix *)base->GetApi(1) : NULL;
  jep_buf b = {0};
  jep_buf_append(&b, "javaep: ");
  jep_buf_append(&b, e->message);
  char *text = jep_buf_take(&b);
  jep_debug("failing with code %d: %s", e->code, text ? text : e->message);

  OrtStatus *status = NULL;
  if (api && api->CreateStatus) status = api->CreateStatus(e->code, text ? text : e->message);
  free(text);
  jep_error_free(e);
  return status;
}
