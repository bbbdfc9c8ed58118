//===- JitSymbols.h - runtime functions for JIT-compiled steps --*- C++ -*-===//
//
// Both backends link their compiled steps against functions of this process
// (kernels, allocators, the mgpu* layer), bound by name.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_JITSYMBOLS_H
#define MPT_RUNTIME_JITSYMBOLS_H

#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"

namespace mpt::runtime {

/// Binds `name` in compiled code to `address` in this process.
inline void bindJitSymbol(llvm::orc::SymbolMap &symbols,
                          llvm::orc::MangleAndInterner &interner,
                          llvm::StringRef name, const void *address) {
  symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                             llvm::JITSymbolFlags::Exported};
}

} // namespace mpt::runtime

#endif // MPT_RUNTIME_JITSYMBOLS_H
