//===- Options.h - mpt-run's command line -----------------------*- C++ -*-===//
//
// mpt-run's flags, parsed into the trainer's options and the tool's own
// outputs. Every flag is declared in Options.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_TOOLS_MPT_RUN_OPTIONS_H
#define MPT_TOOLS_MPT_RUN_OPTIONS_H

#include "mpt/trainer.h"

#include <string>

namespace mpt {

struct RunOptions {
  TrainerOptions trainer;
  std::string metricsCsv, metricsJson, plotDir;
  bool quiet = false;
  /// --data-parallel: the communicator's timeout, in seconds.
  bool dataParallel = false;
  double commTimeout = 600;
};

/// Parses the command line (exiting on an unknown flag, as cl does); on a bad
/// value returns false with an error naming the flag.
bool parseCommandLine(int argc, char **argv, RunOptions &options,
                      std::string &error);

} // namespace mpt

#endif // MPT_TOOLS_MPT_RUN_OPTIONS_H
