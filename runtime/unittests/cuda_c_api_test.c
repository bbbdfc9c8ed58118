/*===- cuda_c_api_test.c - the C API on the CUDA device, from C -----------===*\
|*                                                                            *|
|* Without a usable driver: compiling for MPT_DEVICE_CUDA fails with          *|
|* MPT_STATUS_FAILED_PRECONDITION, says what is missing, and returns no       *|
|* program. With a device (the cuda-device tests): the closed forms of        *|
|* c_api_test.c hold for a session whose state lives on the GPU (all          *|
|* parameters zero: loss ln(10); one SGD step moves only b3, by               *|
|* -lr * (softmax - onehot) averaged over the batch), and eval reads that     *|
|* state: its logits equal b3; steps queued without waiting train exactly   *|
|* like steps that wait.                                                      *|
|* Usage: mpt-cuda-c-api-test <examples dir>                                  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "mpt/runtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"

enum { kBatch = 128, kPixels = 784, kClasses = 10 };

static int ok(mpt_status_t status, const char *what, int line) {
  ++checks;
  if (!status)
    return 1;
  ++failures;
  printf("FAIL line %d: %s: %s\n", line, what, mpt_status_message(status));
  mpt_status_free(status);
  return 0;
}
#define EXPECT_OK(call) ok((call), #call, __LINE__)

#include "queued_steps.h"

/* All parameters and state zero, one FP32 SGD step, then eval. */
static void checkClosedForms(mpt_program_t program) {
  mpt_session_t session = NULL;
  if (!EXPECT_OK(mpt_session_create(program, 0, &session)))
    return;
  static float x[kBatch * kPixels];
  zeroAllParameters(session);
  int32_t y[kBatch];
  for (int i = 0; i < kBatch * kPixels; ++i)
    x[i] = (float)((i * 7919) % 255) / 255.0f;
  for (int i = 0; i < kBatch; ++i)
    y[i] = 0;
  EXPECT_OK(mpt_session_bind_input(session, MPT_FUNCTION_TRAIN, "x",
                                   MPT_DTYPE_F32, x, sizeof x));
  EXPECT_OK(mpt_session_bind_input(session, MPT_FUNCTION_TRAIN, "y",
                                   MPT_DTYPE_I32, y, sizeof y));
  mpt_step_metrics_t metrics;
  if (!EXPECT_OK(mpt_session_step(session, &metrics))) {
    mpt_session_free(session);
    return;
  }
  printf("loss %.6f (ln 10 = %.6f), skipped %d\n", metrics.loss, log(10.0),
         metrics.skipped);
  /* The mean over 128 rows is an f32 sum: its rounding is bounded by
     128 * 2^-24 * ln(10) = 1.8e-5, in any summation order. */
  EXPECT(fabs(metrics.loss - log(10.0)) < 1.8e-5 && metrics.skipped == 0);
  /* Every label is 0: b3 moves by -0.02 * (0.1 - 1) for class 0 and
     -0.02 * 0.1 for the others. */
  float b3[kClasses];
  EXPECT_OK(mpt_session_read_state(session, "b3", b3, kClasses));
  printf("b3 after one step: %.6f %.6f\n", b3[0], b3[1]);
  EXPECT(fabsf(b3[0] - 0.018f) < 1e-7f && fabsf(b3[1] + 0.002f) < 1e-7f);
  /* Zero weights: the logits are the trained b3 in every row. */
  static float logits[kBatch * kClasses];
  EXPECT_OK(mpt_session_bind_input(session, MPT_FUNCTION_EVAL, "x",
                                   MPT_DTYPE_F32, x, sizeof x));
  EXPECT_OK(mpt_session_eval(session));
  EXPECT_OK(mpt_session_read_output(session, MPT_FUNCTION_EVAL, "logits",
                                    MPT_DTYPE_F32, logits, sizeof logits));
  int logitsMatch = 1;
  for (int i = 0; i < kBatch * kClasses; ++i)
    logitsMatch &= logits[i] == b3[i % kClasses];
  printf("eval logits equal b3: %s\n", logitsMatch ? "yes" : "no");
  EXPECT(logitsMatch);
  checkQueuedSteps(session, x);
  mpt_session_free(session);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <examples dir>\n", argv[0]);
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/mlp.mlir", argv[1]);
  mpt_compile_options_t options;
  mpt_compile_options_init(&options);
  options.device = MPT_DEVICE_CUDA;
  mpt_program_t program = NULL;
  mpt_status_t status = mpt_program_compile(path, &options, &program);
  if (status) {
    /* The no-driver test checks the code and the message. */
    printf("compile for CUDA: status %d: %s\n", (int)mpt_status_code(status),
           mpt_status_message(status));
    EXPECT(program == NULL);
    mpt_status_free(status);
  } else {
    checkClosedForms(program);
    mpt_program_free(program);
  }
  printf("%d checks, %d failed\n", checks, failures);
  return failures != 0;
}
