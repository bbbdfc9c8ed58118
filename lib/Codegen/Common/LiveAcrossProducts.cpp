//===- LiveAcrossProducts.cpp - buffers kept across GEMMs -------*- C++ -*-===//

#include "mpt/Codegen/Common/LiveAcrossProducts.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;

bool mpt::isProductBetween(ArrayRef<Operation *> readers, Value value) {
  // Readers inside regions (an scf.if) stand for the ops of value's block
  // that hold them.
  Block *block = value.getParentBlock();
  Operation *first = nullptr, *last = nullptr;
  for (Operation *reader : readers) {
    Operation *inBlock = block->findAncestorOpInBlock(*reader);
    if (!inBlock)
      return true;
    if (!first || inBlock->isBeforeInBlock(first))
      first = inBlock;
    if (!last || last->isBeforeInBlock(inBlock))
      last = inBlock;
  }
  if (first == last)
    return false;
  for (Operation *op = first->getNextNode(); op != last; op = op->getNextNode())
    if ((isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) ||
         isa<linalg::ConvolutionOpInterface>(op)) &&
        !llvm::is_contained(op->getOperands(), value))
      return true;
  return false;
}
