//===- BufferizableOpInterfaceImpl.h - mpt ops in bufferization -*- C++ -*-===//
//
// How one-shot bufferization treats the mpt ops that survive to it.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_DIALECT_MPT_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
#define MPT_DIALECT_MPT_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mpt {

/// mpt.all_reduce of one vector (mpt-convert-to-linalg packs buckets)
/// reduces its buffer in place with a call of the runtime's
/// `mpt_step_all_reduce_<type>` (Contract.def), with the reduce kind as an
/// i64.
void registerBufferizableOpInterfaceExternalModels(
    mlir::DialectRegistry &registry);

} // namespace mpt

#endif // MPT_DIALECT_MPT_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
