//===- GPULoops.h - mpt-convert-linalg-to-gpu-loops' families ---*- C++ -*-===//
//
// mpt-convert-linalg-to-gpu-loops lowers each linalg.generic on memrefs to a
// mapped scf.parallel nest of one kernel family, each in its own file:
// one thread per output or per scf.forall iteration (PerThread.cpp), one
// block per output (RowReductions.cpp), one thread per column
// (ColumnReductions.cpp), after the sums written one dimension at a time are
// merged (SumLevels.cpp). A reduction's kernel absorbs the fills of its
// outputs, an elementwise op that reads one of them, and, for a column sum,
// one that writes its input (AbsorbedOps.cpp). The loop builders they share
// are in LoopBuilders.cpp and Reductions.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_LIB_CONVERSION_LINALGTOGPULOOPS_GPULOOPS_H
#define MPT_LIB_CONVERSION_LINALGTOGPULOOPS_GPULOOPS_H

#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mpt::gpuloops {

//===----------------------------------------------------------------------===//
// Ops a reduction's kernel absorbs (AbsorbedOps.cpp)
//===----------------------------------------------------------------------===//

/// An elementwise generic that reads an output of the reduction just before
/// it, computed by the reduction's kernel where it stores that output.
struct Epilogue {
  mlir::linalg::GenericOp op;
  mlir::OpOperand *input; // the input of `op` that reads the output
  bool keepOutput;        // whether anything else reads the output
};

/// An elementwise generic just before a column reduction that writes one of
/// its inputs, which others read later too (a relu's masked gradient, which
/// the bias gradient sums and the GEMMs read): computed by the reduction's
/// kernel where it reads that input, and stored there.
struct Prologue {
  mlir::linalg::GenericOp op;
  mlir::OpOperand *read; // the reduction's input that reads the prologue
  unsigned result;       // which result of `op` it reads
};

/// The ops around a generic that its kernel does itself, by output number:
/// the scalar a fill wrote into the output just before the generic (the
/// kernel starts from it instead of reading the output; null where the
/// generic overwrites the output without reading it), and an epilogue.
struct AbsorbedOps {
  llvm::DenseMap<unsigned, mlir::Value> fillValues;
  llvm::DenseMap<unsigned, Epilogue> epilogues;
  std::optional<Prologue> prologue;
};

/// Finds the ops each generic absorbs, each otherwise a kernel of its own:
/// the fills of its outputs; for a reduction, the elementwise op that reads
/// its result next (a bias gradient's unscale, which would read the sum back
/// from memory); for a column reduction, the elementwise op that writes its
/// input just before it. Erases the fills; the prologues and epilogues stay
/// until their reduction is lowered.
llvm::DenseMap<mlir::Operation *, AbsorbedOps>
absorbNeighbours(mlir::ModuleOp module, int64_t maxThreadReduction);

/// Maps the reduction input that `absorbed`'s prologue writes, if any, to
/// the prologue's value at loop point `ivs` of `op`, which it computes and
/// stores there.
void computePrologue(mlir::OpBuilder &b, mlir::Location loc,
                     mlir::linalg::GenericOp op,
                     llvm::ArrayRef<mlir::Value> ivs,
                     const AbsorbedOps &absorbed, mlir::IRMapping &mapping);

/// The value output `init` of `op` holds at loop point `ivs` when `op`
/// starts.
mlir::Value loadOutput(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::linalg::GenericOp op, mlir::OpOperand &init,
                       llvm::ArrayRef<mlir::Value> ivs,
                       const AbsorbedOps &absorbed);

/// Stores `value` into output `init` of `op` at loop point `ivs` and computes
/// and stores the output's epilogue there.
void storeOutput(mlir::OpBuilder &b, mlir::Location loc,
                 mlir::linalg::GenericOp op, mlir::OpOperand &init,
                 llvm::ArrayRef<mlir::Value> ivs, mlir::Value value,
                 const AbsorbedOps &absorbed);

//===----------------------------------------------------------------------===//
// Kernel families
//===----------------------------------------------------------------------===//

/// A generic's parallel and reduction dimensions and their sizes: `points`
/// outputs of `length` elements each.
struct IterationSpace {
  llvm::SmallVector<unsigned> parallelDims, reductionDims;
  int64_t points = 1, length = 1;
};

IterationSpace getIterationSpace(mlir::linalg::GenericOp op,
                                 llvm::ArrayRef<int64_t> ranges);

enum class KernelFamily { PerThread, ColumnReduction, RowReduction };

/// The kernel family that lowers `op`: one thread per output when it
/// reduces nothing or at most `maxThreadReduction` elements per output, a
/// thread per column for a column reduction of a warp's worth of columns or
/// more (fewer: a block tree per column reads more of each at once), a
/// block per output otherwise.
KernelFamily chooseKernelFamily(mlir::linalg::GenericOp op,
                                const IterationSpace &space,
                                int64_t maxThreadReduction);

/// Lowers a generic with one thread per point of its parallel dimensions,
/// `blockSize` threads per block, the last block guarded. Reduction
/// dimensions, if any (small ones: pooling windows, a few classes), are
/// folded sequentially by each thread in the CPU lowering's order.
void lowerPerThread(mlir::OpBuilder &b, mlir::linalg::GenericOp op,
                    llvm::ArrayRef<int64_t> ranges, const IterationSpace &space,
                    const AbsorbedOps &absorbed, int64_t blockSize);

/// Lowers an scf.forall on memrefs (static bounds from 0, step 1) to one
/// thread per iteration, `blockSize` threads per block, the last block
/// guarded, each running the forall's body unchanged.
mlir::LogicalResult lowerForallPerThread(mlir::OpBuilder &b,
                                         mlir::scf::ForallOp forall,
                                         int64_t blockSize);

/// Lowers a generic with reduction dimensions to one block per point of its
/// parallel dimensions (times `split` blocks when split > 1, combined by a
/// second kernel through a temporary buffer), threads folding strided slices
/// of the reduction space, then a block-wide scf.reduce.
mlir::LogicalResult lowerRowReduction(mlir::OpBuilder &b,
                                      mlir::linalg::GenericOp op,
                                      llvm::ArrayRef<int64_t> ranges,
                                      const IterationSpace &space,
                                      const AbsorbedOps &absorbed,
                                      int64_t blockSize, int64_t minBlocks);

/// Whether `op` reduces over outer dimensions into outputs indexed by its
/// innermost loop dimension (a column sum: a bias gradient, a norm's weight
/// gradient), with every input read contiguously along that dimension or
/// not at all. One thread per output then reads the rows of consecutive
/// columns, and a warp reads consecutive addresses; a block per output would
/// read down one column, a row apart per thread.
bool isColumnReduction(mlir::linalg::GenericOp op,
                       llvm::ArrayRef<mlir::utils::IteratorType> iterators);

/// Lowers a column reduction (isColumnReduction) to one thread per output,
/// `blockSize` threads per block over consecutive outputs, each thread
/// folding all outputs of `op` at once. A long reduction over few blocks is
/// split into `split` consecutive parts over block_y, at least 32 rows each:
/// a first kernel folds each part from the neutral element into a
/// [split x outputs] buffer, a second folds the parts, in order, into the
/// outputs. Unsplit, each output folds its rows in the CPU lowering's order.
mlir::LogicalResult lowerColumnReduction(mlir::OpBuilder &b,
                                         mlir::linalg::GenericOp op,
                                         llvm::ArrayRef<int64_t> ranges,
                                         const IterationSpace &space,
                                         const AbsorbedOps &absorbed,
                                         int64_t blockSize, int64_t minBlocks);

/// Merges a chain of sums over one dimension at a time (a level summing the
/// previous level's partial sums into a zero-filled buffer, as the tensor
/// lowering writes statistics) into one generic over all the summed
/// dimensions. The block reductions reorder every sum anyway, and the single
/// reduction maps to full blocks (split over two passes when the outputs are
/// few) where the levels would be a column reduction with strided reads and
/// small per-thread loops, each with its own kernel and buffers.
/// Returns whether it merged `first` with its consumers.
bool mergeSumLevels(mlir::IRRewriter &rewriter, mlir::linalg::GenericOp first);

//===----------------------------------------------------------------------===//
// Loop builders (LoopBuilders.cpp)
//===----------------------------------------------------------------------===//

/// Marks `loop` (one induction variable per entry of `processors`) as mapped
/// to those GPU processors, identity map and bound.
void mapLoop(mlir::OpBuilder &b, mlir::scf::ParallelOp loop,
             llvm::ArrayRef<mlir::gpu::Processor> processors);

/// The loop indices of `op` for a linear index over the loop dimensions
/// `dims` (row-major: the last of `dims` varies fastest), written into `ivs`.
void delinearize(mlir::OpBuilder &b, mlir::Location loc, mlir::Value linear,
                 llvm::ArrayRef<unsigned> dims, llvm::ArrayRef<int64_t> ranges,
                 llvm::MutableArrayRef<mlir::Value> ivs);

/// The indices into an operand with indexing map `map` at loop point `ivs`.
llvm::SmallVector<mlir::Value> applyMap(mlir::OpBuilder &b, mlir::Location loc,
                                        mlir::AffineMap map,
                                        llvm::ArrayRef<mlir::Value> ivs);

/// `scalar`, a generic's scalar operand, in a kernel: one read from a buffer
/// (a 0-d tensor.extract, such as the found-inf flag) is read there, where
/// the buffer lives.
mlir::Value scalarInKernel(mlir::OpBuilder &b, mlir::Value scalar);

/// The element of `op`'s input `input` at loop point `ivs`.
mlir::Value loadInput(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::linalg::GenericOp op, mlir::OpOperand *input,
                      llvm::ArrayRef<mlir::Value> ivs);

/// Loads the elements of `op`'s inputs at loop point `ivs` into `mapping`
/// (block arguments to values) but for those already mapped.
void loadInputs(mlir::OpBuilder &b, mlir::Location loc,
                mlir::linalg::GenericOp op, llvm::ArrayRef<mlir::Value> ivs,
                mlir::IRMapping &mapping);

/// Clones the body of `op` except its terminator and the ops in `skip`,
/// reading `linalg.index` from `ivs`.
void cloneBody(mlir::OpBuilder &b, mlir::linalg::GenericOp op,
               llvm::ArrayRef<mlir::Value> ivs, mlir::IRMapping &mapping,
               const llvm::SmallPtrSetImpl<mlir::Operation *> &skip);

/// Builds a grid of `blocks` blocks (times `parts` over block_y when given)
/// of `threads` threads, one per index below `total` (the last block
/// guarded), and leaves `b` inside the guard. Returns the thread's index and
/// its block_y index (null without `parts`).
std::pair<mlir::Value, mlir::Value>
buildGuardedThreads(mlir::OpBuilder &b, mlir::Location loc, int64_t blocks,
                    std::optional<int64_t> parts, int64_t threads,
                    int64_t total);

//===----------------------------------------------------------------------===//
// Reductions (Reductions.cpp)
//===----------------------------------------------------------------------===//

/// What a reduction output of a generic folds with: the combiner op
/// `combiner(element, accumulator)`, its neutral element, and which operand
/// is the accumulator. A subtracting reduction (acc - x) folds its elements
/// by subtraction but adds partial results: (init - a) + (0 - b).
struct Reduction {
  mlir::Operation *combiner;
  mlir::TypedAttr neutral;
  unsigned accumulatorOperand;
  bool subtracts;
};

/// Matches every output of `op` as a single-op reduction whose accumulator
/// (the output's block argument) feeds only the combiner.
mlir::FailureOr<llvm::SmallVector<Reduction>>
matchReductions(mlir::linalg::GenericOp op);

/// matchReductions, with an error on `op` when it fails.
mlir::FailureOr<llvm::SmallVector<Reduction>>
matchReductionsOrReport(mlir::linalg::GenericOp op);

/// What the builders of a generic's reduction kernels share (RowReductions.cpp,
/// ColumnReductions.cpp): the generic, its iteration space and reductions,
/// and the index constants 0 and 1, built first.
class ReductionKernelBuilder {
protected:
  ReductionKernelBuilder(mlir::OpBuilder &b, mlir::linalg::GenericOp op,
                         llvm::ArrayRef<int64_t> ranges,
                         const IterationSpace &space,
                         llvm::ArrayRef<Reduction> reductions,
                         const AbsorbedOps &absorbed);

  /// An index constant.
  mlir::Value c(int64_t v);

  /// The element each reduction folds in at loop point `ivs`: the inputs
  /// loaded and the body but its combiners cloned there.
  llvm::SmallVector<mlir::Value> elementsAt(mlir::OpBuilder &nb,
                                            llvm::ArrayRef<mlir::Value> ivs);

  mlir::OpBuilder &b;
  mlir::linalg::GenericOp op;
  mlir::Location loc;
  llvm::ArrayRef<int64_t> ranges;
  const IterationSpace &space;
  llvm::ArrayRef<Reduction> reductions;
  const AbsorbedOps &absorbed;
  mlir::Value zero, one;

private:
  llvm::SmallPtrSet<mlir::Operation *, 4> combiners;
  llvm::SmallVector<mlir::Value> elementsOf; // what each combiner folds in
};

/// Folds the combiners of `reductions` into `accumulators` with `elements`,
/// or, with `partials`, merges partial results.
llvm::SmallVector<mlir::Value> combine(mlir::OpBuilder &b,
                                       llvm::ArrayRef<Reduction> reductions,
                                       mlir::ValueRange accumulators,
                                       mlir::ValueRange elements,
                                       bool partials = false);

/// The type in which threads exchange partial values of `reduction`: warp
/// shuffles move 32-bit values only. i1 widens to i32 exactly; f16/bf16
/// max/min widen to f32 exactly; an i64 count of i1 elements fits in i32
/// when the reduction has fewer than 2^31 elements. Null if none is exact.
mlir::Type carrierType(const Reduction &reduction, int64_t length);

/// Converts `value` between a reduction's type and its carrier type.
mlir::Value convert(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                    mlir::Type to);

/// Builds `scf.parallel (%t) = (0) to (threads)` mapped to thread_x whose
/// threads compute partial values with `perThread` (from the neutral
/// element), combined block-wide by scf.reduce in `carrier`; returns the
/// block's total in the reduction's type.
mlir::Value buildBlockReduction(
    mlir::OpBuilder &b, mlir::Location loc, int64_t threads,
    const Reduction &reduction, mlir::Type carrier,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Value)> perThread);

/// Folds `[begin, end)` in steps of `step` into `starts` with `foldOne`, in
/// that order. Four elements per iteration, then the rest one by one: the
/// four loads do not depend on each other, so a thread has them in flight
/// together instead of waiting for each in turn (one load in flight per
/// thread leaves a large reduction at a fraction of the memory bandwidth).
llvm::SmallVector<mlir::Value>
buildStridedFold(mlir::OpBuilder &b, mlir::Location loc, mlir::Value begin,
                 mlir::Value end, mlir::Value step, mlir::ValueRange starts,
                 llvm::function_ref<llvm::SmallVector<mlir::Value>(
                     mlir::OpBuilder &, mlir::Value, mlir::ValueRange)>
                     foldOne);

} // namespace mpt::gpuloops

#endif // MPT_LIB_CONVERSION_LINALGTOGPULOOPS_GPULOOPS_H
