//===- Nccl.h - the part of NCCL's API the runtime uses ---------*- C++ -*-===//
//
// Declared as nccl.h declares them (NCCL 2.10 and later, which have bf16),
// so that no build needs NCCL: NcclTransport.cpp loads the library with
// dlopen, and the recording CUDA driver (runtime/unittests/
// RecordingCudaDriver.cpp) implements these functions for its tests.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_COMM_NCCL_H
#define MPT_RUNTIME_COMM_NCCL_H

#include <cuda.h>

#include <cstddef>

namespace mpt::nccl {

using ncclComm_t = struct ncclComm *;
enum ncclResult_t : int {
  ncclSuccess = 0,
  ncclInvalidArgument = 4,
  ncclRemoteError = 6,
  ncclInProgress = 7,
};
enum ncclDataType_t : int {
  ncclInt32 = 2,
  ncclInt64 = 4,
  ncclFloat16 = 6,
  ncclFloat32 = 7,
  ncclBfloat16 = 9,
};
enum ncclRedOp_t : int { ncclSum = 0, ncclMax = 2 };
struct ncclUniqueId {
  char internal[128];
};

#define MPT_NCCL_FUNCTIONS(X)                                                  \
  X(ncclGetVersion, ncclResult_t(int *))                                       \
  X(ncclGetErrorString, const char *(ncclResult_t))                            \
  X(ncclGetUniqueId, ncclResult_t(ncclUniqueId *))                             \
  X(ncclCommInitRank, ncclResult_t(ncclComm_t *, int, ncclUniqueId, int))      \
  X(ncclAllReduce, ncclResult_t(const void *, void *, size_t, ncclDataType_t,  \
                                ncclRedOp_t, ncclComm_t, CUstream))            \
  X(ncclCommGetAsyncError, ncclResult_t(ncclComm_t, ncclResult_t *))           \
  X(ncclCommAbort, ncclResult_t(ncclComm_t))                                   \
  X(ncclCommDestroy, ncclResult_t(ncclComm_t))

} // namespace mpt::nccl

#endif // MPT_RUNTIME_COMM_NCCL_H
