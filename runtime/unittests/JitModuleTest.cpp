//===- JitModuleTest.cpp - Tests for the JIT's LLVM module ------*- C++ -*-===//
//
// Under MPT_MAX_CPU_ISA=avx2 the JIT's code must keep to x86-64-v3: a loop
// that rounds f32 to bf16, which AVX512-BF16 does in one instruction
// (VCVTNEPS2BF16), must compile without it and without 512-bit registers,
// while the same loop without the limit uses it.
//
//===----------------------------------------------------------------------===//

#include "JitModule.h"
#include "cpu/OptimizeModule.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <gtest/gtest.h>

#include <string>

using namespace mpt::runtime;

namespace {

/// y[i] = bf16(x[i]) for 4096 elements.
constexpr const char *kRoundingLoop = R"mlir(
llvm.func @round(%x: !llvm.ptr {llvm.noalias}, %y: !llvm.ptr {llvm.noalias}) {
  %zero = llvm.mlir.constant(0 : i64) : i64
  %one = llvm.mlir.constant(1 : i64) : i64
  %count = llvm.mlir.constant(4096 : i64) : i64
  llvm.br ^loop(%zero : i64)
^loop(%i: i64):
  %from = llvm.getelementptr %x[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %value = llvm.load %from : !llvm.ptr -> f32
  %rounded = llvm.fptrunc %value : f32 to bf16
  %to = llvm.getelementptr %y[%i] : (!llvm.ptr, i64) -> !llvm.ptr, bf16
  llvm.store %rounded, %to : bf16, !llvm.ptr
  %next = llvm.add %i, %one : i64
  %done = llvm.icmp "eq" %next, %count : i64
  llvm.cond_br %done, ^exit, ^loop(%next : i64)
^exit:
  llvm.return
}
)mlir";

/// The host's assembly of kRoundingLoop translated under `isa`, optimized
/// as the CPU backend does; `targetCpu` gets the function's target-cpu.
std::string compileForHost(CpuIsa isa, std::string &targetCpu) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  mlir::DialectRegistry registry;
  registry.insert<mlir::LLVM::LLVMDialect>();
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kRoundingLoop, &context);
  if (!module) {
    ADD_FAILURE() << "the loop does not parse";
    return {};
  }
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateForJit(*module, llvmContext, isa);
  if (!llvmModule) {
    ADD_FAILURE() << "the loop does not translate";
    return {};
  }
  llvm::Function *function = llvmModule->getFunction("round");
  targetCpu = function->getFnAttribute("target-cpu").getValueAsString().str();

  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) {
    ADD_FAILURE() << llvm::toString(builder.takeError());
    return {};
  }
  auto machine = builder->createTargetMachine();
  if (!machine) {
    ADD_FAILURE() << llvm::toString(machine.takeError());
    return {};
  }
  llvmModule->setDataLayout((*machine)->createDataLayout());
  llvmModule->setTargetTriple((*machine)->getTargetTriple());
  llvm::Error optimized = makeOptimizingTransformer(
      machine->get(),
      /*widenHalfSelects=*/isa == CpuIsa::AVX2)(llvmModule.get());
  EXPECT_FALSE(bool(optimized));
  llvm::consumeError(std::move(optimized));

  llvm::SmallString<0> assembly;
  llvm::raw_svector_ostream stream(assembly);
  llvm::legacy::PassManager codegen;
  EXPECT_FALSE((*machine)->addPassesToEmitFile(
      codegen, stream, nullptr, llvm::CodeGenFileType::AssemblyFile));
  codegen.run(*llvmModule);
  return assembly.str().str();
}

#if defined(__x86_64__)
TEST(JitModule, AVX2CodeHasNoAVX512) {
  if (!__builtin_cpu_supports("x86-64-v3"))
    GTEST_SKIP() << "the host has less than AVX2: the limit changes nothing";
  std::string targetCpu;
  std::string assembly = compileForHost(CpuIsa::AVX2, targetCpu);
  EXPECT_EQ(targetCpu, "x86-64-v3");
  EXPECT_EQ(assembly.find("zmm"), std::string::npos) << assembly;
  EXPECT_EQ(assembly.find("vcvtneps2bf16"), std::string::npos) << assembly;
  // Without it LLVM rounds in a library call per element, which is why the
  // CPU pipeline then runs mpt-expand-bf16-conversions.
  EXPECT_NE(assembly.find("__truncsfbf2"), std::string::npos) << assembly;
}

TEST(JitModule, NativeCodeUsesTheHostsBF16Conversion) {
  if (!__builtin_cpu_supports("avx512bf16"))
    GTEST_SKIP() << "the host has no AVX512-BF16";
  std::string targetCpu;
  std::string assembly = compileForHost(CpuIsa::Native, targetCpu);
  EXPECT_EQ(targetCpu, "");
  EXPECT_NE(assembly.find("vcvtneps2bf16"), std::string::npos) << assembly;
}
#endif

} // namespace
