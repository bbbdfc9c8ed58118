//===- GPUBinaryToFatbin.cpp - mpt-convert-gpu-binary-to-fatbin -----------===//
//
// gpu-module-to-binary gives one object per target, and the default
// offloading handler embeds only one of them. One CUDA fatbin holding a cubin
// per chip plus PTX lets the driver pick the right image at load time, so the
// module carries exactly one GPU binary for every supported chip.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

namespace mpt {
#define GEN_PASS_DEF_MPTCONVERTGPUBINARYTOFATBIN
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

/// Temporary files, removed when this goes out of scope.
struct TempFiles {
  SmallVector<std::string> paths;
  ~TempFiles() {
    for (const std::string &path : paths)
      llvm::sys::fs::remove(path);
  }

  FailureOr<std::string> create(Operation *op, StringRef suffix) {
    SmallString<128> path;
    if (std::error_code error =
            llvm::sys::fs::createTemporaryFile("mpt-fatbin", suffix, path)) {
      op->emitError() << "cannot create a temporary ." << suffix
                      << " file: " << error.message();
      return failure();
    }
    paths.push_back(std::string(path));
    return paths.back();
  }
};

struct MPTConvertGPUBinaryToFatbinPass
    : public mpt::impl::MPTConvertGPUBinaryToFatbinBase<
          MPTConvertGPUBinaryToFatbinPass> {
  using Base::Base;

  /// The path of CUDA tool `name`: under cuda-path, then $CUDA_HOME, then
  /// PATH.
  FailureOr<std::string> findTool(Operation *op, StringRef name) {
    SmallVector<std::string> roots;
    if (!cudaPath.empty())
      roots.push_back(cudaPath);
    else if (std::optional<std::string> home =
                 llvm::sys::Process::GetEnv("CUDA_HOME"))
      roots.push_back(*home);
    for (const std::string &root : roots) {
      SmallString<128> path(root);
      llvm::sys::path::append(path, "bin", name);
      if (llvm::sys::fs::can_execute(path))
        return std::string(path);
    }
    if (roots.empty())
      if (llvm::ErrorOr<std::string> path = llvm::sys::findProgramByName(name))
        return *path;
    op->emitError() << "cannot find the CUDA tool `" << name << "` (looked in "
                    << (roots.empty() ? std::string("PATH")
                                      : roots.front() + "/bin")
                    << "); set cuda-path or CUDA_HOME to the toolkit";
    return failure();
  }

  /// Runs `args`, reporting the tool's output as an error on failure.
  LogicalResult run(Operation *op, ArrayRef<std::string> args) {
    TempFiles files;
    FailureOr<std::string> log = files.create(op, "log");
    if (failed(log))
      return failure();
    SmallVector<StringRef> argRefs(args.begin(), args.end());
    std::optional<StringRef> redirects[] = {std::nullopt, StringRef(*log),
                                            StringRef(*log)};
    std::string message;
    int status = llvm::sys::ExecuteAndWait(args.front(), argRefs, std::nullopt,
                                           redirects, 0, 0, &message);
    if (status == 0)
      return success();
    std::string output;
    if (auto buffer = llvm::MemoryBuffer::getFile(*log))
      output = (*buffer)->getBuffer().str();
    op->emitError() << "`" << llvm::join(argRefs, " ") << "` failed ("
                    << (message.empty() ? "exit " + std::to_string(status)
                                        : message)
                    << "): " << output;
    return failure();
  }

  LogicalResult convert(gpu::BinaryOp binary, StringRef ptxas,
                        StringRef fatbinary) {
    TempFiles files; // removed once the fatbin is read
    std::vector<std::string> fatbinArgs = {fatbinary.str(), "-64",
                                           "--compress-all"};
    std::optional<std::pair<int, std::string>> lowestPtx;
    for (Attribute attr : binary.getObjectsAttr()) {
      auto object = cast<gpu::ObjectAttr>(attr);
      auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
      if (!target || object.getFormat() != gpu::CompilationTarget::Assembly)
        return binary.emitError()
               << "expects PTX objects for NVVM targets (run "
                  "gpu-module-to-binary with format=isa), got "
               << object;
      StringRef chip = target.getChip();
      int sm = 0;
      if (!chip.consume_front("sm_") || chip.getAsInteger(10, sm))
        return binary.emitError() << "cannot read the SM version of chip `"
                                  << target.getChip() << "`";
      FailureOr<std::string> ptx = files.create(binary, "ptx");
      FailureOr<std::string> cubin = files.create(binary, "cubin");
      if (failed(ptx) || failed(cubin))
        return failure();
      std::error_code error;
      llvm::raw_fd_ostream(*ptx, error) << object.getObject().getValue();
      if (error)
        return binary.emitError()
               << "cannot write " << *ptx << ": " << error.message();
      if (failed(run(binary, {ptxas.str(), "-arch=sm_" + std::to_string(sm),
                              "-O3", *ptx, "-o", *cubin})))
        return failure();
      fatbinArgs.push_back("--image3=kind=elf,sm=" + std::to_string(sm) +
                           ",file=" + *cubin);
      if (!lowestPtx || sm < lowestPtx->first)
        lowestPtx = {sm, *ptx};
    }
    if (!lowestPtx)
      return binary.emitError("has no objects to pack");
    fatbinArgs.push_back(
        "--image3=kind=ptx,sm=" + std::to_string(lowestPtx->first) +
        ",file=" + lowestPtx->second);
    FailureOr<std::string> fatbin = files.create(binary, "fatbin");
    if (failed(fatbin))
      return failure();
    fatbinArgs.push_back("--create=" + *fatbin);
    if (failed(run(binary, fatbinArgs)))
      return failure();
    auto buffer = llvm::MemoryBuffer::getFile(*fatbin, /*IsText=*/false);
    if (!buffer)
      return binary.emitError() << "cannot read " << *fatbin;

    auto first = cast<gpu::ObjectAttr>(binary.getObjectsAttr()[0]);
    auto packed = gpu::ObjectAttr::get(
        &getContext(), first.getTarget(), gpu::CompilationTarget::Fatbin,
        StringAttr::get(&getContext(), (*buffer)->getBuffer()),
        /*properties=*/nullptr, first.getKernels());
    binary.setObjectsAttr(ArrayAttr::get(&getContext(), {packed}));
    return success();
  }

  void runOnOperation() override {
    SmallVector<gpu::BinaryOp> binaries;
    getOperation().walk([&](gpu::BinaryOp op) { binaries.push_back(op); });
    if (binaries.empty())
      return;
    FailureOr<std::string> ptxas = findTool(binaries.front(), "ptxas");
    FailureOr<std::string> fatbinary = findTool(binaries.front(), "fatbinary");
    if (failed(ptxas) || failed(fatbinary))
      return signalPassFailure();
    for (gpu::BinaryOp binary : binaries)
      if (failed(convert(binary, *ptxas, *fatbinary)))
        return signalPassFailure();
  }
};

} // namespace
