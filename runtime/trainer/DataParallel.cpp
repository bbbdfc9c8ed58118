//===- DataParallel.cpp - a trainer as one of several ranks ---------------===//
//
// Every rank runs the same loop on its own shard of each global batch; the
// compiled step sums the gradients, so the ranks' parameters stay the same.
// What the loop adds: the mean loss over the ranks, and checks that the
// parameters are in fact the same before they are saved and when the run
// starts and ends. Other state may differ: batch norm's running statistics
// are each rank's own, as in PyTorch DDP (without SyncBatchNorm), and rank
// 0's are saved.
//
//===----------------------------------------------------------------------===//

#include "TrainerState.h"

#include "mpt/comm.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mpt;

void mpt::joinRanks(Trainer::State &state, mpt_comm_t comm) {
  state.comm = comm;
  state.rank = comm ? mpt_comm_rank(comm) : 0;
  state.ranks = comm ? mpt_comm_size(comm) : 1;
}

llvm::Expected<RanksAfterStep> mpt::agreeAfterStep(const Trainer::State &state,
                                                   float loss, bool stop) {
  if (state.ranks == 1)
    return RanksAfterStep{loss, stop};
  // One collective for both: the losses' sum and how many ranks would stop.
  float values[2] = {loss, stop ? 1.0f : 0.0f};
  if (llvm::Error error =
          takeStatus(mpt_comm_all_reduce(state.comm, MPT_DEVICE_CPU, values, 2,
                                         MPT_DTYPE_F32, MPT_REDUCE_SUM)))
    return std::move(error);
  return RanksAfterStep{values[0] / float(state.ranks), values[1] > 0};
}

llvm::Error mpt::checkSamePlan(const Trainer::State &state,
                               const TrainerOptions &options) {
  if (state.ranks == 1)
    return llvm::Error::success();
  // Everything that decides which collectives a rank makes, and when: ranks
  // that disagree would match one rank's collective with another's.
  std::string plan;
  llvm::raw_string_ostream(plan)
      << state.firstStep << " " << state.totalSteps << " "
      << state.stepsPerEpoch << " " << options.checkpointEvery << " "
      << options.checkpointPath.empty() << " " << options.evaluate << " "
      << llvm::join(
             llvm::map_range(state.evalSteps,
                             [](int64_t s) { return std::to_string(s); }),
             ",");
  return takeStatus(mpt_comm_check_same(
      state.comm, plan.data(), plan.size(),
      "the run's plan (--steps, --epochs, --checkpoint, --checkpoint-every, "
      "--resume, --eval-at, --no-eval and the data)"));
}

llvm::Error mpt::checkStateReplicated(const Trainer::State &state,
                                      const std::string &when) {
  if (state.ranks == 1)
    return llvm::Error::success();
  std::vector<float> all, values;
  for (int64_t i = 0, e = mpt_session_num_state(state.session); i < e; ++i) {
    mpt_tensor_info_t info;
    if (llvm::Error error =
            takeStatus(mpt_session_state_info(state.session, i, &info)))
      return error;
    if (!info.is_parameter)
      continue;
    values.resize(info.num_elements);
    if (llvm::Error error = takeStatus(mpt_session_read_state(
            state.session, info.name, values.data(), info.num_elements)))
      return error;
    all.insert(all.end(), values.begin(), values.end());
  }
  std::string what = "the parameters " + when;
  return takeStatus(mpt_comm_check_same(
      state.comm, all.data(), all.size() * sizeof(float), what.c_str()));
}
