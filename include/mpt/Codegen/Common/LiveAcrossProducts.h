//===- LiveAcrossProducts.h - buffers kept across GEMMs ---------*- C++ -*-===//
//
// A step's peak memory is reached while the backward starts, when the
// activations the forward kept are all live. A rewrite that keeps a wider
// form of a tensor (an f32 copy, an unrounded f32 product) until its last
// reader adds bytes to that peak when the readers are far apart; this tells
// the rewrites when they are.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_CODEGEN_COMMON_LIVEACROSSPRODUCTS_H
#define MPT_CODEGEN_COMMON_LIVEACROSSPRODUCTS_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"

namespace mpt {
/// Whether a product (matmul, batch matmul, convolution) that does not read
/// `value` runs, in `value`'s block, between the first and the last of
/// `readers` (or the ops that hold them): a buffer read by all of them would
/// then be live across other work (a forward and a backward reader).
bool isProductBetween(llvm::ArrayRef<mlir::Operation *> readers,
                      mlir::Value value);
} // namespace mpt

#endif // MPT_CODEGEN_COMMON_LIVEACROSSPRODUCTS_H
