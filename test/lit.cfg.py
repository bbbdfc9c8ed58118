# -*- Python -*-
import os
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "MPT"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mpt_obj_root, "test")
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%mpt_src_root", config.mpt_src_root))
config.substitutions.append(("%mpt_obj_root", config.mpt_obj_root))
config.substitutions.append(("%examples", os.path.join(config.mpt_src_root, "examples")))

# LSAN_OPTIONS carries scripts/test-sanitizers.sh's leak suppressions (lit
# passes ASAN_OPTIONS and UBSAN_OPTIONS by itself).
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP", "LSAN_OPTIONS"])
llvm_config.use_default_substitutions()

# One CPU thread per test: lit runs as many tests at once as there are cores,
# and OpenMP's spinning threads, oversubscribed, make a step up to 20 times
# slower. Results do not depend on the thread count; the tests of threading
# set OMP_NUM_THREADS themselves.
config.environment["OMP_NUM_THREADS"] = "1"

# ASan reserves terabytes of address space for its shadow memory, so a test
# that limits address space (`ulimit -v`) cannot run under it.
if config.mpt_sanitize.upper() in ("ON", "TRUE", "1", "YES"):
    config.available_features.add("asan")

tool_dirs = [config.mpt_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(
    ["mpt-opt", "mpt-run", "mpt-runtime-unittests", "mpt-runtime-c-api-test",
     "mpt-trainer-unittests", "mpt-comm-test",
     "not", "count",
     "split-file", "mlir-runner", "mlir-translate", "opt", "llc"],
    tool_dirs)
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(
    ("%mlir_lib_dir", os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")))

# The Python package (python/): `%mpt_python` runs lit's interpreter with it
# on the path. It drives libmpt_runtime.so, which the sanitizer build does not
# make (`mpt-python`). `torch`: that interpreter imports torch and
# torchvision (Debian's python3-torch, python3-torchvision), which the
# importer's tests need.
config.substitutions.append(
    ("%mpt_python", "env PYTHONPATH=%s %s" % (
        os.path.join(config.mpt_obj_root, "lib", "python3", "dist-packages"),
        sys.executable)))
if config.mpt_sanitize.upper() not in ("ON", "TRUE", "1", "YES"):
    config.available_features.add("mpt-python")
try:
    import importlib.util
    if all(importlib.util.find_spec(m) for m in ("torch", "torchvision", "numpy")):
        config.available_features.add("torch")
except (ImportError, ValueError):
    pass

# End-to-end training tests read the Debian package dataset-fashion-mnist.
if os.path.exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"):
    config.available_features.add("fashion-mnist")

# The host CPU's instruction sets, for the tests of MPT_MAX_CPU_ISA.
# `x86-64-v3`: AVX2, FMA and F16C (what MPT_MAX_CPU_ISA=avx2 keeps to).
# `openblas-avx512`: OpenBLAS picks AVX-512 kernels here unless told otherwise.
try:
    flags = next(line for line in open("/proc/cpuinfo")
                 if line.startswith("flags")).split()
except (OSError, StopIteration):
    flags = []
if {"avx2", "fma", "f16c", "bmi2", "movbe"} <= set(flags):
    config.available_features.add("x86-64-v3")
if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= set(flags):
    config.available_features.add("openblas-avx512")

# MPI. `mpi-runtime`: the runtime's collectives were built over MPI
# (MPT_ENABLE_MPI). `mpi`: also mpiexec was found at configure time; the tests
# that launch ranks (%mpiexec) require it and are UNSUPPORTED elsewhere.
if config.mpt_enable_mpi.upper() in ("ON", "TRUE", "1", "YES"):
    config.available_features.add("mpi-runtime")
    if os.path.exists(config.mpiexec):
        config.available_features.add("mpi")
        config.substitutions.append(("%mpiexec", config.mpiexec))

# CUDA. `cuda-runtime`: the runtime's CUDA layer was built (MPT_ENABLE_CUDA).
# `ptxas`: the toolkit's assembler, to check generated kernels without a GPU.
# `cuda-driver`: libcuda.so.1 loads. `cuda-device`: the driver answers with at
# least one device; GPU execution tests require it and are UNSUPPORTED
# elsewhere, never passed.
if config.mpt_enable_cuda.upper() in ("ON", "TRUE", "1", "YES"):
    config.available_features.add("cuda-runtime")
    llvm_config.add_tool_substitutions(["mpt-cuda-check", "mpt-cuda-c-api-test"], tool_dirs)
    config.substitutions.append(
        ("%mpt_cuda_runtime", os.path.join(config.mpt_obj_root, "lib", "libmpt_cuda_runtime.so")))
    config.substitutions.append(
        ("%mpt_recording_cuda", os.path.join(config.mpt_obj_root, "lib", "libmpt_recording_cuda.so")))
cuda_bin = config.cuda_bin_dir or "/usr/local/cuda/bin"
if os.path.exists(os.path.join(cuda_bin, "ptxas")):
    config.available_features.add("ptxas")
    config.substitutions.append(("%mpt_ptxas", os.path.join(cuda_bin, "ptxas")))
    config.substitutions.append(("%cuda_root", os.path.dirname(cuda_bin)))
try:
    import ctypes
    libcuda = ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
    count = ctypes.c_int(0)
    if libcuda.cuInit(0) == 0 and libcuda.cuDeviceGetCount(ctypes.byref(count)) == 0 \
            and count.value > 0:
        config.available_features.add("cuda-device")
except OSError:
    pass
# `nccl`: libnccl.so.2 loads, for the collectives on device memory.
try:
    ctypes.CDLL("libnccl.so.2")
    config.available_features.add("nccl")
except OSError:
    pass
