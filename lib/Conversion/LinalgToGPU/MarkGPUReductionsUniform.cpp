//===- MarkGPUReductionsUniform.cpp - mark-gpu-reductions-uniform -*- C++
//-*-===//

#include "mpt/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mpt {
#define GEN_PASS_DEF_MARKGPUREDUCTIONSUNIFORM
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

struct MarkGPUReductionsUniformPass
    : public mpt::impl::MarkGPUReductionsUniformBase<
          MarkGPUReductionsUniformPass> {
  void runOnOperation() override {
    getOperation().walk([](gpu::AllReduceOp op) {
      if (isa<gpu::LaunchOp>(op->getParentOp()))
        op.setUniform(true);
    });
  }
};

} // namespace
