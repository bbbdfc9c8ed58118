/* Compiles a training step with the installed runtime, binds zeros to its
   inputs, takes one step, starts a communicator (one rank) and prints what
   each call returned. */
#include <mpt/comm.h>
#include <mpt/runtime.h>

#include <stdio.h>
#include <stdlib.h>

static int check(const char *what, mpt_status_t status) {
  int ok = status == NULL;
  printf("%s: %s%s\n", what,
         ok ? "OK" : "failed: ", mpt_status_message(status));
  mpt_status_free(status);
  return ok;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: consumer FILE.mlir\n");
    return 2;
  }
  printf("isa: %s\n", mpt_cpu_isa());
  mpt_compile_options_t options;
  mpt_compile_options_init(&options);
  mpt_program_t program = NULL;
  if (!check("compile", mpt_program_compile(argv[1], &options, &program)))
    return 1;
  mpt_session_t session = NULL;
  int ok = check("session", mpt_session_create(program, 1, &session));
  int64_t inputs = mpt_program_num_inputs(program, MPT_FUNCTION_TRAIN);
  for (int64_t i = 0; ok && i < inputs; ++i) {
    mpt_tensor_info_t info;
    ok = check("input info",
               mpt_program_input_info(program, MPT_FUNCTION_TRAIN, i, &info));
    void *zeros = ok ? calloc(info.num_bytes ? info.num_bytes : 1, 1) : NULL;
    ok = ok && check("bind", mpt_session_bind_input(session, MPT_FUNCTION_TRAIN,
                                                    info.name, info.dtype,
                                                    zeros, info.num_bytes));
    free(zeros);
  }
  mpt_step_metrics_t metrics;
  ok = ok && check("step", mpt_session_step(session, &metrics));
  if (ok)
    printf("loss is a number: %d\n", metrics.loss == metrics.loss);
  printf("step without a session: %d\n",
         (int)mpt_status_code(mpt_session_step(NULL, NULL)));
  mpt_comm_t comm = NULL;
  ok = ok && check("comm", mpt_comm_init(NULL, &comm));
  if (ok)
    printf("rank %d of %d, %s\n", mpt_comm_rank(comm), mpt_comm_size(comm),
           mpt_comm_transport(comm));
  mpt_comm_free(comm);
  mpt_session_free(session);
  mpt_program_free(program);
  return ok ? 0 : 1;
}
