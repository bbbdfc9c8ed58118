/*===- runtime.h - the mpt runtime C API ------------------------*- C -*-===*\
|*                                                                            *|
|* Compiles an mpt training step (FP32, or rewritten to f16/bf16 mixed        *|
|* precision), initializes its state, binds data by name, runs steps,         *|
|* evaluates, and checkpoints. Everything model-specific (names, roles,       *|
|* dtypes, shapes, initializers, carried state, metrics, class counts) comes  *|
|* from the signature the compiler records in the lowered module; the         *|
|* runtime never knows the model. No MLIR types appear here.                  *|
|*                                                                            *|
|* Conventions (after IREE's):                                                *|
|* - Every fallible call returns an mpt_status_t: NULL means success          *|
|*   (mpt_status_code(NULL) == MPT_STATUS_OK); any other status is owned by   *|
|*   the caller and released with mpt_status_free.                            *|
|* - Handles are opaque. "Owned" means the caller must release it with the    *|
|*   named function; "borrowed" means it stays owned by the handle it came    *|
|*   from and is valid until that handle is released.                        *|
|* - Every entry point accepts NULL handles and pointers and reports them as  *|
|*   MPT_STATUS_INVALID_ARGUMENT; nothing throws across this boundary, and    *|
|*   out-of-memory is reported as MPT_STATUS_OUT_OF_MEMORY.                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef MPT_RUNTIME_H
#define MPT_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===-- Export and result attributes --------------------------------------===*/

/* Marks the entry points libmpt_runtime exports; everything else in it is
   hidden. */
#if defined(_WIN32)
#define MPT_API
#elif defined(__GNUC__) || defined(__clang__)
#define MPT_API __attribute__((visibility("default")))
#else
#define MPT_API
#endif

/* Marks a call whose status must be looked at (and freed): a status dropped
   is a failure unseen and a leak. C++17 and C23 spell it [[nodiscard]], which
   a cast to void silences; GCC and clang have it in C11 as an attribute;
   older or other compilers get nothing. */
#if defined(__cplusplus) && __cplusplus >= 201703L
#define MPT_MUST_USE_RESULT [[nodiscard]]
#elif !defined(__cplusplus) && defined(__STDC_VERSION__) &&                    \
    __STDC_VERSION__ > 201710L
#define MPT_MUST_USE_RESULT [[nodiscard]]
#elif defined(__GNUC__) || defined(__clang__)
#define MPT_MUST_USE_RESULT __attribute__((warn_unused_result))
#else
#define MPT_MUST_USE_RESULT
#endif

/*===-- Status ------------------------------------------------------------===*/

typedef enum mpt_status_code_t {
  MPT_STATUS_OK = 0,
  MPT_STATUS_INVALID_ARGUMENT = 1, /* bad option, name, dtype, size or value */
  MPT_STATUS_NOT_FOUND = 2,        /* missing file, function or tensor */
  MPT_STATUS_DATA_LOSS = 3,        /* truncated or corrupt file */
  MPT_STATUS_COMPILE_ERROR = 4,    /* invalid MLIR or a rejected graph */
  MPT_STATUS_INTERNAL = 5,         /* a compiled step failed to run */
  MPT_STATUS_OUT_OF_MEMORY = 6,
  MPT_STATUS_FAILED_PRECONDITION = 7, /* e.g. a step with an unbound input */
  MPT_STATUS_IO_ERROR = 8,            /* a file could not be written */
  MPT_STATUS_UNAVAILABLE = 9, /* another rank died or did not answer in time */
} mpt_status_code_t;

/* NULL is success. A non-NULL status is owned by the caller. */
typedef struct mpt_status_s *mpt_status_t;
/* MPT_STATUS_OK for NULL. */
MPT_API mpt_status_code_t mpt_status_code(mpt_status_t status);
/* Names the problem and the input that caused it; "" for NULL. Borrowed from
   `status`. */
MPT_API const char *mpt_status_message(mpt_status_t status);
/* Releases a status; NULL is a no-op. */
MPT_API void mpt_status_free(mpt_status_t status);

/*===-- Tensors -----------------------------------------------------------===*/

enum mpt_dtype_e {
  MPT_DTYPE_F32 = 0,
  MPT_DTYPE_F16 = 1,
  MPT_DTYPE_BF16 = 2,
  MPT_DTYPE_I64 = 3,
  MPT_DTYPE_I32 = 4,
  MPT_DTYPE_BOOL = 5, /* one byte per element */
};
/* An int, not the enum: callers may pass any value, which is checked. */
typedef int32_t mpt_dtype_t;

/* Bytes per element; 0 for a value outside the enum. */
MPT_API size_t mpt_dtype_size(mpt_dtype_t dtype);
/* The safetensors name ("F32", "F16", "BF16", "I64", "I32", "BOOL"); "" for a
   value outside the enum. Static storage. */
MPT_API const char *mpt_dtype_name(mpt_dtype_t dtype);

#define MPT_MAX_RANK 8

typedef struct mpt_tensor_info_t {
  /* Borrowed: valid while the program or a session created from it lives. */
  const char *name;
  mpt_dtype_t dtype;
  int64_t rank;
  int64_t shape[MPT_MAX_RANK]; /* row-major; the first `rank` entries */
  int64_t num_elements;
  size_t num_bytes;
  /* For a data input that a loss reads as class labels: the class count
     (values must lie in [0, num_classes), or be ignored_label); 0
     otherwise. */
  int64_t num_classes;
  /* For the session's state: 1 for a parameter (mpt.param), which data-
     parallel ranks keep identical; 0 for other state and for inputs and
     outputs. */
  int32_t is_parameter;
  /* For class labels: 1 when the loss ignores the label ignored_label (its
     ignore_index, PyTorch's -100), which the input may then hold; 0
     otherwise. */
  int32_t has_ignored_label;
  int64_t ignored_label;
  /* For a data input that an embedding reads as ids: the table's row count
     (values must lie in [0, table_rows)); 0 otherwise. */
  int64_t table_rows;
} mpt_tensor_info_t;

/*===-- Programs ----------------------------------------------------------===*/

enum mpt_precision_e {
  MPT_PRECISION_FP32 = 0,
  MPT_PRECISION_F16 = 1,
  MPT_PRECISION_BF16 = 2,
};
/* An int, not the enum: callers may pass any value, which is checked. */
typedef int32_t mpt_precision_t;

enum mpt_device_e {
  MPT_DEVICE_CPU = 0,
  /* Device 0 of the NVIDIA driver. Compiling fails with
     MPT_STATUS_FAILED_PRECONDITION, saying what is missing, in a build without
     CUDA or without a driver or a device. */
  MPT_DEVICE_CUDA = 1,
};
/* An int, not the enum: callers may pass any value, which is checked. */
typedef int32_t mpt_device_t;

enum mpt_loss_scale_e {
  /* Dynamic for steps that compute in f16, none otherwise. */
  MPT_LOSS_SCALE_AUTO = 0,
  /* PyTorch's GradScaler: the scale backs off on a non-finite step and grows
     after growth_interval finite ones, within [min_scale, max_scale]. */
  MPT_LOSS_SCALE_DYNAMIC = 1,
  /* A fixed init_scale; non-finite steps are still skipped. */
  MPT_LOSS_SCALE_STATIC = 2,
  MPT_LOSS_SCALE_NONE = 3,
};
/* An int, not the enum: callers may pass any value, which is checked. */
typedef int32_t mpt_loss_scale_t;

/* A communicator among data-parallel ranks (comm.h). */
typedef struct mpt_comm_s *mpt_comm_t;

/* The type data-parallel steps sum gradients in. */
enum mpt_grad_reduce_e {
  /* f32 for bf16 gradients (as Megatron's grad_reduce_in_fp32), their own
     type otherwise */
  MPT_GRAD_REDUCE_AUTO = 0,
  /* each gradient in the type the backward made it: f16/bf16 send half the
     bytes of f32 */
  MPT_GRAD_REDUCE_COMPUTE = 1,
  MPT_GRAD_REDUCE_F32 = 2,
};
/* An int, not the enum: callers may pass any value, which is checked. */
typedef int32_t mpt_grad_reduce_t;

/* Activation recomputation (mpt-recompute): which segments of the forward
   the backward recomputes instead of the step keeping their activations.
   Results are bit-identical either way; the step holds less at its peak and
   runs a second forward. */
enum mpt_recompute_e {
  MPT_RECOMPUTE_NONE = 0,
  /* about sqrt(N) segments of the N forward ops */
  MPT_RECOMPUTE_SQRT = 1,
  /* segments ended by the forward ops marked mpt.segment_end */
  MPT_RECOMPUTE_MARKED = 2,
};
typedef int32_t mpt_recompute_t;

typedef struct mpt_compile_options_t {
  mpt_precision_t precision;
  mpt_device_t device; /* where sessions keep their state and run steps */
  mpt_loss_scale_t loss_scale;
  /* The initial loss scale: in [min_scale, max_scale] unless the scale is
     static, and a finite f32 either way. */
  double init_scale;
  int64_t growth_interval; /* finite steps before the scale grows */
  double min_scale;        /* bounds of the dynamic loss scale */
  double max_scale;
  /* If not NULL, the IR after the mixed-precision rewrite and after lowering
     is written to <dump_prefix>.mixed.mlir and <dump_prefix>.llvm.mlir,
     creating the directory; a file that cannot be written fails the compile
     with MPT_STATUS_IO_ERROR naming it. */
  const char *dump_prefix;
  /* CPU device: nonzero, matmuls and convolutions call the runtime's BLAS
     kernels; zero, they stay generic loops (the reference the kernels are
     tested against). The CUDA device always runs them on cuBLASLt. */
  int cpu_kernels;
  /* CPU device, with cpu_kernels: linalg ops of at least this many loop
     iterations in all run in slices over mpt_cpu_threads() threads
     (mpt-outline-parallel-linalg); 0 keeps every op on the calling thread.
     Results are the same either way. */
  int64_t parallel_min_iterations;
  /* Mixed precision: 1, the step that updates an f32 master also rounds it to
     the f16/bf16 copy the next step's GEMMs read, kept on the device; 0, each
     step rounds the masters at its start; -1, the device's choice (CUDA 1,
     where the rounding fuses into the update kernel instead of running as a
     kernel of its own; CPU 0, where the copies measured no faster and would
     only take memory).
     Results are the same either way, and so are checkpoints: the copies are
     not state (they follow their masters, also through
     mpt_session_write_state and mpt_session_load). */
  int persistent_working_copies;
  /* Data parallelism: NULL, or a communicator of more than one rank whose
     ranks each run the step on their own shard of every batch and sum their
     gradients (mpt-data-parallel, with 1/size folded into the loss), so every
     rank applies the same update. Each rank compiles the same step with the
     same options: compiling checks that the signatures agree (a collective:
     every rank compiles at the same point). Borrowed: it must outlive the
     program and its sessions, and each step is a collective over it. With a
     communicator of one rank, the collectives are compiled and called too
     (on the host they then only check their arguments). */
  mpt_comm_t comm;
  mpt_grad_reduce_t grad_reduce; /* with comm */
  /* Gradient bytes per all-reduce: buckets are summed as soon as their last
     gradient is made, while the backward goes on; 0: 25 MiB, as DDP. */
  int64_t bucket_bytes;
  /* Gradient accumulation: the training step, written for one micro-batch of
     m rows, takes micro_batches*m rows of every data input and sums its
     micro-batches' gradients before it all-reduces, checks and applies them
     once (mpt-accumulate-gradients); its loss is their mean. The eval step
     keeps m rows. At least 1; 1 changes nothing. */
  int64_t micro_batches;
  /* If not NULL, the JSON report of the step before and after the
     mixed-precision rewrite (mpt-precision-report: ops per precision, casts,
     bytes of state per category) is written here; a file that cannot be
     written fails the compile naming it. */
  const char *precision_report;
  mpt_recompute_t recompute;
  /* CUDA device: nonzero, each entry point run a second time on the same
     buffers is captured as a CUDA graph, and every later run replays it
     with one launch (no per-kernel launches, no allocation, no host wait);
     a step the driver cannot capture fails, naming the refused call,
     without having run. Zero, every run launches its kernels one by one.
     Steps are never captured with a communicator (their all-reduces are host
     calls) or while MPT_CUDA_KERNEL_TIMES times each launch. Results are the
     same either way. */
  int cuda_graphs;
} mpt_compile_options_t;

/* FP32 on the CPU, MPT_LOSS_SCALE_AUTO with the loss scaler's defaults (init
   scale 65536, growth interval 2000, bounds 1 and 2^24), CPU kernels on,
   parallel ops from 65536 iterations, persistent working copies as the device
   chooses (-1), one process (comm NULL), gradients reduced as
   MPT_GRAD_REDUCE_AUTO in buckets of 25 MiB, one micro-batch per step, no
   recomputation, CUDA graphs on. NULL is a no-op. */
MPT_API void mpt_compile_options_init(mpt_compile_options_t *options);

/* The threads CPU steps run their kernels and parallel ops on, OpenBLAS's
   among them: OMP_NUM_THREADS, or else every core (OpenBLAS's OpenMP build,
   which the runtime links, reads OMP_NUM_THREADS, not OPENBLAS_NUM_THREADS). */
MPT_API int mpt_cpu_threads(void);

/* The instruction set CPU steps use: "native", or "avx2" where the environment
   variable MPT_MAX_CPU_ISA=avx2 keeps them to x86-64-v3 (AVX2, FMA, F16C; no
   AVX-512, AVX512-BF16 or AMX) on a host that has more. OpenBLAS picks its
   kernels by itself: with avx2, OPENBLAS_CORETYPE=Haswell must be set too, or
   compiling for the CPU fails with MPT_STATUS_FAILED_PRECONDITION. Any other
   value fails compiling the same way. */
MPT_API const char *mpt_cpu_isa(void);

/* A compiled module: its function marked mpt.train_step and, optionally, the
   one marked mpt.eval_step. */
typedef struct mpt_program_s *mpt_program_t;

enum mpt_function_e {
  MPT_FUNCTION_TRAIN = 0, /* the training step */
  MPT_FUNCTION_EVAL = 1,  /* the eval step */
};
/* An int, not the enum: callers may pass any value, which is checked. */
typedef int32_t mpt_function_t;

/* On success `*program` is owned by the caller (mpt_program_free). */
MPT_MUST_USE_RESULT MPT_API mpt_status_t
mpt_program_compile(const char *mlir_path, const mpt_compile_options_t *options,
                    mpt_program_t *program);
/* Releases the caller's reference; sessions keep the program alive. NULL is a
   no-op. */
MPT_API void mpt_program_free(mpt_program_t program);

/* The compiler's warnings on the module ("file:line:col: warning: ...", one
   per line, as mpt-opt prints them): "" when there are none or for NULL.
   Borrowed: valid while the program lives. */
MPT_API const char *mpt_program_warnings(mpt_program_t program);

/* 1 if the module has an eval step; 0 otherwise or for NULL. */
MPT_API int mpt_program_has_eval(mpt_program_t program);

/* The data inputs of a function, which the caller binds by name before each
   step: count (0 for NULL or a missing eval step), then each one's info. */
MPT_API int64_t mpt_program_num_inputs(mpt_program_t program,
                                       mpt_function_t function);
MPT_MUST_USE_RESULT MPT_API mpt_status_t
mpt_program_input_info(mpt_program_t program, mpt_function_t function,
                       int64_t index, mpt_tensor_info_t *info);
/* The outputs of a function: the training step's metrics ("loss",
   "loss_scale", "skipped", "grad_zero", "grad_nonfinite", ...) or the eval
   step's results ("logits" when it has one). */
MPT_API int64_t mpt_program_num_outputs(mpt_program_t program,
                                        mpt_function_t function);
MPT_MUST_USE_RESULT MPT_API mpt_status_t
mpt_program_output_info(mpt_program_t program, mpt_function_t function,
                        int64_t index, mpt_tensor_info_t *info);

/*===-- Sessions ----------------------------------------------------------===*/

/* The state of one training run: parameters from seeded initializers
   (PyTorch's module defaults, as the signature describes them), state from
   its recorded initial value. On success `*session` is owned by the caller
   (mpt_session_free) and holds a reference to `program`. */
typedef struct mpt_session_s *mpt_session_t;
MPT_MUST_USE_RESULT MPT_API mpt_status_t mpt_session_create(
    mpt_program_t program, uint64_t seed, mpt_session_t *session);
/* NULL is a no-op. */
MPT_API void mpt_session_free(mpt_session_t session);

/* Copies `bytes` bytes of `dtype` elements into the input `name` of
   `function`. `bytes` must be the input's element count times the size of
   `dtype`; floats convert to the input's float type (rounding to nearest
   even) and integers to its integer type (in range). Class labels outside
   [0, num_classes), other than the loss's ignore_index, are rejected,
   naming the value and its index, and so are ids that an embedding looks
   up outside its table's rows. An input stays bound until it is bound
   again. */
MPT_MUST_USE_RESULT MPT_API mpt_status_t mpt_session_bind_input(
    mpt_session_t session, mpt_function_t function, const char *name,
    mpt_dtype_t dtype, const void *data, size_t bytes);

/* Host memory for the next value of input `name` of `function`: `*bytes`
   bytes in the input's own dtype (page-locked on CUDA). Fill it and bind it
   with mpt_session_bind_input(..., *data, *bytes) in that dtype: the batch
   then goes to the device with no further copy on the host. Valid until the
   next mpt_session_input_staging or mpt_session_bind_input for this input;
   it may wait for the device to finish copying the batch before last. */
MPT_MUST_USE_RESULT MPT_API mpt_status_t
mpt_session_input_staging(mpt_session_t session, mpt_function_t function,
                          const char *name, void **data, size_t *bytes);

/* Bytes of memory by what they hold. */
typedef struct mpt_memory_bytes_t {
  int64_t parameters;     /* parameters of a step that computes in f32 */
  int64_t masters;        /* the f32 parameters of a mixed-precision step */
  int64_t working_copies; /* their f16/bf16 copies, as state or per step */
  int64_t gradients;      /* of the parameters */
  int64_t activations;    /* forward values and backward intermediates */
  int64_t optimizer_state;
  int64_t other_state; /* normalization statistics, the loss scale */
  int64_t data;        /* the bound inputs and the metrics */
  int64_t workspace;   /* the step's other buffers: copies, scratch */
  int64_t total;
} mpt_memory_bytes_t;

typedef struct mpt_step_metrics_t {
  float loss;       /* NAN if the step reports no "loss" */
  float loss_scale; /* 1 without loss scaling */
  int skipped; /* the step found non-finite gradients and changed nothing */
  /* Gradient elements, as the backward pass produced them, that are zero
     (underflow) and inf or nan (overflow); -1 without loss scaling. */
  int64_t grad_zero;
  int64_t grad_nonfinite;
  /* Bytes this rank passed to the step's all-reduces (gradient buckets and
     the finite flag); 0 in one process. */
  int64_t bytes_all_reduced;
  /* The step's memory at its highest, by what it held then: the session's
     buffers for the training step, plus the buffers the step allocated for
     itself and had not freed yet. On the CPU the compiler tags those as
     gradients, activations, working copies or workspace, and the scratch of
     a running kernel counts as workspace; on CUDA they are all workspace. */
  mpt_memory_bytes_t peak_memory;
} mpt_step_metrics_t;

/* Runs one training step on the bound inputs (every input must have been
   bound) and carries its state to the next; returns once the step has
   finished. `metrics` may be NULL. Fails with FAILED_PRECONDITION while steps
   queued by mpt_session_step_async have unread metrics. */
MPT_MUST_USE_RESULT MPT_API mpt_status_t
mpt_session_step(mpt_session_t session, mpt_step_metrics_t *metrics);

/* Queues one training step, like mpt_session_step, without waiting for it
   on a device that runs queued work (CUDA; the CPU runs it before this
   returns). The inputs may be bound again at once for the next step: the
   session keeps its own copy of each batch. Every other call sees the state
   after all queued steps. At most 16 queued steps may have unread metrics. */
MPT_MUST_USE_RESULT MPT_API mpt_status_t
mpt_session_step_async(mpt_session_t session);

/* Waits for the oldest queued step whose metrics have not been read and
   returns them; FAILED_PRECONDITION when there is none. A failure inside
   that step (a kernel fault) is reported here. */
MPT_MUST_USE_RESULT MPT_API mpt_status_t
mpt_session_step_metrics(mpt_session_t session, mpt_step_metrics_t *metrics);

/* A scalar metric of the training step that mpt_step_metrics_t does not
   hold ("grad_norm", or one the step names with mpt.metric), as a double: its
   value in the step whose metrics mpt_session_step or mpt_session_step_metrics
   returned last. NOT_FOUND for a name that is no such output,
   FAILED_PRECONDITION before any step's metrics were returned. */
MPT_MUST_USE_RESULT MPT_API mpt_status_t
mpt_session_step_metric(mpt_session_t session, const char *name, double *value);

/* Steps queued by mpt_session_step_async whose metrics were not read yet. */
MPT_API int64_t mpt_session_steps_in_flight(mpt_session_t session);

/* Runs the eval step on its bound inputs and the current state. */
MPT_MUST_USE_RESULT MPT_API mpt_status_t
mpt_session_eval(mpt_session_t session);

/* The calls below that copy tensors (read_output, read_state, write_state,
   save, load) return once their copies are done; on a device that runs
   queued work, a failure of those copies, or of a step queued before them,
   is returned by the call itself, as MPT_STATUS_INTERNAL. */

/* Copies output `name` of the last run of `function` out as `dtype` (same
   conversions as binding); `bytes` must match. */
MPT_MUST_USE_RESULT MPT_API mpt_status_t mpt_session_read_output(
    mpt_session_t session, mpt_function_t function, const char *name,
    mpt_dtype_t dtype, void *data, size_t bytes);

/* The parameters and state of the session (source argument names, or
   loss_scale, loss_scale_growth_tracker, ...): count (0 for NULL), then each
   one's info. Persistent working copies are not among them. */
MPT_API int64_t mpt_session_num_state(mpt_session_t session);
MPT_MUST_USE_RESULT MPT_API mpt_status_t mpt_session_state_info(
    mpt_session_t session, int64_t index, mpt_tensor_info_t *info);

/* Copies a state tensor out as f32 (converting f16, bf16 and integers);
   `count` must be its number of elements. */
MPT_MUST_USE_RESULT MPT_API mpt_status_t mpt_session_read_state(
    mpt_session_t session, const char *name, float *values, int64_t count);
/* Overwrites a state tensor from f32 values (rounded to its type; integer
   state takes only finite integral values in its range). State the step
   keeps in a range takes only values in it, else MPT_STATUS_INVALID_ARGUMENT
   names the tensor and the range: the loss scale within [min_scale,
   max_scale] (a static one positive and finite), the growth tracker and
   optimizer step counts within [0, 2^53]. Nothing changes on error. */
MPT_MUST_USE_RESULT MPT_API mpt_status_t
mpt_session_write_state(mpt_session_t session, const char *name,
                        const float *values, int64_t count);

/* Writes every parameter and state tensor, bit for bit, plus `position` (the
   caller's place in its data order) to a safetensors file, atomically: the
   previous file stays intact if anything fails. Temporaries that killed
   writers left for the same path are removed. */
MPT_MUST_USE_RESULT MPT_API mpt_status_t mpt_session_save(mpt_session_t session,
                                                          const char *path,
                                                          int64_t position);
/* Loads a checkpoint written by mpt_session_save for the same program and
   precision. Nothing changes if the file is missing, a directory or corrupt
   (MPT_STATUS_DATA_LOSS), holds other tensors, or a value outside the range
   mpt_session_write_state takes (MPT_STATUS_INVALID_ARGUMENT, naming the
   file and the tensor). Names, dtypes and shapes are checked before any
   data is read. `position` may be NULL. */
MPT_MUST_USE_RESULT MPT_API mpt_status_t mpt_session_load(mpt_session_t session,
                                                          const char *path,
                                                          int64_t *position);

#ifdef __cplusplus
}
#endif

#endif /* MPT_RUNTIME_H */
