# Precompiled MLIR headers for mpt's pass libraries, mpt-opt and mpt-fuzz.
#
# Parsing MLIR's dialect headers took 27 of the 34 s a pass file took to
# compile (clang -ftime-trace); with them precompiled it took 6 s, with GCC
# 5.5 s of 38. Every pass file compiles with the same flags, so one header
# serves them all (REUSE_FROM). The runtime compiles with other flags
# (-fopenmp, its own definitions) and includes little of MLIR: it keeps none.

option(MPT_PRECOMPILED_HEADERS
  "Precompile the MLIR headers the pass libraries include" ON)

# Every target under `directory` (recursively) whose name matches `regex`.
function(mpt_collect_targets directory regex out)
  get_property(targets DIRECTORY ${directory} PROPERTY BUILDSYSTEM_TARGETS)
  list(FILTER targets INCLUDE REGEX "${regex}")
  get_property(subdirectories DIRECTORY ${directory} PROPERTY SUBDIRECTORIES)
  foreach(subdirectory IN LISTS subdirectories)
    mpt_collect_targets(${subdirectory} "${regex}" nested)
    list(APPEND targets ${nested})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

function(mpt_precompile_headers)
  if(NOT MPT_PRECOMPILED_HEADERS)
    return()
  endif()
  add_library(MPTPrecompiledHeaders OBJECT
    ${PROJECT_SOURCE_DIR}/lib/PrecompiledHeaders.cpp)
  # The flags LLVM's add_* functions give their targets (-fno-exceptions...).
  llvm_update_compile_flags(MPTPrecompiledHeaders)
  target_precompile_headers(MPTPrecompiledHeaders PRIVATE
    ${PROJECT_SOURCE_DIR}/lib/PrecompiledHeaders.h)
  mpt_collect_targets(${PROJECT_SOURCE_DIR}/lib "^obj\\.MPT" libraries)
  set(tools mpt-opt)
  if(TARGET mpt-fuzz)
    list(APPEND tools mpt-fuzz)
  endif()
  foreach(target IN LISTS libraries tools)
    target_precompile_headers(${target} REUSE_FROM MPTPrecompiledHeaders)
  endforeach()
endfunction()
