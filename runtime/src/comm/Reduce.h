//===- Reduce.h - elementwise reductions of float buffers -------*- C++ -*-===//
//
// What one rank's buffer and another's combine to: MPI has no f16 or bf16
// type, and its own float max need not propagate NaN, so float buffers are
// reduced by these functions (as user-defined MPI_Ops).
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_COMM_REDUCE_H
#define MPT_RUNTIME_COMM_REDUCE_H

#include "mpt/comm.h"

#include <cstdint>

namespace mpt::runtime::comm {

/// inout[i] = in[i] op inout[i] for `count` elements of the float `dtype`
/// (F32, F16 or BF16): computed in f32 and rounded once to `dtype`, nearest
/// even, so the result of two operands is their exact sum or max correctly
/// rounded. MAX of a NaN is NaN. The result does not depend on the order of
/// the operands, NaNs included (every NaN is f32's positive quiet NaN,
/// rounded), so that ranks combining in different orders hold the same bits.
void combineFloats(mpt_reduce_op_t op, mpt_dtype_t dtype, const void *in,
                   void *inout, int64_t count);

} // namespace mpt::runtime::comm

#endif // MPT_RUNTIME_COMM_REDUCE_H
