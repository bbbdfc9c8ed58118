//===- StepCollectives.cpp - the all-reduces compiled steps call ----------===//

#include "comm/StepCollectives.h"

#include "JitSymbols.h"

#include "mpt/Contract/Contract.h"

#include "llvm/ADT/Twine.h"

namespace mpt::runtime {
namespace {

thread_local StepCollectives *active = nullptr;

/// The memref descriptor of a vector, as the C interface passes it.
struct VectorDescriptor {
  void *allocated;
  uint8_t *aligned;
  int64_t offset;
  int64_t size;
  int64_t stride;
};

template <mpt_dtype_t Dtype>
void allReduce(VectorDescriptor *vector, int64_t kind) {
  if (!active)
    return; // One process: a collective over one rank changes nothing.
  size_t elementBytes = mpt_dtype_size(Dtype);
  // mpt-convert-to-linalg packs buckets into fresh vectors: contiguous.
  active->allReduce(vector->aligned + vector->offset * elementBytes,
                    vector->stride == 1 ? vector->size : -1, Dtype, kind);
}

} // namespace

StepCollectives::StepCollectives(mpt_comm_t comm, mpt_device_t memory)
    : comm(comm), memory(memory), previous(active) {
  active = this;
}

StepCollectives::~StepCollectives() { active = previous; }

void StepCollectives::allReduce(void *data, int64_t count, mpt_dtype_t dtype,
                                int64_t kind) {
  if (!comm || !firstError.empty())
    return;
  if (count < 0) {
    firstError = "the step all-reduces a strided vector";
    return;
  }
  mpt_reduce_op_t op = kind == 0   ? MPT_REDUCE_SUM
                       : kind == 1 ? MPT_REDUCE_MAX
                                   : mpt_reduce_op_t(-1);
  if (mpt_status_t status =
          mpt_comm_all_reduce(comm, memory, data, count, dtype, op)) {
    firstError = mpt_status_message(status);
    mpt_status_free(status);
    return;
  }
  bytesReduced += count * int64_t(mpt_dtype_size(dtype));
}

void bindStepCollectives(llvm::orc::SymbolMap &symbols,
                         llvm::orc::MangleAndInterner &interner) {
  auto bind = [&](llvm::StringRef type,
                  void (*function)(VectorDescriptor *, int64_t)) {
    bindJitSymbol(symbols, interner,
                  ("_mlir_ciface_" +
                   llvm::Twine(contract::kernel::AllReducePrefix) + type)
                      .str(),
                  reinterpret_cast<const void *>(function));
  };
  bind("f32", &allReduce<MPT_DTYPE_F32>);
  bind("f16", &allReduce<MPT_DTYPE_F16>);
  bind("bf16", &allReduce<MPT_DTYPE_BF16>);
}

} // namespace mpt::runtime
