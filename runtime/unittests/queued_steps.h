/* Checks on the example MLP that both C API tests run, the CPU one and the
   CUDA one. The includer defines EXPECT_OK and kBatch, kPixels, kClasses. */
#ifndef MPT_RUNTIME_UNITTESTS_QUEUED_STEPS_H
#define MPT_RUNTIME_UNITTESTS_QUEUED_STEPS_H

#include "mpt/runtime.h"

#include <math.h>
#include <string.h>

#include "expect.h"

static void zeroAllParameters(mpt_session_t session) {
  static float zeros[kPixels * 256];
  memset(zeros, 0, sizeof zeros);
  for (int64_t i = 0; i < mpt_session_num_state(session); ++i) {
    mpt_tensor_info_t info;
    EXPECT_OK(mpt_session_state_info(session, i, &info));
    EXPECT_OK(
        mpt_session_write_state(session, info.name, zeros, info.num_elements));
  }
}

/* From all-zero state, trains one step on labels 0 then one on labels 1.
   The step-1 loss is ln(10); the step-2 loss reads b3 after step 1,
   (0.018, -0.002, ...), so it is logsumexp(b3) - b3[1]. */
static void trainTwoSteps(mpt_session_t session, const float *x, int queued,
                          mpt_step_metrics_t metrics[2], float b3[kClasses]) {
  static int64_t labels[2][kBatch]; /* i64: bound through a conversion */
  for (int i = 0; i < kBatch; ++i) {
    labels[0][i] = 0;
    labels[1][i] = 1;
  }
  zeroAllParameters(session);
  for (int step = 0; step < 2; ++step) {
    /* Queued steps get x through the session's staging memory. */
    const void *source = x;
    size_t bytes = sizeof(float) * kBatch * kPixels;
    if (queued) {
      void *staging = NULL;
      EXPECT_OK(mpt_session_input_staging(session, MPT_FUNCTION_TRAIN, "x",
                                          &staging, &bytes));
      EXPECT(staging != NULL && bytes == sizeof(float) * kBatch * kPixels);
      if (staging)
        memcpy(staging, x, bytes);
      source = staging;
    }
    EXPECT_OK(mpt_session_bind_input(session, MPT_FUNCTION_TRAIN, "x",
                                     MPT_DTYPE_F32, source, bytes));
    EXPECT_OK(mpt_session_bind_input(session, MPT_FUNCTION_TRAIN, "y",
                                     MPT_DTYPE_I64, labels[step],
                                     sizeof labels[step]));
    if (queued)
      EXPECT_OK(mpt_session_step_async(session));
    else
      EXPECT_OK(mpt_session_step(session, &metrics[step]));
  }
  if (queued) {
    EXPECT(mpt_session_steps_in_flight(session) == 2);
    for (int step = 0; step < 2; ++step)
      EXPECT_OK(mpt_session_step_metrics(session, &metrics[step]));
    EXPECT(mpt_session_steps_in_flight(session) == 0);
  }
  EXPECT_OK(mpt_session_read_state(session, "b3", b3, kClasses));
}

/* Queued steps (mpt_session_step_async, the second step's inputs bound
   while the first may still run, x through mpt_session_input_staging)
   train exactly like mpt_session_step. */
static void checkQueuedSteps(mpt_session_t session, const float *x) {
  mpt_step_metrics_t direct[2], queued[2];
  float directB3[kClasses], queuedB3[kClasses];
  trainTwoSteps(session, x, 0, direct, directB3);
  trainTwoSteps(session, x, 1, queued, queuedB3);
  double secondLoss = log(exp(0.018) + 9 * exp(-0.002)) + 0.002;
  printf("queued steps: losses %.6f %.6f (closed form %.6f %.6f)\n",
         queued[0].loss, queued[1].loss, log(10.0), secondLoss);
  /* f32 sums over 128 rows: rounding below 128 * 2^-24 * 2.31 = 1.8e-5. */
  EXPECT(fabs(queued[0].loss - log(10.0)) < 1.8e-5 &&
         fabs(queued[1].loss - secondLoss) < 1.8e-5);
  EXPECT(memcmp(&direct[0].loss, &queued[0].loss, sizeof(float)) == 0 &&
         memcmp(&direct[1].loss, &queued[1].loss, sizeof(float)) == 0 &&
         direct[1].skipped == queued[1].skipped);
  EXPECT(memcmp(directB3, queuedB3, sizeof directB3) == 0);
}

#endif /* MPT_RUNTIME_UNITTESTS_QUEUED_STEPS_H */
