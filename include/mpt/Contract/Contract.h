//===- Contract.h - strings compiler and runtime share ----------*- C++ -*-===//
//
// contract::GROUP::NAME for each entry of Contract.def. Header-only and free
// of MLIR, so runtime/src includes it.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_CONTRACT_CONTRACT_H
#define MPT_CONTRACT_CONTRACT_H

namespace mpt::contract {

#define MPT_CONTRACT(GROUP, NAME, TEXT)                                        \
  namespace GROUP {                                                            \
  inline constexpr char NAME[] = TEXT;                                         \
  }
#include "mpt/Contract/Contract.def"
#undef MPT_CONTRACT

} // namespace mpt::contract

#endif // MPT_CONTRACT_CONTRACT_H
