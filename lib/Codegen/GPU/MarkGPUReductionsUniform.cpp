//===- MarkGPUReductionsUniform.cpp - mpt-mark-gpu-reductions-uniform -----===//

#include "mpt/Codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mpt {
#define GEN_PASS_DEF_MPTMARKGPUREDUCTIONSUNIFORM
#include "mpt/Codegen/GPU/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

struct MPTMarkGPUReductionsUniformPass
    : public mpt::impl::MPTMarkGPUReductionsUniformBase<
          MPTMarkGPUReductionsUniformPass> {
  void runOnOperation() override {
    getOperation().walk([](gpu::AllReduceOp op) {
      if (isa<gpu::LaunchOp>(op->getParentOp()))
        op.setUniform(true);
    });
  }
};

} // namespace
