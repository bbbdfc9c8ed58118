//===- HostTuning.h - the CPU lowering's options for this host --*- C++ -*-===//
//
// The CPU pipeline's options that depend on the host's instruction sets and
// vendor (under MPT_MAX_CPU_ISA), so that the device-neutral compiler driver
// does no CPU sniffing of its own.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_CPU_HOSTTUNING_H
#define MPT_RUNTIME_CPU_HOSTTUNING_H

#include "mpt/Pipelines/Pipelines.h"

namespace mpt::runtime {

/// Sets the vector width, predication, bf16 rounding, f16 arithmetic and bf16
/// matmul widening of `options` for the host CPU.
void tuneForHost(LowerToCPUOptions &options);

} // namespace mpt::runtime

#endif // MPT_RUNTIME_CPU_HOSTTUNING_H
