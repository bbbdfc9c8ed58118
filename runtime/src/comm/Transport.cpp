//===- Transport.cpp - the transport of the launcher's world ----*- C++ -*-===//

#include "comm/Transport.h"

#include "api/Status.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace mpt::runtime::api;
using namespace mpt::runtime::comm;

namespace {

/// The only rank: collectives leave every buffer as it is.
class SingleProcessTransport final : public HostTransport {
public:
  const char *name() const override { return "single-process"; }
  int rank() const override { return 0; }
  int size() const override { return 1; }
  mpt_status_t allReduce(void *, int64_t, mpt_dtype_t,
                         mpt_reduce_op_t) override {
    return nullptr;
  }
  mpt_status_t broadcast(void *, size_t, int) override { return nullptr; }
  mpt_status_t allGather(const void *mine, size_t bytes, void *all) override {
    std::memcpy(all, mine, bytes);
    return nullptr;
  }
  mpt_status_t barrier() override { return nullptr; }
};

/// The variables by which a launcher tells a process its world: MPICH's
/// hydra (and Slurm's PMI) set PMI_SIZE, Open MPI sets OMPI_COMM_WORLD_SIZE,
/// PMIx launchers PMIX_RANK (with no size).
constexpr const char *kLauncherVariables[] = {
    "PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK"};

} // namespace

std::string mpt::runtime::comm::describeAllReduce(int64_t count,
                                                  mpt_dtype_t dtype,
                                                  mpt_reduce_op_t op) {
  return std::string("all-reduce (") + (op == MPT_REDUCE_SUM ? "sum" : "max") +
         ") of " + std::to_string(count) + " " + mpt_dtype_name(dtype) +
         " elements";
}

std::string mpt::runtime::comm::formatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

std::string mpt::runtime::comm::describeRanks(const std::vector<int> &ranks) {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size(); ++i)
    text += (i ? ", " : "") + std::to_string(ranks[i]);
  return text;
}

mpt_status_t
mpt::runtime::comm::createHostTransport([[maybe_unused]] double timeoutSeconds,
                                        std::unique_ptr<HostTransport> &out) {
  for (const char *variable : kLauncherVariables) {
    const char *value = std::getenv(variable);
    if (!value)
      continue;
#ifdef MPT_ENABLE_MPI
    return createMpiTransport(timeoutSeconds, out);
#else
    // A size of 1 needs no MPI; PMIX_RANK does not say the size.
    if (std::strcmp(value, "1") != 0 || std::strcmp(variable, "PMIX_RANK") == 0)
      return makeStatus(
          MPT_STATUS_FAILED_PRECONDITION,
          std::string("started by an MPI launcher (") + variable + "=" + value +
              ") but this mpt was built without MPI: install MPICH "
              "(libmpich-dev, scripts/install-deps.sh) and configure again, "
              "or run a single process without mpiexec");
#endif
  }
  out = std::make_unique<SingleProcessTransport>();
  return nullptr;
}

#ifndef MPT_ENABLE_CUDA
mpt_status_t
mpt::runtime::comm::createDeviceTransport(HostTransport &, double,
                                          std::unique_ptr<DeviceTransport> &) {
  return makeStatus(MPT_STATUS_FAILED_PRECONDITION,
                    "collectives on the CUDA device: this mpt was built "
                    "without CUDA (configure with -DMPT_ENABLE_CUDA=ON and a "
                    "CUDA toolkit)");
}
#endif
