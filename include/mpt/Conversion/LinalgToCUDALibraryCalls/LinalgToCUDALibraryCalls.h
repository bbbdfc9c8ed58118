//===- LinalgToCUDALibraryCalls.h - linalg to cuBLASLt calls ----*- C++ -*-===//

#ifndef MPT_CONVERSION_LINALGTOCUDALIBRARYCALLS_LINALGTOCUDALIBRARYCALLS_H
#define MPT_CONVERSION_LINALGTOCUDALIBRARYCALLS_LINALGTOCUDALIBRARYCALLS_H

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace mpt {

/// Matmuls and batched matmuls on memrefs (f32, f16 or bf16 inputs, f32
/// accumulator) to `mpt_cuda_matmul_*` calls; a zeroed product that is only
/// rounded to the inputs' type is written rounded by the call.
void populateLinalgToCUDALibraryCallsPatterns(
    mlir::RewritePatternSet &patterns);

/// NCHW/FCHW convolutions on memrefs with the same types to an im2col
/// linalg.generic and a linalg.batch_matmul.
void populateConvolutionToIm2colPatterns(mlir::RewritePatternSet &patterns);

} // namespace mpt

#endif // MPT_CONVERSION_LINALGTOCUDALIBRARYCALLS_LINALGTOCUDALIBRARYCALLS_H
