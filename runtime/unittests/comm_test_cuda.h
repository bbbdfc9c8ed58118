/* Device memory for the CUDA case of comm_test.c, on the runtime's driver and
   stream (comm_test_cuda.cpp). */
#ifndef MPT_RUNTIME_UNITTESTS_COMM_TEST_CUDA_H
#define MPT_RUNTIME_UNITTESTS_COMM_TEST_CUDA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Device memory holding a copy of `bytes` bytes at `host`; NULL, after
   printing why, on failure. */
void *deviceCopyOf(const void *host, size_t bytes);
/* Copies `bytes` bytes from `device` to `host` after the work queued on the
   runtime's stream; 0, after printing why, on failure. */
int copyFromDevice(void *host, const void *device, size_t bytes);
/* Waits for the work queued on the runtime's stream, as the runtime waits;
   NULL when it completed, else why not (valid until the next call). */
const char *streamWaitError(void);
void freeDeviceCopy(void *device);

#ifdef __cplusplus
}
#endif

#endif /* MPT_RUNTIME_UNITTESTS_COMM_TEST_CUDA_H */
