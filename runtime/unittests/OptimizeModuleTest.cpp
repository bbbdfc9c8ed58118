//===- OptimizeModuleTest.cpp - Tests for the CPU steps' LLVM pipeline ----===//
//
// A running maximum over f16 candidates computed in f32, as
// compute-f16-in-f32 leaves max pooling's gradient: InstCombine narrows its
// compares and selects to f16, which x86 without AVX512-FP16 extends again
// after every candidate; WidenHalfSelectsPass puts them back in f32. The
// loop must give the first maximum (a NaN beats any number) either way.
//
//===----------------------------------------------------------------------===//

#include "cpu/OptimizeModule.h"
#include "JitModule.h"
#include "mpt/float16.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <regex>
#include <string>
#include <vector>

using namespace mpt::runtime;

namespace {

constexpr int64_t kCount = 4096;

/// For i < 4096: best[i] and first[i], the first maximum of x0[i] .. x2[i]
/// (f16, compared in f32) and its position, by the pooling rule: a candidate
/// replaces the maximum if it is larger or the first NaN.
constexpr const char *kRunningMaximum = R"mlir(
llvm.func @running_max(%x0: !llvm.ptr {llvm.noalias}, %x1: !llvm.ptr {llvm.noalias},
                       %x2: !llvm.ptr {llvm.noalias}, %best: !llvm.ptr {llvm.noalias},
                       %first: !llvm.ptr {llvm.noalias}) {
  %zero = llvm.mlir.constant(0 : i64) : i64
  %one = llvm.mlir.constant(1 : i64) : i64
  %count = llvm.mlir.constant(4096 : i64) : i64
  %p0 = llvm.mlir.constant(0 : i32) : i32
  %p1 = llvm.mlir.constant(1 : i32) : i32
  %p2 = llvm.mlir.constant(2 : i32) : i32
  llvm.br ^loop(%zero : i64)
^loop(%i: i64):
  %a0 = llvm.getelementptr %x0[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f16
  %h0 = llvm.load %a0 : !llvm.ptr -> f16
  %v0 = llvm.fpext %h0 : f16 to f32
  %a1 = llvm.getelementptr %x1[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f16
  %h1 = llvm.load %a1 : !llvm.ptr -> f16
  %v1 = llvm.fpext %h1 : f16 to f32
  %a2 = llvm.getelementptr %x2[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f16
  %h2 = llvm.load %a2 : !llvm.ptr -> f16
  %v2 = llvm.fpext %h2 : f16 to f32
  %g1 = llvm.fcmp "ogt" %v1, %v0 : f32
  %n1 = llvm.fcmp "uno" %v1, %v1 : f32
  %o1 = llvm.fcmp "ord" %v0, %v0 : f32
  %f1 = llvm.and %n1, %o1 : i1
  %t1 = llvm.or %g1, %f1 : i1
  %m1 = llvm.select %t1, %v1, %v0 : i1, f32
  %i1 = llvm.select %t1, %p1, %p0 : i1, i32
  %g2 = llvm.fcmp "ogt" %v2, %m1 : f32
  %n2 = llvm.fcmp "uno" %v2, %v2 : f32
  %o2 = llvm.fcmp "ord" %m1, %m1 : f32
  %f2 = llvm.and %n2, %o2 : i1
  %t2 = llvm.or %g2, %f2 : i1
  %m2 = llvm.select %t2, %v2, %m1 : i1, f32
  %i2 = llvm.select %t2, %p2, %i1 : i1, i32
  %b = llvm.getelementptr %best[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  llvm.store %m2, %b : f32, !llvm.ptr
  %f = llvm.getelementptr %first[%i] : (!llvm.ptr, i64) -> !llvm.ptr, i32
  llvm.store %i2, %f : i32, !llvm.ptr
  %next = llvm.add %i, %one : i64
  %done = llvm.icmp "eq" %next, %count : i64
  llvm.cond_br %done, ^exit, ^loop(%next : i64) {loop_annotation = #llvm.loop_annotation<vectorize = <disable = false, width = 8 : i32>>}
^exit:
  llvm.return
}
)mlir";

struct Parsed {
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  Parsed() : context(registry()) {
    module = mlir::parseSourceString<mlir::ModuleOp>(kRunningMaximum, &context);
  }
  static mlir::DialectRegistry registry() {
    mlir::DialectRegistry registry;
    registry.insert<mlir::LLVM::LLVMDialect>();
    mlir::registerBuiltinDialectTranslation(registry);
    mlir::registerLLVMDialectTranslation(registry);
    return registry;
  }
};

std::unique_ptr<llvm::TargetMachine> hostMachine() {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) {
    ADD_FAILURE() << llvm::toString(builder.takeError());
    return nullptr;
  }
  auto machine = builder->createTargetMachine();
  if (!machine) {
    ADD_FAILURE() << llvm::toString(machine.takeError());
    return nullptr;
  }
  return std::move(*machine);
}

/// The loop's LLVM IR for x86-64-v3, optimized as the CPU backend does.
std::string optimizedForAVX2(bool widenHalfSelects) {
  Parsed parsed;
  EXPECT_TRUE(parsed.module) << "the loop does not parse";
  std::unique_ptr<llvm::TargetMachine> machine = hostMachine();
  if (!parsed.module || !machine)
    return {};
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateForJit(*parsed.module, llvmContext, CpuIsa::AVX2);
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(machine->getTargetTriple());
  llvm::Error optimized = makeOptimizingTransformer(
      machine.get(), widenHalfSelects)(llvmModule.get());
  EXPECT_FALSE(bool(optimized));
  llvm::consumeError(std::move(optimized));
  std::string ir;
  llvm::raw_string_ostream stream(ir);
  llvmModule->print(stream, nullptr);
  return ir;
}

const std::regex kHalfCompare(R"(fcmp \w+ <\d+ x half>)");
const std::regex kHalfSelect(R"(select <\d+ x i1> %\S+, <\d+ x half>)");

#if defined(__x86_64__)
/// The loop is compiled for x86-64-v3, which the host must run.
class OptimizeModule : public ::testing::Test {
protected:
  void SetUp() override {
    if (!__builtin_cpu_supports("x86-64-v3"))
      GTEST_SKIP() << "the host has less than AVX2";
  }
};

TEST_F(OptimizeModule, InstCombineNarrowsTheRunningMaximumToF16) {
  // Without the pass: what it exists to undo (if LLVM stops narrowing, this
  // fails, and the pass has no work left).
  std::string ir = optimizedForAVX2(/*widenHalfSelects=*/false);
  EXPECT_TRUE(std::regex_search(ir, kHalfCompare)) << ir;
  EXPECT_TRUE(std::regex_search(ir, kHalfSelect)) << ir;
}

TEST_F(OptimizeModule, WidenHalfSelectsKeepsItInF32) {
  std::string ir = optimizedForAVX2(/*widenHalfSelects=*/true);
  EXPECT_FALSE(std::regex_search(ir, kHalfCompare)) << ir;
  EXPECT_FALSE(std::regex_search(ir, kHalfSelect)) << ir;
  EXPECT_NE(ir.find("select <8 x i1>"), std::string::npos)
      << "the loop was not vectorized:\n"
      << ir;
}

/// The first maximum of three f16 candidates, as the loop defines it.
void referenceMaximum(const uint16_t *candidates, float &best, int32_t &first) {
  best = f16ToFloat(candidates[0]);
  first = 0;
  for (int32_t k = 1; k < 3; ++k) {
    float value = f16ToFloat(candidates[k]);
    if (value > best || (std::isnan(value) && !std::isnan(best))) {
      best = value;
      first = k;
    }
  }
}

TEST_F(OptimizeModule, WidenedLoopGivesTheFirstMaximum) {
  std::unique_ptr<llvm::TargetMachine> machine = hostMachine();
  Parsed parsed;
  ASSERT_TRUE(parsed.module && machine);
  mlir::ExecutionEngineOptions options;
  auto transformer = makeOptimizingTransformer(machine.get(), true);
  options.transformer = transformer;
  // A function_ref: the lambda must outlive the engine's creation.
  auto buildModule = [](mlir::Operation *module, llvm::LLVMContext &context) {
    return translateForJit(module, context, CpuIsa::AVX2);
  };
  options.llvmModuleBuilder = buildModule;
  auto engine = mlir::ExecutionEngine::create(*parsed.module, options);
  ASSERT_TRUE(bool(engine)) << llvm::toString(engine.takeError());

  // Ties (equal values, +0 against -0), NaNs, infinities and random values;
  // a candidate comes from each of them at each position.
  const uint16_t special[] = {floatToF16(1.0f),  floatToF16(-1.0f),
                              floatToF16(0.0f),  floatToF16(-0.0f),
                              0x7e00 /* NaN */,  0x7c00 /* +inf */,
                              0xfc00 /* -inf */, floatToF16(65504.0f),
                              floatToF16(2.5f),  floatToF16(2.5f)};
  const int64_t numSpecial = sizeof(special) / sizeof(special[0]);
  for (unsigned seed : {1u, 2u, 3u}) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 4.0f);
    std::vector<uint16_t> x[3];
    for (int k = 0; k < 3; ++k) {
      x[k].resize(kCount);
      for (int64_t i = 0; i < kCount; ++i)
        x[k][i] =
            rng() % 2 ? special[rng() % numSpecial] : floatToF16(normal(rng));
    }
    std::vector<float> best(kCount, -1.0f);
    std::vector<int32_t> first(kCount, -1);
    void *pointers[] = {x[0].data(), x[1].data(), x[2].data(), best.data(),
                        first.data()};
    void *arguments[] = {&pointers[0], &pointers[1], &pointers[2], &pointers[3],
                         &pointers[4]};
    llvm::Error ran = (*engine)->invokePacked("running_max", arguments);
    ASSERT_FALSE(bool(ran)) << llvm::toString(std::move(ran));
    int64_t wrong = 0;
    for (int64_t i = 0; i < kCount; ++i) {
      const uint16_t candidates[] = {x[0][i], x[1][i], x[2][i]};
      float expectedBest;
      int32_t expectedFirst;
      referenceMaximum(candidates, expectedBest, expectedFirst);
      bool sameBest = std::isnan(expectedBest)
                          ? std::isnan(best[i])
                          : floatBits(best[i]) == floatBits(expectedBest);
      if (!sameBest || first[i] != expectedFirst)
        ++wrong;
    }
    EXPECT_EQ(wrong, 0) << "seed " << seed;
  }
}
#endif

} // namespace
