//===- Gemm.cpp - mpt_cuda_matmul_* on cuBLASLt -----------------*- C++ -*-===//
//
// mpt-convert-linalg-to-cuda-library-calls turns every matmul, batched matmul
// and convolution GEMM into mpt_cuda_matmul_<type>_<rank>d(A, B, C, tA, tB,
// accumulate): C += op(A)·op(B) with C in f32, or C = op(A)·op(B) where the
// IR zeroed C just before (accumulate 0: beta 0, so C is neither filled nor
// read); and mpt_cuda_matmul_<type>_<rank>d_rounded(A, B, D, tA, tB): D =
// op(A)·op(B) computed in f32 and rounded once to A's type, where the IR
// only rounded the product. This runs it with cuBLASLt as PyTorch does
// (aten/src/ATen/cuda/CUDABlas.cpp): A and B in their own type,
// CUBLAS_COMPUTE_32F, f32 scale, a heuristic algorithm and a workspace.
// cuBLASLt is loaded with dlopen like the driver, so nothing CUDA is linked.
//
//===----------------------------------------------------------------------===//

#include "CudaRuntime.h"
#include "Driver.h"
#include "KernelTimes.h"

#include <cublasLt.h>
#include <dlfcn.h>

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <array>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>

using namespace mpt::cuda;

namespace {

struct CublasLt {
#define MPT_CUBLASLT_FUNCTIONS(X)                                              \
  X(cublasLtCreate)                                                            \
  X(cublasLtGetStatusString)                                                   \
  X(cublasLtMatmulDescCreate)                                                  \
  X(cublasLtMatmulDescDestroy)                                                 \
  X(cublasLtMatmulDescSetAttribute)                                            \
  X(cublasLtMatrixLayoutCreate)                                                \
  X(cublasLtMatrixLayoutDestroy)                                               \
  X(cublasLtMatrixLayoutSetAttribute)                                          \
  X(cublasLtMatmulPreferenceCreate)                                            \
  X(cublasLtMatmulPreferenceDestroy)                                           \
  X(cublasLtMatmulPreferenceSetAttribute)                                      \
  X(cublasLtMatmulAlgoGetHeuristic)                                            \
  X(cublasLtMatmul)
#define MPT_DECLARE(name) decltype(&::name) name = nullptr;
  MPT_CUBLASLT_FUNCTIONS(MPT_DECLARE)
#undef MPT_DECLARE
  cublasLtHandle_t handle = nullptr;
  CUdeviceptr workspace = 0;
  static constexpr size_t workspaceBytes = 32 << 20;
};

/// cuBLASLt, loaded and set up once; nullptr after recording why not.
CublasLt *cublasLt() {
  static CublasLt lt;
  static std::string error;
  static std::once_flag once;
  std::call_once(once, [] {
    Driver *d = driver();
    if (!d) {
      error = "CUDA driver unavailable";
      return;
    }
    // Like $MPT_CUDA_DRIVER_LIBRARY, the override lets tests stand in a
    // library that records the calls.
    const char *standIn = std::getenv("MPT_CUBLASLT_LIBRARY");
    bool overridden = standIn && *standIn;
    const char *library = overridden ? standIn : "libcublasLt.so.13";
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!handle && !overridden)
      handle = dlopen(MPT_CUDA_LIBRARY_DIR "/libcublasLt.so.13",
                      RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      error =
          std::string("cannot load cuBLASLt (") + library + "): " + dlerror();
      return;
    }
#define MPT_RESOLVE(name)                                                      \
  lt.name = reinterpret_cast<decltype(lt.name)>(dlsym(handle, #name));         \
  if (!lt.name) {                                                              \
    error = std::string(library) + " has no " #name;                           \
    return;                                                                    \
  }
    MPT_CUBLASLT_FUNCTIONS(MPT_RESOLVE)
#undef MPT_RESOLVE
    if (lt.cublasLtCreate(&lt.handle) != CUBLAS_STATUS_SUCCESS) {
      error = "cublasLtCreate failed";
      return;
    }
    if (!check(d->cuMemAlloc(&lt.workspace, CublasLt::workspaceBytes),
               "cuMemAlloc (cuBLASLt workspace)"))
      error = "cannot allocate the cuBLASLt workspace";
  });
  if (!error.empty()) {
    recordError(error);
    return nullptr;
  }
  return &lt;
}

/// One operand as a column-major cuBLASLt matrix: a row-major R x C memref
/// is the column-major C x R matrix R^T.
struct Matrix {
  uint64_t rows, cols;
  int64_t ld;
  bool rowMajor;
};

/// The matrix of the two innermost dimensions of a memref with `sizes` and
/// `strides`, or nothing if neither dimension is contiguous.
std::optional<Matrix> matrixOf(int64_t r, int64_t c, int64_t rowStride,
                               int64_t colStride) {
  if (colStride == 1 || c == 1)
    return Matrix{uint64_t(c), uint64_t(r), r == 1 ? c : rowStride, true};
  if (rowStride == 1 || r == 1)
    return Matrix{uint64_t(r), uint64_t(c), c == 1 ? r : colStride, false};
  return std::nullopt;
}

/// A GEMM's cuBLASLt descriptors and algorithm, made once per shape: a step
/// runs the same GEMMs every time, and the heuristic lookup costs more host
/// time than a small GEMM takes on the device. Never destroyed: cuBLASLt
/// lives as long as the process.
struct Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t layouts[3] = {nullptr, nullptr, nullptr}; // B, A, C
  cublasLtMatmulAlgo_t algo = {};
};

/// Everything a plan depends on: element types (inputs, result),
/// operations, the three matrices (rows, columns, leading dimension, order),
/// the batch and its strides, and the alignment of the three pointers.
using PlanKey = std::array<int64_t, 23>;

/// The largest power of two up to 256 that divides `pointer`: cuBLASLt's
/// heuristic otherwise assumes 256-byte alignment, which an operand at an
/// offset into its buffer may lack.
uint32_t alignmentOf(const void *pointer) {
  auto address = reinterpret_cast<uintptr_t>(pointer);
  uint32_t alignment = 256;
  while (alignment > 1 && address % alignment != 0)
    alignment /= 2;
  return alignment;
}

/// Whether `result` is success; records `name`: `what` failed otherwise.
bool succeeded(CublasLt &lt, const char *name, cublasStatus_t result,
               const char *what) {
  if (result == CUBLAS_STATUS_SUCCESS)
    return true;
  recordError(std::string(name) + ": " + what +
              " failed: " + lt.cublasLtGetStatusString(result));
  return false;
}

/// The layout of `m`, `batch` times `batchStride` apart.
bool makeLayout(CublasLt &lt, const char *name, cublasLtMatrixLayout_t &out,
                cudaDataType_t elementType, const Matrix &m, int64_t batch,
                int64_t batchStride) {
  if (!succeeded(lt, name,
                 lt.cublasLtMatrixLayoutCreate(&out, elementType, m.rows,
                                               m.cols, m.ld),
                 "cublasLtMatrixLayoutCreate"))
    return false;
  if (batch == 1)
    return true;
  int32_t count = int32_t(batch);
  return succeeded(lt, name,
                   lt.cublasLtMatrixLayoutSetAttribute(
                       out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                       sizeof(count)),
                   "batch count") &&
         succeeded(lt, name,
                   lt.cublasLtMatrixLayoutSetAttribute(
                       out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                       &batchStride, sizeof(batchStride)),
                   "batch stride");
}

/// cuBLASLt's first choice of algorithm for `plan`'s descriptor and layouts,
/// with operands of `alignments` (B, A, C) and the shared workspace.
bool findAlgorithm(CublasLt &lt, const char *name,
                   const uint32_t (&alignments)[3], Plan &plan) {
  cublasLtMatmulPreference_t preference = nullptr;
  cublasLtMatmulHeuristicResult_t heuristic = {};
  int found = 0;
  uint64_t workspaceBytes = CublasLt::workspaceBytes;
  auto prefer = [&](cublasLtMatmulPreferenceAttributes_t attribute,
                    const void *value, size_t bytes, const char *what) {
    return succeeded(lt, name,
                     lt.cublasLtMatmulPreferenceSetAttribute(
                         preference, attribute, value, bytes),
                     what);
  };
  bool ok = succeeded(lt, name, lt.cublasLtMatmulPreferenceCreate(&preference),
                      "cublasLtMatmulPreferenceCreate") &&
            prefer(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspaceBytes,
                   sizeof(workspaceBytes), "workspace preference") &&
            prefer(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &alignments[0],
                   sizeof(alignments[0]), "alignment of B") &&
            prefer(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &alignments[1],
                   sizeof(alignments[1]), "alignment of A") &&
            prefer(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &alignments[2],
                   sizeof(alignments[2]), "alignment of C") &&
            prefer(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &alignments[2],
                   sizeof(alignments[2]), "alignment of D") &&
            succeeded(lt, name,
                      lt.cublasLtMatmulAlgoGetHeuristic(
                          lt.handle, plan.desc, plan.layouts[0],
                          plan.layouts[1], plan.layouts[2], plan.layouts[2],
                          preference, 1, &heuristic, &found),
                      "cublasLtMatmulAlgoGetHeuristic");
  if (ok && found == 0) {
    recordError(std::string(name) + ": cuBLASLt has no algorithm for this "
                                    "GEMM");
    ok = false;
  }
  if (preference)
    lt.cublasLtMatmulPreferenceDestroy(preference);
  if (ok)
    plan.algo = heuristic.algo;
  return ok;
}

/// Makes the plan of C += op(B)^T·op(A)^T in cuBLASLt's column-major terms;
/// false after recording why not.
bool makePlan(CublasLt &lt, const char *name, cudaDataType_t type,
              cudaDataType_t resultType, cublasOperation_t opA,
              cublasOperation_t opB, const Matrix &ma, const Matrix &mb,
              const Matrix &mc, int64_t batch, int64_t strideA, int64_t strideB,
              int64_t strideC, const uint32_t (&alignments)[3], Plan &plan) {
  bool ok =
      succeeded(lt, name,
                lt.cublasLtMatmulDescCreate(&plan.desc, CUBLAS_COMPUTE_32F,
                                            CUDA_R_32F),
                "cublasLtMatmulDescCreate") &&
      succeeded(lt, name,
                lt.cublasLtMatmulDescSetAttribute(
                    plan.desc, CUBLASLT_MATMUL_DESC_TRANSA, &opB, sizeof(opB)),
                "transa") &&
      succeeded(lt, name,
                lt.cublasLtMatmulDescSetAttribute(
                    plan.desc, CUBLASLT_MATMUL_DESC_TRANSB, &opA, sizeof(opA)),
                "transb") &&
      makeLayout(lt, name, plan.layouts[0], type, mb, batch, strideB) &&
      makeLayout(lt, name, plan.layouts[1], type, ma, batch, strideA) &&
      makeLayout(lt, name, plan.layouts[2], resultType, mc, batch, strideC) &&
      findAlgorithm(lt, name, alignments, plan);
  if (ok)
    return true;
  for (cublasLtMatrixLayout_t l : plan.layouts)
    if (l)
      lt.cublasLtMatrixLayoutDestroy(l);
  if (plan.desc)
    lt.cublasLtMatmulDescDestroy(plan.desc);
  return false;
}

/// Queues C = op(A)·op(B) (plus C with `accumulate`) as `plan` on the
/// driver's stream, timed under `name` when kernel times are on.
void launch(CublasLt &lt, Driver &d, const char *name, const Plan &plan,
            const void *dataA, const void *dataB, void *dataC,
            int64_t accumulate) {
  const float one = 1.0f, beta = accumulate ? 1.0f : 0.0f;
  bool timed = kernelTimesEnabled();
  if (timed)
    beginKernelTime(name);
  cublasStatus_t result = lt.cublasLtMatmul(
      lt.handle, plan.desc, &one, dataB, plan.layouts[0], dataA,
      plan.layouts[1], &beta, dataC, plan.layouts[2], dataC, plan.layouts[2],
      &plan.algo, reinterpret_cast<void *>(lt.workspace),
      CublasLt::workspaceBytes, d.stream);
  if (timed)
    endKernelTime();
  if (result != CUBLAS_STATUS_SUCCESS)
    recordError(std::string(name) + ": cublasLtMatmul failed: " +
                lt.cublasLtGetStatusString(result));
}

/// C = op(A)·op(B), plus C with `accumulate`, in f32 then stored in C's
/// type: f32, or A's type when `resultType` is `type` (cuBLASLt then wants C
/// in that type too, which beta 0 never reads).
template <typename T, typename CT, int Rank>
void gemm(cudaDataType_t type, cudaDataType_t resultType, const char *name,
          StridedMemRefType<T, Rank> *a, StridedMemRefType<T, Rank> *b,
          StridedMemRefType<CT, Rank> *c, int64_t transposeA,
          int64_t transposeB, int64_t accumulate) {
  CublasLt *lt = cublasLt();
  Driver *d = driver();
  if (!lt || !d)
    return;
  constexpr int m0 = Rank - 2, m1 = Rank - 1;
  auto matrix = [&](auto *memref) {
    return matrixOf(memref->sizes[m0], memref->sizes[m1], memref->strides[m0],
                    memref->strides[m1]);
  };
  std::optional<Matrix> ma = matrix(a), mb = matrix(b), mc = matrix(c);
  if (!ma || !mb || !mc || !mc->rowMajor) {
    recordError(std::string(name) +
                ": an operand has no contiguous dimension (or the result is "
                "not row-major); copy it first");
    return;
  }
  // C (M x N, row-major) is C^T (N x M) column-major:
  // C^T += op(B)^T · op(A)^T, so B is cuBLAS's first operand.
  cublasOperation_t opB =
      mb->rowMajor != bool(transposeB) ? CUBLAS_OP_N : CUBLAS_OP_T;
  cublasOperation_t opA =
      ma->rowMajor != bool(transposeA) ? CUBLAS_OP_N : CUBLAS_OP_T;
  int64_t batch = Rank == 3 ? c->sizes[0] : 1;
  int64_t strideA = Rank == 3 ? a->strides[0] : 0;
  int64_t strideB = Rank == 3 ? b->strides[0] : 0;
  int64_t strideC = Rank == 3 ? c->strides[0] : 0;

  static std::mutex plansMutex;
  static std::map<PlanKey, Plan> plans;
  T *dataA = a->data + a->offset, *dataB = b->data + b->offset;
  CT *dataC = c->data + c->offset;
  // In cuBLASLt's order: B, A, C.
  const uint32_t alignments[3] = {alignmentOf(dataB), alignmentOf(dataA),
                                  alignmentOf(dataC)};
  PlanKey key = {type,
                 resultType,
                 opA,
                 opB,
                 int64_t(ma->rows),
                 int64_t(ma->cols),
                 ma->ld,
                 ma->rowMajor,
                 int64_t(mb->rows),
                 int64_t(mb->cols),
                 mb->ld,
                 mb->rowMajor,
                 int64_t(mc->rows),
                 int64_t(mc->cols),
                 mc->ld,
                 mc->rowMajor,
                 batch,
                 strideA,
                 strideB,
                 strideC,
                 alignments[0],
                 alignments[1],
                 alignments[2]};
  Plan plan;
  {
    std::lock_guard<std::mutex> lock(plansMutex);
    auto known = plans.find(key);
    if (known != plans.end()) {
      plan = known->second;
    } else {
      if (!makePlan(*lt, name, type, resultType, opA, opB, *ma, *mb, *mc, batch,
                    strideA, strideB, strideC, alignments, plan))
        return;
      plans.emplace(key, plan);
    }
  }
  launch(*lt, *d, name, plan, dataA, dataB, dataC, accumulate);
}

/// bf16 and f16 storage types: only their bits travel.
struct Half16 {
  uint16_t bits;
};

} // namespace

#define MPT_GEMM(TYPE, CTYPE, CUDATYPE, RANK)                                  \
  extern "C" void _mlir_ciface_mpt_cuda_matmul_##TYPE##_##RANK##d(             \
      StridedMemRefType<CTYPE, RANK> *a, StridedMemRefType<CTYPE, RANK> *b,    \
      StridedMemRefType<float, RANK> *c, int64_t transposeA,                   \
      int64_t transposeB, int64_t accumulate) {                                \
    gemm<CTYPE, float, RANK>(CUDATYPE, CUDA_R_32F,                             \
                             "mpt_cuda_matmul_" #TYPE "_" #RANK "d", a, b, c,  \
                             transposeA, transposeB, accumulate);              \
  }
#define MPT_GEMM_TYPES(X)                                                      \
  X(f32, float, CUDA_R_32F, 2)                                                 \
  X(f32, float, CUDA_R_32F, 3)                                                 \
  X(f16, Half16, CUDA_R_16F, 2)                                                \
  X(f16, Half16, CUDA_R_16F, 3)                                                \
  X(bf16, Half16, CUDA_R_16BF, 2)                                              \
  X(bf16, Half16, CUDA_R_16BF, 3)
MPT_GEMM_TYPES(MPT_GEMM)
#undef MPT_GEMM

#define MPT_ROUNDED_GEMM(TYPE, CUDATYPE, RANK)                                 \
  extern "C" void _mlir_ciface_mpt_cuda_matmul_##TYPE##_##RANK##d_rounded(     \
      StridedMemRefType<Half16, RANK> *a, StridedMemRefType<Half16, RANK> *b,  \
      StridedMemRefType<Half16, RANK> *d, int64_t transposeA,                  \
      int64_t transposeB) {                                                    \
    gemm<Half16, Half16, RANK>(                                                \
        CUDATYPE, CUDATYPE, "mpt_cuda_matmul_" #TYPE "_" #RANK "d_rounded", a, \
        b, d, transposeA, transposeB, /*accumulate=*/0);                       \
  }
#define MPT_ROUNDED_GEMM_TYPES(X)                                              \
  X(f16, CUDA_R_16F, 2)                                                        \
  X(f16, CUDA_R_16F, 3)                                                        \
  X(bf16, CUDA_R_16BF, 2)                                                      \
  X(bf16, CUDA_R_16BF, 3)
MPT_ROUNDED_GEMM_TYPES(MPT_ROUNDED_GEMM)
#undef MPT_ROUNDED_GEMM

extern "C" {
CUmodule mgpuModuleLoad(void *, size_t);
CUmodule mgpuModuleLoadJIT(void *, int);
void mgpuModuleUnload(CUmodule);
CUfunction mgpuModuleGetFunction(CUmodule, const char *);
void mgpuLaunchKernel(CUfunction, intptr_t, intptr_t, intptr_t, intptr_t,
                      intptr_t, intptr_t, int32_t, CUstream, void **, void **,
                      size_t);
CUstream mgpuStreamCreate();
void mgpuStreamDestroy(CUstream);
void mgpuStreamSynchronize(CUstream);
void *mgpuMemAlloc(uint64_t, CUstream, bool);
void mgpuMemFree(void *, CUstream);
void mgpuMemcpy(void *, void *, size_t, CUstream);
void mgpuMemHostRegisterMemRef(int64_t, void *, int64_t);
}

const std::vector<Symbol> &mpt::cuda::symbols() {
#define MPT_SYMBOL(name) Symbol{#name, reinterpret_cast<void *>(&name)},
#define MPT_GEMM_SYMBOL(TYPE, CTYPE, CUDATYPE, RANK)                           \
  MPT_SYMBOL(_mlir_ciface_mpt_cuda_matmul_##TYPE##_##RANK##d)
#define MPT_ROUNDED_GEMM_SYMBOL(TYPE, CUDATYPE, RANK)                          \
  MPT_SYMBOL(_mlir_ciface_mpt_cuda_matmul_##TYPE##_##RANK##d_rounded)
  // clang-format off
  static const std::vector<Symbol> table = {
      MPT_SYMBOL(mgpuModuleLoad)
      MPT_SYMBOL(mgpuModuleLoadJIT)
      MPT_SYMBOL(mgpuModuleUnload)
      MPT_SYMBOL(mgpuModuleGetFunction)
      MPT_SYMBOL(mgpuLaunchKernel)
      MPT_SYMBOL(mgpuStreamCreate)
      MPT_SYMBOL(mgpuStreamDestroy)
      MPT_SYMBOL(mgpuStreamSynchronize)
      MPT_SYMBOL(mgpuMemAlloc)
      MPT_SYMBOL(mgpuMemFree)
      MPT_SYMBOL(mgpuMemcpy)
      MPT_SYMBOL(mgpuMemHostRegisterMemRef)
      MPT_GEMM_TYPES(MPT_GEMM_SYMBOL)
      MPT_ROUNDED_GEMM_TYPES(MPT_ROUNDED_GEMM_SYMBOL)
  };
  // clang-format on
#undef MPT_ROUNDED_GEMM_SYMBOL
#undef MPT_GEMM_SYMBOL
#undef MPT_SYMBOL
  return table;
}
