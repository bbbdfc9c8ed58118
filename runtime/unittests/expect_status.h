/* Checks of C API statuses, for the C API tests: a call succeeds, or fails
   with a given code and a message containing a given text (printed for
   FileCheck). */
#ifndef MPT_RUNTIME_UNITTESTS_EXPECT_STATUS_H
#define MPT_RUNTIME_UNITTESTS_EXPECT_STATUS_H

#include "mpt/runtime.h"

#include <string.h>

#include "expect.h"

/* The call succeeds (a NULL status). */
static void expectOk(mpt_status_t status, const char *what, int line) {
  ++checks;
  if (status) {
    ++failures;
    printf("FAIL line %d: %s: %s\n", line, what, mpt_status_message(status));
    mpt_status_free(status);
  }
}
#define EXPECT_OK(call) expectOk((call), #call, __LINE__)

/* The call fails with `code` and a message containing `text`, which is
   printed for FileCheck. */
static void expectError(mpt_status_t status, mpt_status_code_t code,
                        const char *text, const char *what, int line) {
  ++checks;
  if (!status) {
    ++failures;
    printf("FAIL line %d: %s succeeded\n", line, what);
    return;
  }
  if (mpt_status_code(status) != code ||
      !strstr(mpt_status_message(status), text)) {
    ++failures;
    printf("FAIL line %d: %s: code %d, message '%s'; expected code %d, '%s'\n",
           line, what, (int)mpt_status_code(status), mpt_status_message(status),
           (int)code, text);
  } else {
    printf("error: %s\n", mpt_status_message(status));
  }
  mpt_status_free(status);
}
#define EXPECT_ERROR(call, code, text)                                         \
  expectError((call), (code), (text), #call, __LINE__)

#endif /* MPT_RUNTIME_UNITTESTS_EXPECT_STATUS_H */
