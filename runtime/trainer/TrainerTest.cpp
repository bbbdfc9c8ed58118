//===- TrainerTest.cpp - the training loop as a library -------------------===//
//
// What a driver other than mpt-run relies on: trainers that share no state,
// an observer that hears every step, and a stop that saves where it stopped.
//
//===----------------------------------------------------------------------===//

#include "mpt/trainer.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace mpt;

namespace {

TrainerOptions syntheticRun() {
  TrainerOptions options;
  options.modelPath = MPT_TEST_INPUTS_DIR "/three-classes.mlir";
  options.data = DataSource::Synthetic;
  options.syntheticExamples = 64;
  options.epochs = 3;
  return options;
}

struct CountingObserver : TrainerObserver {
  void onStep(const StepRecord &record, const TrainProgress &) override {
    steps.push_back(record.step);
    if (trainer && int64_t(steps.size()) == stopAfter)
      trainer->requestStop();
  }
  void onEpochEnd(const StepRecord &, const TrainProgress &progress,
                  std::optional<double>) override {
    epochs.push_back(progress.epoch);
  }
  std::vector<int64_t> steps, epochs;
  Trainer *trainer = nullptr;
  int64_t stopAfter = 0;
};

TEST(TrainerTest, TwoTrainersInOneProcessTrainAlike) {
  std::string error;
  std::unique_ptr<Trainer> first = Trainer::create(syntheticRun(), error);
  ASSERT_TRUE(first) << error;
  std::unique_ptr<Trainer> second = Trainer::create(syntheticRun(), error);
  ASSERT_TRUE(second) << error;
  CountingObserver firstObserver, secondObserver;
  // Interleaved: neither run sees the other's state.
  TrainResult a = first->run(firstObserver);
  TrainResult b = second->run(secondObserver);
  ASSERT_EQ(a.records.size(), 12u);
  ASSERT_EQ(b.records.size(), 12u);
  for (size_t i = 0; i < a.records.size(); ++i)
    EXPECT_EQ(a.records[i].loss, b.records[i].loss) << "step " << i;
  EXPECT_EQ(firstObserver.steps.size(), 12u);
  EXPECT_EQ(firstObserver.epochs, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_TRUE(a.errors.empty());
}

TEST(TrainerTest, StopSavesWhereItStopped) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(
      llvm::sys::fs::createTemporaryFile("trainer", "safetensors", path));
  TrainerOptions options = syntheticRun();
  options.checkpointPath = path.str().str();
  std::string error;
  std::unique_ptr<Trainer> trainer = Trainer::create(options, error);
  ASSERT_TRUE(trainer) << error;
  CountingObserver observer;
  observer.trainer = trainer.get();
  observer.stopAfter = 5;
  TrainResult result = trainer->run(observer);
  EXPECT_TRUE(result.interrupted);
  EXPECT_EQ(result.steps, 5);
  EXPECT_TRUE(result.errors.empty());

  // A trainer resumed from the checkpoint trains the remaining 7 steps.
  options.resumePath = options.checkpointPath;
  std::unique_ptr<Trainer> resumed = Trainer::create(options, error);
  ASSERT_TRUE(resumed) << error;
  CountingObserver resumedObserver;
  TrainResult rest = resumed->run(resumedObserver);
  EXPECT_EQ(rest.firstStep, 5);
  EXPECT_EQ(rest.steps, 7);
  EXPECT_FALSE(rest.interrupted);
  llvm::sys::fs::remove(path);
}

// With gradient accumulation a batch is all the micro-batches: the step
// written for 16 examples trains on 32 per step, 2 steps per epoch of 64.
TEST(TrainerTest, AccumulatedBatchesCountRealSteps) {
  TrainerOptions options = syntheticRun();
  options.compile.micro_batches = 2;
  std::string error;
  std::unique_ptr<Trainer> trainer = Trainer::create(options, error);
  ASSERT_TRUE(trainer) << error;
  EXPECT_EQ(trainer->batchSize(), 32);
  CountingObserver observer;
  TrainResult result = trainer->run(observer);
  EXPECT_EQ(result.steps, 6);
  EXPECT_EQ(observer.epochs, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_TRUE(result.errors.empty());
}

/// A token file of `count` tokens, each below 16, in a temporary file.
std::string writeTokens(int64_t count) {
  llvm::SmallString<128> path;
  EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("tokens", "bin", path));
  std::string bytes;
  for (int64_t i = 0; i < count; ++i)
    bytes += char((i * 7 + i / 5) % 16);
  std::error_code error;
  llvm::raw_fd_ostream(path, error) << bytes;
  EXPECT_FALSE(error);
  return path.str().str();
}

// A step's windows are drawn from its number: a run resumed at step 3 trains
// on the windows, so to the losses, of the run it continues. An epoch is the
// file's tokens over a batch of 4x6 ids: 100 / 24 = 4 steps.
TEST(TrainerTest, ResumedTokenRunDrawsTheSameWindows) {
  TrainerOptions options;
  options.modelPath = MPT_TEST_INPUTS_DIR "/next-token.mlir";
  options.data = DataSource::Tokens;
  options.tokenFile = writeTokens(100);
  options.epochs = 2;
  llvm::SmallString<128> checkpoint;
  ASSERT_FALSE(
      llvm::sys::fs::createTemporaryFile("tokens", "safetensors", checkpoint));
  std::string error;
  std::unique_ptr<Trainer> straight = Trainer::create(options, error);
  ASSERT_TRUE(straight) << error;
  EXPECT_EQ(straight->stepsPerEpoch(), 4);
  CountingObserver observer;
  TrainResult all = straight->run(observer);
  ASSERT_EQ(all.records.size(), 8u);
  EXPECT_LT(all.records.back().loss, all.records.front().loss);

  options.maxSteps = 3;
  options.checkpointPath = checkpoint.str().str();
  std::unique_ptr<Trainer> first = Trainer::create(options, error);
  ASSERT_TRUE(first) << error;
  first->run(observer);
  options.maxSteps = 0;
  options.resumePath = options.checkpointPath;
  std::unique_ptr<Trainer> resumed = Trainer::create(options, error);
  ASSERT_TRUE(resumed) << error;
  TrainResult rest = resumed->run(observer);
  ASSERT_EQ(rest.records.size(), 5u);
  for (size_t i = 0; i < rest.records.size(); ++i)
    EXPECT_EQ(rest.records[i].loss, all.records[i + 3].loss) << "step " << i;
  llvm::sys::fs::remove(checkpoint);
  llvm::sys::fs::remove(options.tokenFile);
}

TEST(TrainerTest, BadOptionsNameTheirFlag) {
  TrainerOptions options = syntheticRun();
  options.epochs = 0;
  std::string error;
  EXPECT_FALSE(Trainer::create(options, error));
  EXPECT_EQ(error, "--epochs must be at least 1, got 0");
  options = syntheticRun();
  options.compile.micro_batches = 0;
  EXPECT_FALSE(Trainer::create(options, error));
  EXPECT_EQ(error, "--accumulate must be at least 1, got 0");
}

} // namespace
