/*===- c_api_test.c - every entry point of the runtime's C API, from C ----===*\
|*                                                                            *|
|* Plain C (compiled as C11), so the header stays C. Calls every entry point  *|
|* on the MLP example, with the error paths: NULL handles and pointers,       *|
|* wrong names, wrong sizes, wrong dtypes, labels outside the classes,        *|
|* unbound inputs. Numbers are checked against closed forms: with all         *|
|* parameters zero the logits are zero, the loss is ln(10), and one SGD step  *|
|* (lr 0.02, fresh momentum) moves only the last bias, by                     *|
|* -lr * (softmax - onehot) averaged over the batch.                          *|
|* Usage: mpt-runtime-c-api-test <examples dir> <scratch dir>                 *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "mpt/runtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect_status.h"

enum { kBatch = 128, kPixels = 784, kClasses = 10 };

#include "queued_steps.h"

static void checkStatusAccessors(void) {
  EXPECT(mpt_status_code(NULL) == MPT_STATUS_OK);
  EXPECT(strcmp(mpt_status_message(NULL), "") == 0);
  mpt_status_free(NULL);
  EXPECT(mpt_dtype_size(MPT_DTYPE_F32) == 4 &&
         mpt_dtype_size(MPT_DTYPE_BF16) == 2 &&
         mpt_dtype_size(MPT_DTYPE_I64) == 8 &&
         mpt_dtype_size(MPT_DTYPE_BOOL) == 1);
  EXPECT(mpt_dtype_size((mpt_dtype_t)42) == 0);
  EXPECT(strcmp(mpt_dtype_name(MPT_DTYPE_F16), "F16") == 0);
  EXPECT(strcmp(mpt_dtype_name((mpt_dtype_t)42), "") == 0);
  mpt_compile_options_init(NULL);
}

static mpt_program_t compileMlp(const char *examples) {
  char path[4096];
  snprintf(path, sizeof path, "%s/mlp.mlir", examples);
  mpt_compile_options_t options;
  mpt_compile_options_init(&options);
  EXPECT(options.precision == MPT_PRECISION_FP32 &&
         options.device == MPT_DEVICE_CPU && options.cpu_kernels == 1 &&
         options.parallel_min_iterations == 65536 &&
         options.persistent_working_copies == -1 &&
         options.micro_batches == 1 &&
         options.recompute == MPT_RECOMPUTE_NONE && options.cuda_graphs == 1 &&
         options.loss_scale == MPT_LOSS_SCALE_AUTO &&
         options.init_scale == 65536.0 && options.growth_interval == 2000 &&
         options.min_scale == 1.0 && options.max_scale == 16777216.0);
  mpt_program_t program = NULL;
  EXPECT_ERROR(mpt_program_compile(NULL, &options, &program),
               MPT_STATUS_INVALID_ARGUMENT, "mlir_path is NULL");
  EXPECT_ERROR(mpt_program_compile(path, NULL, &program),
               MPT_STATUS_INVALID_ARGUMENT, "options is NULL");
  EXPECT_ERROR(mpt_program_compile(path, &options, NULL),
               MPT_STATUS_INVALID_ARGUMENT, "program is NULL");
  EXPECT_ERROR(
      mpt_program_compile("/nonexistent/step.mlir", &options, &program),
      MPT_STATUS_NOT_FOUND, "/nonexistent/step.mlir: cannot read");
  options.precision = (mpt_precision_t)7;
  EXPECT_ERROR(mpt_program_compile(path, &options, &program),
               MPT_STATUS_INVALID_ARGUMENT, "unknown precision 7");
  options.precision = MPT_PRECISION_FP32;
  options.device = (mpt_device_t)3;
  EXPECT_ERROR(mpt_program_compile(path, &options, &program),
               MPT_STATUS_INVALID_ARGUMENT, "unknown device 3");
  options.device = MPT_DEVICE_CPU;
  options.parallel_min_iterations = -1;
  EXPECT_ERROR(mpt_program_compile(path, &options, &program),
               MPT_STATUS_INVALID_ARGUMENT,
               "parallel_min_iterations must be at least 0, not -1");
  options.parallel_min_iterations = 65536;
  options.persistent_working_copies = 2;
  EXPECT_ERROR(mpt_program_compile(path, &options, &program),
               MPT_STATUS_INVALID_ARGUMENT,
               "persistent_working_copies must be -1, 0 or 1, not 2");
  options.persistent_working_copies = -1;
  options.grad_reduce = (mpt_grad_reduce_t)5;
  EXPECT_ERROR(mpt_program_compile(path, &options, &program),
               MPT_STATUS_INVALID_ARGUMENT, "unknown grad_reduce 5");
  options.grad_reduce = MPT_GRAD_REDUCE_AUTO;
  options.bucket_bytes = -1;
  EXPECT_ERROR(mpt_program_compile(path, &options, &program),
               MPT_STATUS_INVALID_ARGUMENT,
               "bucket_bytes must be at least 0, not -1");
  options.bucket_bytes = 0;
  options.micro_batches = 0;
  EXPECT_ERROR(mpt_program_compile(path, &options, &program),
               MPT_STATUS_INVALID_ARGUMENT,
               "micro_batches must be at least 1, not 0");
  options.micro_batches = 1;
  options.recompute = (mpt_recompute_t)3;
  EXPECT_ERROR(mpt_program_compile(path, &options, &program),
               MPT_STATUS_INVALID_ARGUMENT, "unknown recompute 3");
  options.recompute = MPT_RECOMPUTE_NONE;
  options.loss_scale = (mpt_loss_scale_t)9;
  EXPECT_ERROR(mpt_program_compile(path, &options, &program),
               MPT_STATUS_INVALID_ARGUMENT, "unknown loss_scale 9");
  options.loss_scale = MPT_LOSS_SCALE_AUTO;
  /* Finite as a double, inf as the f32 the step holds it in. */
  options.init_scale = 1e300;
  EXPECT_ERROR(mpt_program_compile(path, &options, &program),
               MPT_STATUS_COMPILE_ERROR,
               "mpt-loss-scaling: init-scale 1e+300 is outside [min-scale, "
               "max-scale] = [1, 1.67772e+07]");
  options.init_scale = 65536.0;
  EXPECT_OK(mpt_program_compile(path, &options, &program));
  return program;
}

static void checkProgramQueries(mpt_program_t program) {
  mpt_tensor_info_t info;
  EXPECT(mpt_program_has_eval(NULL) == 0);
  EXPECT(mpt_program_has_eval(program) == 1);
  EXPECT(mpt_program_num_inputs(NULL, MPT_FUNCTION_TRAIN) == 0);
  EXPECT(mpt_program_num_inputs(program, (mpt_function_t)5) == 0);
  EXPECT(mpt_program_num_inputs(program, MPT_FUNCTION_TRAIN) == 2);
  EXPECT(mpt_program_num_inputs(program, MPT_FUNCTION_EVAL) == 1);

  EXPECT_OK(mpt_program_input_info(program, MPT_FUNCTION_TRAIN, 0, &info));
  printf("train input 0: %s %s rank %lld [%lld, %lld] classes %lld\n",
         info.name, mpt_dtype_name(info.dtype), (long long)info.rank,
         (long long)info.shape[0], (long long)info.shape[1],
         (long long)info.num_classes);
  EXPECT(info.num_elements == kBatch * kPixels &&
         info.num_bytes == kBatch * kPixels * 4);
  EXPECT_OK(mpt_program_input_info(program, MPT_FUNCTION_TRAIN, 1, &info));
  printf("train input 1: %s %s rank %lld [%lld] classes %lld\n", info.name,
         mpt_dtype_name(info.dtype), (long long)info.rank,
         (long long)info.shape[0], (long long)info.num_classes);
  EXPECT_OK(mpt_program_input_info(program, MPT_FUNCTION_EVAL, 0, &info));
  printf("eval input 0: %s %s\n", info.name, mpt_dtype_name(info.dtype));
  EXPECT_ERROR(mpt_program_input_info(NULL, MPT_FUNCTION_TRAIN, 0, &info),
               MPT_STATUS_INVALID_ARGUMENT, "program is NULL");
  EXPECT_ERROR(mpt_program_input_info(program, MPT_FUNCTION_TRAIN, 0, NULL),
               MPT_STATUS_INVALID_ARGUMENT, "info is NULL");
  EXPECT_ERROR(mpt_program_input_info(program, MPT_FUNCTION_TRAIN, 2, &info),
               MPT_STATUS_INVALID_ARGUMENT, "index 2 is outside");
  EXPECT_ERROR(mpt_program_input_info(program, (mpt_function_t)5, 0, &info),
               MPT_STATUS_INVALID_ARGUMENT, "unknown function 5");

  EXPECT(mpt_program_num_outputs(NULL, MPT_FUNCTION_EVAL) == 0);
  EXPECT(mpt_program_num_outputs(program, MPT_FUNCTION_TRAIN) == 1);
  EXPECT(mpt_program_num_outputs(program, MPT_FUNCTION_EVAL) == 1);
  EXPECT_OK(mpt_program_output_info(program, MPT_FUNCTION_TRAIN, 0, &info));
  printf("train output 0: %s %s rank %lld\n", info.name,
         mpt_dtype_name(info.dtype), (long long)info.rank);
  EXPECT_OK(mpt_program_output_info(program, MPT_FUNCTION_EVAL, 0, &info));
  printf("eval output 0: %s %s [%lld, %lld]\n", info.name,
         mpt_dtype_name(info.dtype), (long long)info.shape[0],
         (long long)info.shape[1]);
  EXPECT_ERROR(mpt_program_output_info(program, MPT_FUNCTION_EVAL, -1, &info),
               MPT_STATUS_INVALID_ARGUMENT, "index -1 is outside");
}

/* A session of `program`, which it keeps: the caller's handle is released. */
static mpt_session_t createSession(mpt_program_t program) {
  mpt_session_t session = NULL;
  EXPECT_ERROR(mpt_session_create(NULL, 0, &session),
               MPT_STATUS_INVALID_ARGUMENT, "program is NULL");
  EXPECT_ERROR(mpt_session_create(program, 0, NULL),
               MPT_STATUS_INVALID_ARGUMENT, "session is NULL");
  EXPECT_OK(mpt_session_create(program, 0, &session));
  /* The session holds the program: releasing the caller's handle first is
     allowed. */
  mpt_program_free(program);

  mpt_tensor_info_t info;
  EXPECT(mpt_session_num_state(NULL) == 0);
  EXPECT(mpt_session_num_state(session) == 12);
  EXPECT_OK(mpt_session_state_info(session, 4, &info));
  printf("state 4: %s %s [%lld, %lld]\n", info.name, mpt_dtype_name(info.dtype),
         (long long)info.shape[0], (long long)info.shape[1]);
  EXPECT_ERROR(mpt_session_state_info(session, 12, &info),
               MPT_STATUS_INVALID_ARGUMENT, "index 12 is outside");
  EXPECT_ERROR(mpt_session_state_info(NULL, 0, &info),
               MPT_STATUS_INVALID_ARGUMENT, "session is NULL");
  return session;
}

/* A step needs its inputs bound, by name, in a dtype that converts, of the
   input's size, with labels among the classes. */
static void checkBindErrors(mpt_session_t session, const float *x, int32_t *y) {
  size_t xBytes = kBatch * kPixels * sizeof(float);
  size_t yBytes = kBatch * sizeof(int32_t);
  EXPECT_ERROR(mpt_session_step(session, NULL), MPT_STATUS_FAILED_PRECONDITION,
               "input 'x' of the training step is not bound");
  EXPECT_ERROR(mpt_session_step(NULL, NULL), MPT_STATUS_INVALID_ARGUMENT,
               "session is NULL");
  EXPECT_ERROR(mpt_session_bind_input(NULL, MPT_FUNCTION_TRAIN, "x",
                                      MPT_DTYPE_F32, x, xBytes),
               MPT_STATUS_INVALID_ARGUMENT, "session is NULL");
  EXPECT_ERROR(mpt_session_bind_input(session, MPT_FUNCTION_TRAIN, NULL,
                                      MPT_DTYPE_F32, x, xBytes),
               MPT_STATUS_INVALID_ARGUMENT, "name is NULL");
  EXPECT_ERROR(mpt_session_bind_input(session, MPT_FUNCTION_TRAIN, "x",
                                      MPT_DTYPE_F32, NULL, xBytes),
               MPT_STATUS_INVALID_ARGUMENT, "data is NULL");
  EXPECT_ERROR(mpt_session_bind_input(session, MPT_FUNCTION_TRAIN, "images",
                                      MPT_DTYPE_F32, x, xBytes),
               MPT_STATUS_NOT_FOUND,
               "has no input named 'images'; its inputs are 'x', 'y'");
  EXPECT_ERROR(mpt_session_bind_input(session, MPT_FUNCTION_TRAIN, "x",
                                      MPT_DTYPE_F32, x, xBytes - 4),
               MPT_STATUS_INVALID_ARGUMENT, "got 401404");
  EXPECT_ERROR(mpt_session_bind_input(session, MPT_FUNCTION_TRAIN, "x",
                                      (mpt_dtype_t)42, x, xBytes),
               MPT_STATUS_INVALID_ARGUMENT, "unknown dtype 42");
  EXPECT_ERROR(mpt_session_bind_input(session, MPT_FUNCTION_TRAIN, "x",
                                      MPT_DTYPE_I32, x, xBytes),
               MPT_STATUS_INVALID_ARGUMENT, "cannot convert I32 to F32");
  EXPECT_ERROR(mpt_session_bind_input(session, (mpt_function_t)9, "x",
                                      MPT_DTYPE_F32, x, xBytes),
               MPT_STATUS_INVALID_ARGUMENT, "unknown function 9");
  y[77] = kClasses;
  EXPECT_ERROR(mpt_session_bind_input(session, MPT_FUNCTION_TRAIN, "y",
                                      MPT_DTYPE_I32, y, yBytes),
               MPT_STATUS_INVALID_ARGUMENT,
               "input 'y': label 10 at index 77 is outside [0, 10)");
  y[77] = -1;
  EXPECT_ERROR(mpt_session_bind_input(session, MPT_FUNCTION_TRAIN, "y",
                                      MPT_DTYPE_I32, y, yBytes),
               MPT_STATUS_INVALID_ARGUMENT, "label -1 at index 77");
  y[77] = 0;
  EXPECT_ERROR(mpt_session_bind_input(session, MPT_FUNCTION_TRAIN, "y",
                                      MPT_DTYPE_F32, x, kBatch * 4),
               MPT_STATUS_INVALID_ARGUMENT, "holds class labels");
}

/* One step with every parameter and momentum zero: the loss is ln(10); the
   step's outputs are read by name. */
static void checkClosedFormStep(mpt_session_t session, const float *x,
                                const int32_t *y) {
  zeroAllParameters(session);
  EXPECT_OK(mpt_session_bind_input(session, MPT_FUNCTION_TRAIN, "x",
                                   MPT_DTYPE_F32, x,
                                   kBatch * kPixels * sizeof(float)));
  /* i64 labels convert to the input's i32. */
  int64_t wideLabels[kBatch];
  for (int i = 0; i < kBatch; ++i)
    wideLabels[i] = y[i];
  EXPECT_OK(mpt_session_bind_input(session, MPT_FUNCTION_TRAIN, "y",
                                   MPT_DTYPE_I64, wideLabels,
                                   sizeof wideLabels));
  float loss = 0.0f;
  EXPECT_ERROR(mpt_session_read_output(session, MPT_FUNCTION_TRAIN, "loss",
                                       MPT_DTYPE_F32, &loss, sizeof loss),
               MPT_STATUS_FAILED_PRECONDITION, "has not run yet");
  mpt_step_metrics_t metrics;
  EXPECT_OK(mpt_session_step(session, &metrics));
  printf("loss %.6f (ln 10 = %.6f), scale %g, skipped %d, grad_zero %lld\n",
         metrics.loss, log(10.0), metrics.loss_scale, metrics.skipped,
         (long long)metrics.grad_zero);
  /* The mean over 128 rows is an f32 sum: its rounding is bounded by
     128 * 2^-24 * ln(10) = 1.8e-5. */
  EXPECT(fabs(metrics.loss - log(10.0)) < 1.8e-5);
  EXPECT(metrics.loss_scale == 1.0f && metrics.skipped == 0 &&
         metrics.grad_zero == -1 && metrics.grad_nonfinite == -1);
  /* The session's buffers exactly (235,146 f32 parameters and as many
     momentum values; the batch, labels and loss), then the step's own. */
  const mpt_memory_bytes_t *peak = &metrics.peak_memory;
  printf("peak memory %lld bytes, activations %lld, gradients %lld\n",
         (long long)peak->total, (long long)peak->activations,
         (long long)peak->gradients);
  EXPECT(peak->parameters == 940584 && peak->masters == 0 &&
         peak->optimizer_state == 940584 && peak->other_state == 0 &&
         peak->data == 128 * 784 * 4 + 128 * 4 + 4 &&
         peak->working_copies == 0);
  EXPECT(peak->activations > 0 && peak->gradients > 0 &&
         peak->total == peak->parameters + peak->optimizer_state + peak->data +
                            peak->activations + peak->gradients +
                            peak->workspace);
  EXPECT_OK(mpt_session_read_output(session, MPT_FUNCTION_TRAIN, "loss",
                                    MPT_DTYPE_F32, &loss, sizeof loss));
  EXPECT(loss == metrics.loss);
  double wideLoss = 0.0;
  EXPECT_ERROR(mpt_session_read_output(session, MPT_FUNCTION_TRAIN, "loss",
                                       MPT_DTYPE_F32, &wideLoss, 8),
               MPT_STATUS_INVALID_ARGUMENT, "got 8");
  EXPECT_ERROR(mpt_session_read_output(session, MPT_FUNCTION_TRAIN, "accuracy",
                                       MPT_DTYPE_F32, &loss, 4),
               MPT_STATUS_NOT_FOUND, "no output named 'accuracy'");
  EXPECT_ERROR(mpt_session_read_output(NULL, MPT_FUNCTION_TRAIN, "loss",
                                       MPT_DTYPE_F32, &loss, 4),
               MPT_STATUS_INVALID_ARGUMENT, "session is NULL");
  EXPECT_ERROR(mpt_session_read_output(session, MPT_FUNCTION_TRAIN, NULL,
                                       MPT_DTYPE_F32, &loss, 4),
               MPT_STATUS_INVALID_ARGUMENT, "name is NULL");
  EXPECT_ERROR(mpt_session_read_output(session, MPT_FUNCTION_TRAIN, "loss",
                                       MPT_DTYPE_F32, NULL, 4),
               MPT_STATUS_INVALID_ARGUMENT, "data is NULL");
}

/* After the closed-form step, every label 0: b3 moved by -lr * (softmax -
   onehot) = -0.02 * (0.1 - 1) for class 0 and -0.02 * 0.1 for the others;
   w1 and w2 got no gradient (relu'(0) = 0 here). Returns b3. */
static void checkTrainedState(mpt_session_t session, float *b3) {
  EXPECT_OK(mpt_session_read_state(session, "b3", b3, kClasses));
  printf("b3 after one step: %.6f %.6f\n", b3[0], b3[1]);
  EXPECT(fabsf(b3[0] - 0.018f) < 1e-7f && fabsf(b3[1] + 0.002f) < 1e-7f);
  float w1Sample[8];
  EXPECT_ERROR(mpt_session_read_state(session, "w1", w1Sample, 8),
               MPT_STATUS_INVALID_ARGUMENT,
               "'w1' is F32[784x256] with 200704 elements, not 8");
  EXPECT_ERROR(mpt_session_read_state(session, "w9", w1Sample, 8),
               MPT_STATUS_NOT_FOUND, "no parameter or state named 'w9'");
  EXPECT_ERROR(mpt_session_read_state(NULL, "w1", w1Sample, 8),
               MPT_STATUS_INVALID_ARGUMENT, "session is NULL");
  EXPECT_ERROR(mpt_session_write_state(session, NULL, w1Sample, 8),
               MPT_STATUS_INVALID_ARGUMENT, "name is NULL");
  EXPECT_ERROR(mpt_session_write_state(session, "b3", NULL, kClasses),
               MPT_STATUS_INVALID_ARGUMENT, "values is NULL");
}

/* Eval: zero weights and the trained b3 give logits equal to b3. */
static void checkEval(mpt_session_t session, const float *x, const float *b3) {
  EXPECT_ERROR(mpt_session_eval(session), MPT_STATUS_FAILED_PRECONDITION,
               "of the eval step is not bound");
  EXPECT_OK(mpt_session_bind_input(session, MPT_FUNCTION_EVAL, "x",
                                   MPT_DTYPE_F32, x,
                                   kBatch * kPixels * sizeof(float)));
  EXPECT_OK(mpt_session_eval(session));
  EXPECT_ERROR(mpt_session_eval(NULL), MPT_STATUS_INVALID_ARGUMENT,
               "session is NULL");
  static float logits[kBatch * kClasses];
  EXPECT_OK(mpt_session_read_output(session, MPT_FUNCTION_EVAL, "logits",
                                    MPT_DTYPE_F32, logits, sizeof logits));
  int logitsMatch = 1;
  for (int i = 0; i < kBatch * kClasses; ++i)
    logitsMatch &= logits[i] == b3[i % kClasses];
  EXPECT(logitsMatch);
}

/* Checkpoints round-trip bit for bit, with the position. */
static void checkCheckpoints(mpt_session_t session, const char *scratch,
                             const float *b3) {
  char path[4096];
  snprintf(path, sizeof path, "%s/c-api.safetensors", scratch);
  EXPECT_ERROR(mpt_session_save(NULL, path, 3), MPT_STATUS_INVALID_ARGUMENT,
               "session is NULL");
  EXPECT_ERROR(mpt_session_save(session, NULL, 3), MPT_STATUS_INVALID_ARGUMENT,
               "path is NULL");
  EXPECT_ERROR(mpt_session_save(session, "", 3), MPT_STATUS_INVALID_ARGUMENT,
               "path is empty");
  EXPECT_ERROR(mpt_session_save(session, "/nonexistent/dir/c.safetensors", 3),
               MPT_STATUS_IO_ERROR, "/nonexistent/dir/c.safetensors");
  EXPECT_OK(mpt_session_save(session, path, 3));
  float changed[kClasses] = {0};
  EXPECT_OK(mpt_session_write_state(session, "b3", changed, kClasses));
  int64_t position = -1;
  EXPECT_OK(mpt_session_load(session, path, &position));
  EXPECT(position == 3);
  float reloaded[kClasses];
  EXPECT_OK(mpt_session_read_state(session, "b3", reloaded, kClasses));
  EXPECT(memcmp(reloaded, b3, sizeof reloaded) == 0);
  EXPECT_OK(mpt_session_load(session, path, NULL));
  EXPECT_ERROR(mpt_session_load(session, "/nonexistent/c.safetensors", NULL),
               MPT_STATUS_DATA_LOSS, "/nonexistent/c.safetensors");
  EXPECT_ERROR(mpt_session_load(session, scratch, NULL), MPT_STATUS_DATA_LOSS,
               "is a directory, not a safetensors file");
  EXPECT_ERROR(mpt_session_load(NULL, path, NULL), MPT_STATUS_INVALID_ARGUMENT,
               "session is NULL");
  EXPECT_ERROR(mpt_session_load(session, NULL, NULL),
               MPT_STATUS_INVALID_ARGUMENT, "path is NULL");
}

/* Queued steps: their metrics come back in order, at most 16 unread. */
static void checkQueueLimits(mpt_session_t session, const float *x) {
  mpt_step_metrics_t metrics;
  EXPECT_ERROR(mpt_session_step_async(NULL), MPT_STATUS_INVALID_ARGUMENT,
               "session is NULL");
  EXPECT_ERROR(mpt_session_step_metrics(session, NULL),
               MPT_STATUS_INVALID_ARGUMENT, "metrics is NULL");
  EXPECT_ERROR(mpt_session_step_metrics(session, &metrics),
               MPT_STATUS_FAILED_PRECONDITION,
               "no queued step has unread metrics");
  EXPECT(mpt_session_steps_in_flight(NULL) == 0);
  void *staging = NULL;
  size_t stagingBytes = 0;
  EXPECT_ERROR(mpt_session_input_staging(session, MPT_FUNCTION_TRAIN, "images",
                                         &staging, &stagingBytes),
               MPT_STATUS_NOT_FOUND,
               "mpt_session_input_staging: the training step has no input "
               "named 'images'; its inputs are 'x', 'y'");
  EXPECT_ERROR(mpt_session_input_staging(session, MPT_FUNCTION_TRAIN, "x", NULL,
                                         &stagingBytes),
               MPT_STATUS_INVALID_ARGUMENT, "data is NULL");
  EXPECT_ERROR(mpt_session_input_staging(session, MPT_FUNCTION_TRAIN, "x",
                                         &staging, NULL),
               MPT_STATUS_INVALID_ARGUMENT, "bytes is NULL");
  /* The y staging memory holds the input's own i32 labels. */
  EXPECT_OK(mpt_session_input_staging(session, MPT_FUNCTION_TRAIN, "y",
                                      &staging, &stagingBytes));
  EXPECT(stagingBytes == kBatch * sizeof(int32_t));
  checkQueuedSteps(session, x);
  for (int i = 0; i < 16; ++i)
    EXPECT_OK(mpt_session_step_async(session));
  EXPECT_ERROR(mpt_session_step_async(session), MPT_STATUS_FAILED_PRECONDITION,
               "16 queued steps have unread metrics");
  EXPECT_ERROR(mpt_session_step(session, &metrics),
               MPT_STATUS_FAILED_PRECONDITION,
               "16 steps queued by mpt_session_step_async have unread metrics");
  for (int i = 0; i < 16; ++i)
    EXPECT_OK(mpt_session_step_metrics(session, &metrics));
  EXPECT_OK(mpt_session_step(session, &metrics));
}

static void checkSession(mpt_program_t program, const char *scratch) {
  mpt_session_t session = createSession(program);
  static float x[kBatch * kPixels];
  int32_t y[kBatch];
  for (int i = 0; i < kBatch * kPixels; ++i)
    x[i] = (float)((i * 7919) % 255) / 255.0f;
  for (int i = 0; i < kBatch; ++i)
    y[i] = 0;
  checkBindErrors(session, x, y);
  checkClosedFormStep(session, x, y);
  float b3[kClasses];
  checkTrainedState(session, b3);
  checkEval(session, x, b3);
  checkCheckpoints(session, scratch, b3);
  checkQueueLimits(session, x);
  mpt_session_free(session);
  mpt_session_free(NULL);
  mpt_program_free(NULL);
}

/* The state the step keeps in a range, the loss scale in the options'
   [min_scale, max_scale] and its growth tracker from 0, is written only
   inside it. */
static void checkStateDomains(const char *examples) {
  char path[4096];
  snprintf(path, sizeof path, "%s/mlp.mlir", examples);
  mpt_compile_options_t options;
  mpt_compile_options_init(&options);
  options.precision = MPT_PRECISION_F16;
  options.init_scale = 1024.0;
  options.max_scale = 1024.0;
  mpt_program_t program = NULL;
  EXPECT_OK(mpt_program_compile(path, &options, &program));
  mpt_session_t session = NULL;
  EXPECT_OK(mpt_session_create(program, 0, &session));
  mpt_program_free(program);
  float scale = NAN, tracker = -1.0f;
  EXPECT_ERROR(mpt_session_write_state(session, "loss_scale", &scale, 1),
               MPT_STATUS_INVALID_ARGUMENT,
               "mpt_session_write_state: 'loss_scale': value nan at index 0 "
               "is outside [1, 1024], the range the training step keeps it "
               "in");
  scale = 2048.0f;
  EXPECT_ERROR(mpt_session_write_state(session, "loss_scale", &scale, 1),
               MPT_STATUS_INVALID_ARGUMENT, "value 2048 at index 0");
  EXPECT_ERROR(
      mpt_session_write_state(session, "loss_scale_growth_tracker", &tracker,
                              1),
      MPT_STATUS_INVALID_ARGUMENT,
      "'loss_scale_growth_tracker': value -1 at index 0 is outside [0, "
      "9007199254740992]");
  float read = 0.0f;
  EXPECT_OK(mpt_session_read_state(session, "loss_scale", &read, 1));
  EXPECT(read == 1024.0f);
  scale = 512.0f;
  EXPECT_OK(mpt_session_write_state(session, "loss_scale", &scale, 1));
  EXPECT_OK(mpt_session_read_state(session, "loss_scale", &read, 1));
  EXPECT(read == 512.0f);
  mpt_session_free(session);
}

/* A loss weighted by 2 (a compile warning) that also reports the
   cross-entropy as "ce" and its gradient norm: mpt_session_step_metric reads
   both of the step whose metrics were taken last, also of queued steps, so
   ce is exactly half that step's loss. */
static void checkStepMetric(const char *scratch) {
  char path[4096];
  snprintf(path, sizeof path, "%s/weighted.mlir", scratch);
  FILE *file = fopen(path, "w");
  EXPECT(file != NULL);
  if (!file)
    return;
  fputs("func.func @train_step(%w: tensor<784x10xf32> {mpt.param},\n"
        "    %x: tensor<128x784xf32> {mpt.data}, %y: tensor<128xi32> "
        "{mpt.data})\n"
        "    -> (tensor<f32> {mpt.metric = \"loss\"}, tensor<f32> "
        "{mpt.metric = \"ce\"})\n"
        "    attributes {mpt.train_step, mpt.clip_grad_norm = 1.0e+30 : f32,\n"
        "                mpt.optimizer = {kind = \"sgd\", lr = 0.1 : f32}} {\n"
        "  %l = mpt.matmul %x, %w : tensor<128x784xf32>, tensor<784x10xf32> "
        "-> tensor<128x10xf32>\n"
        "  %ce = mpt.softmax_cross_entropy %l, %y : tensor<128x10xf32>, "
        "tensor<128xi32>\n"
        "  %two = arith.constant dense<2.0> : tensor<f32>\n"
        "  %loss = arith.mulf %two, %ce : tensor<f32>\n"
        "  return %loss, %ce : tensor<f32>, tensor<f32>\n"
        "}\n",
        file);
  fclose(file);
  mpt_compile_options_t options;
  mpt_compile_options_init(&options);
  mpt_program_t program = NULL;
  EXPECT_OK(mpt_program_compile(path, &options, &program));
  if (!program)
    return;
  EXPECT(strcmp(mpt_program_warnings(NULL), "") == 0);
  printf("compile warnings: %s", mpt_program_warnings(program));
  mpt_session_t session = NULL;
  EXPECT_OK(mpt_session_create(program, 0, &session));
  mpt_program_free(program);
  double value = 0.0;
  EXPECT_ERROR(mpt_session_step_metric(session, "ce", &value),
               MPT_STATUS_FAILED_PRECONDITION,
               "no step's metrics have been returned yet");
  EXPECT_ERROR(mpt_session_step_metric(session, "loss", &value),
               MPT_STATUS_NOT_FOUND,
               "mpt_session_step_metric: the training step has no extra "
               "metric named 'loss'; its extra metrics are 'ce', 'grad_norm'");
  EXPECT_ERROR(mpt_session_step_metric(session, "ce", NULL),
               MPT_STATUS_INVALID_ARGUMENT, "value is NULL");
  static float x[kBatch * kPixels];
  static int32_t y[kBatch];
  for (int i = 0; i < kBatch * kPixels; ++i)
    x[i] = (float)((i * 7919) % 101) / 101.0f;
  for (int i = 0; i < kBatch; ++i)
    y[i] = i % kClasses;
  EXPECT_OK(mpt_session_bind_input(session, MPT_FUNCTION_TRAIN, "x",
                                   MPT_DTYPE_F32, x, sizeof x));
  EXPECT_OK(mpt_session_bind_input(session, MPT_FUNCTION_TRAIN, "y",
                                   MPT_DTYPE_I32, y, sizeof y));
  enum { kSteps = 3 };
  for (int step = 0; step < kSteps; ++step)
    EXPECT_OK(mpt_session_step_async(session));
  for (int step = 0; step < kSteps; ++step) {
    mpt_step_metrics_t metrics;
    double ce = 0.0, norm = 0.0;
    EXPECT_OK(mpt_session_step_metrics(session, &metrics));
    EXPECT_OK(mpt_session_step_metric(session, "ce", &ce));
    EXPECT_OK(mpt_session_step_metric(session, "grad_norm", &norm));
    printf("step %d: loss %.6f ce %.6f grad_norm %.6f\n", step, metrics.loss,
           ce, norm);
    EXPECT((float)(2.0 * ce) == metrics.loss && norm > 0.0);
  }
  mpt_session_free(session);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s <examples dir> <scratch dir>\n", argv[0]);
    return 2;
  }
  checkStatusAccessors();
  mpt_program_t program = compileMlp(argv[1]);
  if (!program) {
    printf("FAIL: the MLP does not compile\n");
    return 1;
  }
  checkProgramQueries(program);
  checkSession(program, argv[2]);
  checkStateDomains(argv[1]);
  checkStepMetric(argv[2]);
  printf("%d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}
