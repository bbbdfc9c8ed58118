//===- mpt-opt.cpp - mpt optimizer driver -----------------------*- C++ -*-===//
//
// mlir-opt with the mpt dialect, its interfaces on upstream ops, and its
// passes.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "mpt/Codegen/CPU/Passes.h"
#include "mpt/Codegen/Common/Passes.h"
#include "mpt/Codegen/GPU/Passes.h"
#include "mpt/Conversion/Passes.h"
#include "mpt/Dialect/MPT/IR/MPTDialect.h"
#include "mpt/Dialect/MPT/Transforms/BufferizableOpInterfaceImpl.h"
#include "mpt/Pipelines/Pipelines.h"
#include "mpt/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mpt::registerMPTCodegenCommonPasses();
  mpt::registerMPTCodegenCPUPasses();
  mpt::registerMPTCodegenGPUPasses();
  mpt::registerMPTConversionPasses();
  mpt::registerMPTTransformsPasses();
  mpt::registerPipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mpt::MPTDialect>();
  mpt::registerPrecisionPolicyExternalModels(registry);
  mpt::registerBufferizableOpInterfaceExternalModels(registry);
  // mpt-lower-to-cuda serializes GPU modules to PTX inside the pipeline.
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "mpt optimizer driver\n", registry));
}
