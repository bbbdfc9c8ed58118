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
config.substitutions.append(("%examples", os.path.join(config.mpt_src_root, "examples")))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.mpt_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(
    ["mpt-opt", "mpt-run", "mpt-runtime-unittests", "mpt-runtime-c-api-test",
     "not", "count",
     "split-file", "mlir-runner"],
    tool_dirs)
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(
    ("%mlir_lib_dir", os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")))

# End-to-end training tests read the Debian package dataset-fashion-mnist.
if os.path.exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"):
    config.available_features.add("fashion-mnist")
