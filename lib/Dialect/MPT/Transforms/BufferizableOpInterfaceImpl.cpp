//===- BufferizableOpInterfaceImpl.cpp - mpt ops in bufferization ---------===//
//
// The all-reduce is a call of the runtime on the gradients' own buffer: in
// place, so a bucket costs no copy beyond its packing, and a call, because
// the communicator lives in the runtime (runtime/src/comm/StepCollectives.cpp
// binds the entry points), not in the compiled step. A recompute barrier
// is its input's buffer.
//
//===----------------------------------------------------------------------===//

#include "mpt/Dialect/MPT/Transforms/BufferizableOpInterfaceImpl.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/DialectRegistry.h"

#include "mpt/Contract/Contract.h"
#include "mpt/Conversion/LibraryCalls.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace mpt;

namespace {

struct AllReduceOpInterface
    : public BufferizableOpInterface::ExternalModel<AllReduceOpInterface,
                                                    AllReduceOp> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return true;
  }
  AliasingValueList getAliasingValues(Operation *op, OpOperand &operand,
                                      const AnalysisState &) const {
    return {{op->getResult(operand.getOperandNumber()),
             BufferRelation::Equivalent}};
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto reduce = cast<AllReduceOp>(op);
    if (reduce.getInputs().size() != 1)
      return op->emitOpError(
          "must reduce one vector when bufferized (mpt-convert-to-linalg "
          "packs buckets)");
    Value input = reduce.getInputs().front();
    // The verifier admits f32, f16 and bf16, which all have one.
    StringRef type = libraryTypeName(getElementTypeOrSelf(input));
    assert(!type.empty() && "an all-reduce type without an entry point");
    FailureOr<Value> buffer = getBuffer(rewriter, input, options, state);
    if (failed(buffer))
      return failure();
    createLibraryCall(rewriter, op->getLoc(),
                      (Twine(contract::kernel::AllReducePrefix) + type).str(),
                      {*buffer}, {static_cast<int64_t>(reduce.getKind())});
    replaceOpWithBufferizedValues(rewriter, op, *buffer);
    return success();
  }
};

/// A recompute barrier is its input: the result gets the input's buffer.
struct RecomputeBarrierOpInterface
    : public BufferizableOpInterface::ExternalModel<RecomputeBarrierOpInterface,
                                                    RecomputeBarrierOp> {
  // Conservatively a read: the input's buffer must still hold the value here.
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *op, OpOperand &,
                                      const AnalysisState &) const {
    return {{op->getResult(0), BufferRelation::Equivalent}};
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    FailureOr<Value> buffer = getBuffer(
        rewriter, cast<RecomputeBarrierOp>(op).getInput(), options, state);
    if (failed(buffer))
      return failure();
    replaceOpWithBufferizedValues(rewriter, op, *buffer);
    return success();
  }
};

} // namespace

void mpt::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, MPTDialect *) {
    AllReduceOp::attachInterface<AllReduceOpInterface>(*context);
    RecomputeBarrierOp::attachInterface<RecomputeBarrierOpInterface>(*context);
  });
}
