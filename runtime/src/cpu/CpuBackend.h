//===- CpuBackend.h - JIT-compiled steps on the host ------------*- C++ -*-===//

#ifndef MPT_RUNTIME_CPU_CPUBACKEND_H
#define MPT_RUNTIME_CPU_CPUBACKEND_H

#include "../Backend.h"

#include <memory>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace mpt::runtime {

/// JIT-compiles `module` (lowered by mpt-lower-to-cpu, entry points with C
/// wrappers) and reads the step signature the compiler recorded in it. Null
/// with `error` set on failure.
std::unique_ptr<Backend> createCpuBackend(mlir::ModuleOp module,
                                          std::string &signatureJson,
                                          std::string &error);

} // namespace mpt::runtime

#endif // MPT_RUNTIME_CPU_CPUBACKEND_H
