//===- Utils.h - helpers shared by the mixed-precision passes ---*- C++ -*-===//

#ifndef MPT_LIB_TRANSFORMS_UTILS_H
#define MPT_LIB_TRANSFORMS_UTILS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallBitVector.h"

#include "mpt/Dialect/MPT/IR/MPTOps.h"

namespace mpt {

/// The element type of a shaped value, or the type itself.
mlir::Type getElementType(mlir::Value value);

/// The bytes of a statically shaped tensor type; nullopt for any other type.
std::optional<int64_t> staticTensorBytes(mlir::Type type);

/// `type` (a ranked tensor) with its element type replaced.
mlir::RankedTensorType withElementType(mlir::Type type, mlir::Type elementType);

/// Creates the cast converting `value` to `elementType` at the insertion point:
/// arith.extf to widen, arith.truncf to narrow, through f32 between f16 and
/// bf16.
mlir::Value createFloatCast(mlir::OpBuilder &builder, mlir::Location loc,
                            mlir::Value value, mlir::Type elementType);

/// Erases casts whose results are unused, repeatedly.
void eraseDeadCasts(mlir::func::FuncOp function);

/// The values optimizers read as gradients, traced back through casts,
/// unscaling and clipping to where the backward pass produces them, in program
/// order.
llvm::SmallVector<mlir::Value> findGradientRoots(mlir::func::FuncOp function);

/// Whether `op` is on the gradient and state side of the step (optimizers,
/// their learning-rate schedules, unscaling, clipping, the finite check, the
/// loss scale's update, the skipped-step selects): its results are gradients
/// and state, not activations.
bool isUpdateOp(mlir::Operation *op);

/// Which operands of `op` are in `scaled`, one bit per operand.
llvm::SmallBitVector
getScaledOperands(mlir::Operation *op,
                  const llvm::DenseSet<mlir::Value> &scaled);

/// Whether the results of `op` carry the loss scale when exactly
/// `scaledOperands` do (ScaleEquivariantOpInterface), counting constant zeros,
/// and loop-carried values that start at one (accumulators), as scaled where
/// that helps.
bool propagatesScale(mlir::Operation *op,
                     const llvm::SmallBitVector &scaledOperands);

/// The boundary of the backward slice seeded by `seed`: the values that depend
/// on the seed through scale-equivariant ops of its block, mapped to their
/// uses outside that slice (an op that is not equivariant in them, an op with
/// regions or inside one, a return), in program order of those uses.
llvm::MapVector<mlir::Value, llvm::SmallVector<mlir::OpOperand *>>
findScaleBoundary(LossGradOp seed);

/// Whether `function` is marked `mpt.train_step`.
bool isTrainStep(mlir::func::FuncOp function);

/// The backward seed of the training step `function`; when there is not
/// exactly one, an error naming `pass`.
mlir::FailureOr<LossGradOp> findBackwardSeed(mlir::func::FuncOp function,
                                             llvm::StringRef pass);

/// The calls of `function` in `module`, before a pass changes its signature
/// and theirs. Fails, emitting "<op> uses @f, whose <change>, other than by a
/// call" at a use that is not a call, or "has uses that are not calls;
/// <consequence>" on `function` when its uses cannot be listed.
mlir::FailureOr<llvm::SmallVector<mlir::func::CallOp>>
callsOf(mlir::func::FuncOp function, mlir::ModuleOp module,
        llvm::StringRef change, llvm::StringRef consequence);

/// The role attribute name of argument `index` (mpt.param, mpt.state or
/// mpt.data), or an empty string.
llvm::StringRef getArgumentRole(mlir::func::FuncOp function, unsigned index);

/// `'<source name>' (argument #i)` where the runtime's parser named the
/// argument (a NameLoc), else `argument #i`: how errors name an argument.
std::string describeArgument(mlir::BlockArgument arg);

/// The function's single return.
mlir::func::ReturnOp getReturn(mlir::func::FuncOp function);

/// Makes the function type match its entry block and return operands.
void updateFunctionType(mlir::func::FuncOp function);

/// Widens carried arguments of a step (parameters, optimizer or normalization
/// state) one at a time, and rebuilds the signatures of the step and its
/// evaluation steps once, in finish(): rebuilding them per argument is
/// quadratic in the number of parameters. Callers must run on the whole
/// module, since evaluation steps change too.
class CarriedArgumentPromoter {
public:
  explicit CarriedArgumentPromoter(mlir::func::FuncOp function)
      : function(function) {}

  /// Widens argument `argIndex` and the result that carries it to
  /// `elementType`, with its `mpt.init`. Readers of the argument see its old
  /// type through one cast at entry, except casts back to the new type, which
  /// read the argument itself. The carried value is converted for the return.
  /// Arguments of evaluation steps that read it (`mpt.state_of`) are retyped
  /// the same way.
  void promote(unsigned argIndex, mlir::Type elementType);

  /// Makes the signatures match the promoted arguments.
  void finish();

private:
  /// Reads the signatures on the first promotion.
  void collectSignatures();

  struct EvalStep {
    mlir::func::FuncOp function;
    llvm::SmallVector<mlir::DictionaryAttr> argAttrs;
    /// The arguments reading each argument of the step (`mpt.state_of`).
    llvm::DenseMap<int64_t, llvm::SmallVector<unsigned>> readers;
  };

  mlir::func::FuncOp function;
  llvm::SmallVector<mlir::DictionaryAttr> argAttrs;
  /// The first result carrying each argument (`mpt.next`).
  llvm::DenseMap<int64_t, unsigned> carriers;
  llvm::SmallVector<EvalStep> evalSteps;
  bool promoted = false;
};

/// Appends an argument with the given attributes and returns it.
mlir::BlockArgument appendArgument(mlir::func::FuncOp function, mlir::Type type,
                                   llvm::ArrayRef<mlir::NamedAttribute> attrs);

/// Appends `value` to the returned values, with the given result attributes.
void appendResult(mlir::func::FuncOp function, mlir::Value value,
                  llvm::ArrayRef<mlir::NamedAttribute> attrs);

} // namespace mpt

#endif // MPT_LIB_TRANSFORMS_UTILS_H
