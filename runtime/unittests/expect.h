/* Checks for the C API tests, which are plain C: each counts, and a failed
   one prints its line and keeps going; main returns failures != 0. */
#ifndef MPT_RUNTIME_UNITTESTS_EXPECT_H
#define MPT_RUNTIME_UNITTESTS_EXPECT_H

#include <stdio.h>

static int checks = 0, failures = 0;

static void expectTrue(int condition, const char *what, int line) {
  ++checks;
  if (!condition) {
    ++failures;
    printf("FAIL line %d: %s\n", line, what);
  }
}
#define EXPECT(condition) expectTrue((condition), #condition, __LINE__)

#endif /* MPT_RUNTIME_UNITTESTS_EXPECT_H */
