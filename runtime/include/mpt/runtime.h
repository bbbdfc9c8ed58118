/*===- runtime.h - the mpt runtime C API ------------------------*- C -*-===*\
|*                                                                            *|
|* Compiles an mpt training step (FP32, or rewritten to f16/bf16 mixed        *|
|* precision), initializes its state, runs steps on batches, evaluates, and   *|
|* checkpoints. State threading is generic: the runtime follows the step's    *|
|* mpt.param / mpt.state / mpt.data / mpt.next / mpt.metric conventions and   *|
|* never knows the model. No MLIR types appear here.                          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef MPT_RUNTIME_H
#define MPT_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every call returns NULL on success or a status the caller frees. */
typedef enum mpt_status_code_t {
  MPT_STATUS_INVALID_ARGUMENT = 1, /* bad option, shape or dtype */
  MPT_STATUS_NOT_FOUND = 2,        /* missing file, function or tensor */
  MPT_STATUS_DATA_LOSS = 3,        /* truncated or corrupt file */
  MPT_STATUS_COMPILE_ERROR = 4,    /* invalid MLIR or a rejected graph */
  MPT_STATUS_INTERNAL = 5,
} mpt_status_code_t;

typedef struct mpt_status_s *mpt_status_t;
mpt_status_code_t mpt_status_code(mpt_status_t status);
/* The message names the problem and the input that caused it. */
const char *mpt_status_message(mpt_status_t status);
void mpt_status_free(mpt_status_t status);

typedef enum mpt_precision_t {
  MPT_PRECISION_FP32 = 0,
  MPT_PRECISION_F16 = 1,
  MPT_PRECISION_BF16 = 2,
} mpt_precision_t;

typedef struct mpt_compile_options_t {
  mpt_precision_t precision;
  /* "auto" (dynamic for f16, none otherwise), "dynamic", "static", "none". */
  const char *loss_scale;
  double init_scale;       /* initial loss scale */
  int64_t growth_interval; /* finite steps before the scale grows */
  /* If not NULL, the IR after the mixed-precision rewrite and after lowering
     is written to <dump_prefix>.mixed.mlir and <dump_prefix>.llvm.mlir. */
  const char *dump_prefix;
  /* Nonzero: matmuls and convolutions call the runtime's BLAS kernels; zero:
     they stay generic loops (the reference the kernels are tested against). */
  int cpu_kernels;
} mpt_compile_options_t;

/* FP32, loss scaling "auto", init scale 65536, growth interval 2000, CPU
   kernels on. */
void mpt_compile_options_init(mpt_compile_options_t *options);

/* A compiled module: its function marked mpt.train_step and, optionally, the
   one marked mpt.eval_step. */
typedef struct mpt_program_s *mpt_program_t;
mpt_status_t mpt_program_compile(const char *mlir_path,
                                 const mpt_compile_options_t *options,
                                 mpt_program_t *program);
void mpt_program_free(mpt_program_t program);

/* What a batch looks like: the float data argument holds batch_size examples
   of example_size values each, the integer data argument batch_size labels;
   evaluation returns batch_size x num_classes logits. */
typedef struct mpt_batch_info_t {
  int64_t batch_size;
  int64_t example_size;
  int64_t num_classes; /* 0 without an eval step */
} mpt_batch_info_t;
mpt_status_t mpt_program_batch_info(mpt_program_t program,
                                    mpt_batch_info_t *info);

/* The state of one training run: parameters from seeded initializers
   (Kaiming-uniform weights and biases as PyTorch's Linear and Conv2d, ones
   and zeros for normalization scales and shifts), state from its mpt.init
   value or zeros. */
typedef struct mpt_session_s *mpt_session_t;
mpt_status_t mpt_session_create(mpt_program_t program, uint64_t seed,
                                mpt_session_t *session);
void mpt_session_free(mpt_session_t session);

typedef struct mpt_step_metrics_t {
  float loss;
  float loss_scale; /* 1 without loss scaling */
  int skipped; /* the step found non-finite gradients and changed nothing */
  /* Gradient elements, as the backward pass produced them, that are zero
     (underflow) and inf or nan (overflow); -1 without loss scaling. */
  int64_t grad_zero;
  int64_t grad_nonfinite;
} mpt_step_metrics_t;

/* Runs one training step on a batch (see mpt_program_batch_info). */
mpt_status_t mpt_session_step(mpt_session_t session, const float *examples,
                              const int32_t *labels,
                              mpt_step_metrics_t *metrics);

/* Runs the eval step on a batch, writing batch_size x num_classes logits. */
mpt_status_t mpt_session_predict(mpt_session_t session, const float *examples,
                                 float *logits);

/* The number of parameter and state tensors, and their names (the argument
   names of the source, or loss_scale, loss_scale_growth_tracker, ...). */
int64_t mpt_session_num_state(mpt_session_t session);
const char *mpt_session_state_name(mpt_session_t session, int64_t index);

/* Copies a state tensor out as f32 (converting f16, bf16 and integers);
   `count` must be its number of elements. */
mpt_status_t mpt_session_read_state(mpt_session_t session, const char *name,
                                    float *values, int64_t count);
/* Overwrites a state tensor from f32 values (rounded to its type). */
mpt_status_t mpt_session_write_state(mpt_session_t session, const char *name,
                                     const float *values, int64_t count);

/* Writes every parameter and state tensor, bit for bit, plus `position` (the
   caller's place in its data order) to a safetensors file, atomically: the
   previous file stays intact if anything fails. */
mpt_status_t mpt_session_save(mpt_session_t session, const char *path,
                              int64_t position);
/* Loads a checkpoint written by mpt_session_save for the same program and
   precision; nothing changes if the file is missing, corrupt or mismatched. */
mpt_status_t mpt_session_load(mpt_session_t session, const char *path,
                              int64_t *position);

#ifdef __cplusplus
}
#endif

#endif /* MPT_RUNTIME_H */
