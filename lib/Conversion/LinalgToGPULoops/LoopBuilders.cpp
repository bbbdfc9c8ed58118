//===- LoopBuilders.cpp - loops every GPU kernel family builds --*- C++ -*-===//

#include "GPULoops.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using gpu::Processor;

namespace mpt::gpuloops {

void mapLoop(OpBuilder &b, scf::ParallelOp loop,
             ArrayRef<Processor> processors) {
  AffineMap identity = b.getDimIdentityMap();
  SmallVector<gpu::ParallelLoopDimMappingAttr> mapping;
  for (Processor processor : processors)
    mapping.push_back(gpu::ParallelLoopDimMappingAttr::get(
        b.getContext(), processor, identity, identity));
  (void)gpu::setMappingAttr(loop, mapping);
}

void delinearize(OpBuilder &b, Location loc, Value linear,
                 ArrayRef<unsigned> dims, ArrayRef<int64_t> ranges,
                 MutableArrayRef<Value> ivs) {
  if (dims.empty())
    return;
  SmallVector<int64_t> basis;
  for (unsigned dim : dims)
    basis.push_back(ranges[dim]);
  if (dims.size() == 1) {
    ivs[dims[0]] = linear;
    return;
  }
  auto split = affine::AffineDelinearizeIndexOp::create(b, loc, linear, basis,
                                                        /*hasOuterBound=*/true);
  for (auto [dim, index] : llvm::zip(dims, split.getResults()))
    ivs[dim] = index;
}

SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                            ArrayRef<Value> ivs) {
  SmallVector<Value> indices;
  for (unsigned i = 0, e = map.getNumResults(); i < e; ++i)
    indices.push_back(affine::makeComposedAffineApply(b, loc, map.getSubMap(i),
                                                      getAsOpFoldResult(ivs))
                          .getResult());
  return indices;
}

Value scalarInKernel(OpBuilder &b, Value scalar) {
  if (auto hostLoad = scalar.getDefiningOp<memref::LoadOp>())
    return b.clone(*hostLoad)->getResult(0);
  return scalar;
}

Value loadInput(OpBuilder &b, Location loc, linalg::GenericOp op,
                OpOperand *input, ArrayRef<Value> ivs) {
  Value value = input->get();
  if (isa<MemRefType>(value.getType()))
    return memref::LoadOp::create(
        b, loc, value, applyMap(b, loc, op.getMatchingIndexingMap(input), ivs));
  return scalarInKernel(b, value);
}

void loadInputs(OpBuilder &b, Location loc, linalg::GenericOp op,
                ArrayRef<Value> ivs, IRMapping &mapping) {
  Block *body = op.getBody();
  for (OpOperand *input : op.getDpsInputOperands()) {
    BlockArgument arg = body->getArgument(input->getOperandNumber());
    if (!arg.use_empty() && !mapping.contains(arg))
      mapping.map(arg, loadInput(b, loc, op, input, ivs));
  }
}

void cloneBody(OpBuilder &b, linalg::GenericOp op, ArrayRef<Value> ivs,
               IRMapping &mapping,
               const llvm::SmallPtrSetImpl<Operation *> &skip) {
  for (Operation &inner : op.getBody()->without_terminator()) {
    if (skip.contains(&inner))
      continue;
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      mapping.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    b.clone(inner, mapping);
  }
}

IterationSpace getIterationSpace(linalg::GenericOp op,
                                 ArrayRef<int64_t> ranges) {
  IterationSpace space;
  op.getParallelDims(space.parallelDims);
  op.getReductionDims(space.reductionDims);
  for (unsigned dim : space.parallelDims)
    space.points *= ranges[dim];
  for (unsigned dim : space.reductionDims)
    space.length *= ranges[dim];
  return space;
}

KernelFamily chooseKernelFamily(linalg::GenericOp op,
                                const IterationSpace &space,
                                int64_t maxThreadReduction) {
  constexpr int64_t kMinColumns = 32;
  if (space.reductionDims.empty() || space.length <= maxThreadReduction)
    return KernelFamily::PerThread;
  if (space.points >= kMinColumns &&
      isColumnReduction(op, op.getIteratorTypesArray()))
    return KernelFamily::ColumnReduction;
  return KernelFamily::RowReduction;
}

std::pair<Value, Value> buildGuardedThreads(OpBuilder &b, Location loc,
                                            int64_t blocks,
                                            std::optional<int64_t> parts,
                                            int64_t threads, int64_t total) {
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value zero = c(0), one = c(1);
  scf::ParallelOp grid;
  if (parts) {
    grid = scf::ParallelOp::create(b, loc, ValueRange{zero, zero},
                                   ValueRange{c(blocks), c(*parts)},
                                   ValueRange{one, one});
    mapLoop(b, grid, {Processor::BlockX, Processor::BlockY});
  } else {
    grid = scf::ParallelOp::create(b, loc, zero, c(blocks), one);
    mapLoop(b, grid, Processor::BlockX);
  }
  b.setInsertionPointToStart(grid.getBody());
  auto block = scf::ParallelOp::create(b, loc, zero, c(threads), one);
  mapLoop(b, block, Processor::ThreadX);
  b.setInsertionPointToStart(block.getBody());
  Value linear = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, grid.getInductionVars()[0], c(threads)),
      block.getInductionVars()[0]);
  Value inBounds = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                         linear, c(total));
  auto guard = scf::IfOp::create(b, loc, inBounds, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&guard.getThenRegion().front());
  return {linear, parts ? grid.getInductionVars()[1] : Value()};
}

} // namespace mpt::gpuloops
