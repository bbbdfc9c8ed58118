//===- Outputs.cpp - a run's metrics files and plots ----------------------===//
//
// Every output is written whole or not at all: a regular file goes to a
// temporary beside it that is renamed over it once every byte is written,
// so that a full disk leaves the previous file (or none) and an error naming
// the file, never a partial one.
//
//===----------------------------------------------------------------------===//

#include "TrainerState.h"
#include "mpt/comm.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <unistd.h>

using namespace mpt;
namespace fs = llvm::sys::fs;

std::string mpt::checkWritable(const std::string &path,
                               const std::string &what) {
  llvm::StringRef parent = llvm::sys::path::parent_path(path);
  std::string directory = parent.empty() ? "." : parent.str();
  std::string prefix = "cannot write " + what + " '" + path + "': ";
  if (!fs::is_directory(directory))
    return prefix + "directory '" + directory + "' does not exist";
  if (fs::is_directory(path))
    return prefix + "it is a directory";
  if (access(directory.c_str(), W_OK) != 0)
    return prefix + "directory '" + directory +
           "' is not writable: " + std::strerror(errno);
  return {};
}

/// Writes `text` to `path` itself; the stream's error, if any.
static std::error_code writeStream(const std::string &path,
                                   llvm::StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec);
  if (ec)
    return ec;
  out << text;
  out.close();
  ec = out.error();
  // Checked here: a stream destroyed with an error aborts the process.
  out.clear_error();
  return ec;
}

/// Writes `text` to `path` whole or not at all; an error naming the file.
/// What is not a regular file (a device, a pipe, /dev/stdout) is written as
/// it is.
static std::string writeOutput(const std::string &path, llvm::StringRef text) {
  std::string prefix = "cannot write '" + path + "': ";
  if (fs::exists(path) && !fs::is_regular_file(path)) {
    std::error_code ec = writeStream(path, text);
    return ec ? prefix + ec.message() : std::string();
  }
  std::string temporary =
      path + ".tmp." + std::to_string(llvm::sys::Process::getProcessId());
  std::error_code ec = writeStream(temporary, text);
  if (!ec)
    ec = fs::rename(temporary, path);
  if (!ec)
    return {};
  fs::remove(temporary);
  return prefix + ec.message();
}

std::string mpt::writeMetricsCsv(const std::string &path,
                                 const TrainResult &result) {
  std::string text;
  llvm::raw_string_ostream csv(text);
  namespace metric = contract::metric;
  csv << "step,epoch," << metric::Loss << "," << metric::LossScale << ","
      << metric::Skipped << "," << metric::GradZero << ","
      << metric::GradNonfinite;
  for (const std::string &name : result.metricNames)
    csv << "," << name;
  csv << "\n";
  for (const StepRecord &r : result.records) {
    csv << r.step << "," << r.epoch << "," << llvm::format("%.9g", r.loss)
        << "," << llvm::format("%.9g", r.lossScale) << "," << int(r.skipped)
        << "," << r.gradZero << "," << r.gradNonFinite;
    for (double value : r.metrics)
      csv << "," << llvm::format("%.9g", value);
    csv << "\n";
  }
  return writeOutput(path, text);
}

/// Bytes by what they hold, as mpt_memory_bytes_t names them.
static llvm::json::Object memoryJson(const mpt_memory_bytes_t &memory) {
  return llvm::json::Object{{"parameters", memory.parameters},
                            {"masters", memory.masters},
                            {"working_copies", memory.working_copies},
                            {"gradients", memory.gradients},
                            {"activations", memory.activations},
                            {"optimizer_state", memory.optimizer_state},
                            {"other_state", memory.other_state},
                            {"data", memory.data},
                            {"workspace", memory.workspace},
                            {"total", memory.total}};
}

/// A number, or null where it is not finite: JSON has no NaN or infinity
/// (a skipped step's loss is one), and llvm::json would write "nan".
static llvm::json::Value jsonNumber(double value) {
  if (std::isfinite(value))
    return value;
  return nullptr;
}

std::string mpt::writeMetricsJson(const std::string &path,
                                  const Trainer &trainer,
                                  const TrainResult &result) {
  llvm::json::Array steps;
  for (const StepRecord &r : result.records) {
    llvm::json::Object step{
        {"step", r.step},
        {"epoch", r.epoch},
        {contract::metric::Loss, jsonNumber(r.loss)},
        {contract::metric::LossScale, jsonNumber(r.lossScale)},
        {contract::metric::Skipped, r.skipped},
        {contract::metric::GradZero, r.gradZero},
        {contract::metric::GradNonfinite, r.gradNonFinite},
        {"bytes_all_reduced", r.bytesAllReduced},
        {"peak_memory_bytes", r.peakMemoryBytes}};
    for (auto [name, value] : llvm::zip(result.metricNames, r.metrics))
      step[name] = jsonNumber(value);
    steps.push_back(std::move(step));
  }
  // "test_accuracy" or "validation_loss".
  std::string evalKey = evalMetricName(trainer.evalMetric());
  std::replace(evalKey.begin(), evalKey.end(), ' ', '_');
  llvm::json::Array epochEvaluations;
  for (double value : result.epochEvaluations)
    epochEvaluations.push_back(jsonNumber(value));
  llvm::json::Array evaluations;
  for (const Evaluation &evaluation : result.evaluations)
    evaluations.push_back(llvm::json::Object{
        {"step", evaluation.steps}, {evalKey, jsonNumber(evaluation.value)}});
  const TrainerOptions &options = trainer.options();
  llvm::json::Object summary{
      {"model", options.modelPath},
      {"precision", precisionName(options.compile.precision)},
      {"batch", trainer.batchSize()},
      {"ranks", std::max(1, mpt_comm_size(options.compile.comm))},
      {"steps", result.steps},
      {contract::metric::Skipped, result.skipped},
      {"seconds", result.seconds},
      {"ms_per_step", result.msPerStep},
      {"ms_per_step_after_first", result.msPerStepAfterFirst},
      {"ms_per_step_queueing", result.msPerStepQueueing},
      {"ms_per_step_waiting", result.msPerStepWaiting},
      {"peak_memory", memoryJson(result.peakMemory)},
      {evalKey, std::move(epochEvaluations)},
      {"evaluations", std::move(evaluations)},
      {"metrics", std::move(steps)}};
  std::string text =
      llvm::formatv("{0:2}", llvm::json::Value(std::move(summary))).str() +
      "\n";
  return writeOutput(path, text);
}

/// gnuplot's `set <axis>range` for `values` where autoscaling would fail:
/// all of them equal (a flat loss scale, a single evaluation), which gnuplot
/// widens with an "empty range" warning. Empty otherwise.
static std::string fixedRange(llvm::StringRef axis,
                              const std::vector<double> &values,
                              bool logScale) {
  double low = INFINITY, high = -INFINITY;
  for (double value : values)
    if (std::isfinite(value)) {
      low = std::min(low, value);
      high = std::max(high, value);
    }
  if (!(low == high))
    return {};
  if (logScale)
    return llvm::formatv("set {0}range [{1}:{2}]\n", axis, low / 2, high * 2)
        .str();
  return llvm::formatv("set {0}range [{1}:{2}]\n", axis, low - 1, high + 1)
      .str();
}

namespace {
/// The files of a plot directory: data, script, and the images' temporaries.
struct PlotFiles {
  PlotFiles(const std::string &directory) : directory(directory) {}
  std::string path(llvm::StringRef name) const {
    return directory + "/" + name.str();
  }
  std::string temporary(llvm::StringRef name) const {
    return path(name) + ".tmp." +
           std::to_string(llvm::sys::Process::getProcessId());
  }
  std::string directory;
};
} // namespace

/// The file name, without extension, of the evaluations' data and plot:
/// named after what they measure.
static std::string evalPlotStem(EvalMetric metric) {
  return metric == EvalMetric::Loss ? "validation_loss" : "accuracy";
}

/// The gnuplot script: loss and loss scale per step, skipped steps marked,
/// and the evaluations (test accuracy or validation loss) per epoch when the
/// run evaluated.
/// `epochs` holds each evaluation's epoch.
static std::string plotScript(const PlotFiles &files, const std::string &title,
                              const std::vector<double> &epochs,
                              EvalMetric metric, const TrainResult &result) {
  std::vector<double> losses, scales;
  for (const StepRecord &r : result.records) {
    losses.push_back(r.loss);
    scales.push_back(r.lossScale);
  }
  std::string data = files.path("metrics.dat");
  // Skipped steps (column 4 is 1) marked on the curve of `column`.
  auto skippedAt = [&](int column) -> std::string {
    if (!result.skipped)
      return {};
    return llvm::formatv(", '{0}' using 1:($4 > 0 ? ${1} : 1/0) with points "
                         "pt 7 title 'skipped step'",
                         data, column)
        .str();
  };
  std::string script;
  llvm::raw_string_ostream out(script);
  out << "set terminal pngcairo size 900,500 noenhanced\n"
      << "set xlabel 'step'\nset grid\n"
      << "set output '" << files.temporary("loss.png") << "'\n"
      << "set ylabel 'loss'\n"
      << fixedRange("y", losses, false) << "plot '" << data
      << "' using 1:2 with lines title '" << title << "'" << skippedAt(2)
      << "\n"
      << "set output '" << files.temporary("loss_scale.png") << "'\n"
      << "set ylabel 'loss scale'\nset logscale y 2\n"
      << fixedRange("y", scales, true) << "plot '" << data
      << "' using 1:3 with steps title '" << title << "'" << skippedAt(3)
      << "\n";
  if (result.evaluations.empty())
    return script;
  std::vector<double> values;
  for (const Evaluation &evaluation : result.evaluations)
    values.push_back(evaluation.value);
  std::string stem = evalPlotStem(metric);
  out << "set output '" << files.temporary(stem + ".png") << "'\n"
      << "unset logscale y\nset autoscale y\nset xlabel 'epoch'\n"
      << "set ylabel '" << evalMetricName(metric) << "'\n"
      << fixedRange("x", epochs, false) << fixedRange("y", values, false)
      << "plot '" << files.path(stem + ".dat")
      << "' using 1:2 with linespoints pt 7 title '" << title << "'\n";
  return script;
}

/// The images the script draws.
static std::vector<std::string> plotImages(EvalMetric metric,
                                           const TrainResult &result) {
  std::vector<std::string> images = {"loss.png", "loss_scale.png"};
  if (!result.evaluations.empty())
    images.push_back(evalPlotStem(metric) + ".png");
  return images;
}

/// Writes the plots' data and script; an error naming the file.
static std::string writePlotInputs(const PlotFiles &files,
                                   const std::string &title,
                                   const Trainer &trainer,
                                   const TrainResult &result) {
  std::string metrics, evaluations;
  llvm::raw_string_ostream metricsOut(metrics), evaluationsOut(evaluations);
  for (const StepRecord &r : result.records)
    metricsOut << r.step << " " << r.loss << " " << r.lossScale << " "
               << int(r.skipped) << "\n";
  // Evaluated after `steps` steps: in epoch steps / stepsPerEpoch.
  std::vector<double> epochs;
  for (const Evaluation &evaluation : result.evaluations) {
    epochs.push_back(double(evaluation.steps) /
                     double(trainer.stepsPerEpoch()));
    evaluationsOut << epochs.back() << " " << evaluation.value << "\n";
  }
  std::string problem = writeOutput(files.path("metrics.dat"), metrics);
  if (problem.empty() && !result.evaluations.empty())
    problem = writeOutput(
        files.path(evalPlotStem(trainer.evalMetric()) + ".dat"), evaluations);
  if (problem.empty())
    problem = writeOutput(
        files.path("plot.gp"),
        plotScript(files, title, epochs, trainer.evalMetric(), result));
  return problem;
}

std::string mpt::writePlots(const std::string &directory,
                            const Trainer &trainer, const TrainResult &result) {
  if (std::error_code ec = fs::create_directories(directory))
    return "cannot create plot directory '" + directory + "': " + ec.message();
  llvm::ErrorOr<std::string> gnuplot = llvm::sys::findProgramByName("gnuplot");
  if (!gnuplot)
    return "--plot-dir needs gnuplot (Debian package gnuplot-nox), which is "
           "not on PATH";
  PlotFiles files(directory);
  const TrainerOptions &options = trainer.options();
  std::string title = llvm::sys::path::filename(options.modelPath).str() +
                      " (" + precisionName(options.compile.precision) + ")";
  if (std::string problem = writePlotInputs(files, title, trainer, result);
      !problem.empty())
    return problem;
  std::string script = files.path("plot.gp"), message;
  std::vector<std::string> images = plotImages(trainer.evalMetric(), result);
  std::string problem;
  // gnuplot draws into temporaries, renamed once all of them are complete.
  if (llvm::sys::ExecuteAndWait(*gnuplot, {*gnuplot, script}, std::nullopt, {},
                                0, 0, &message) != 0)
    problem = "gnuplot failed on '" + script + "': " + message;
  for (const std::string &image : images) {
    if (problem.empty())
      if (std::error_code ec =
              fs::rename(files.temporary(image), files.path(image)))
        problem = "cannot write '" + files.path(image) + "': " + ec.message();
    fs::remove(files.temporary(image));
  }
  return problem;
}
