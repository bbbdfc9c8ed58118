//===- InitTest.cpp - initial state of the example models -----------------===//
//
// Every parameter and state tensor of the three examples starts as PyTorch's
// modules start: weights Kaiming-uniform with bound 1/sqrt(fan_in), where
// fan_in is nn.Linear's in_features or nn.Conv2d's C_in*kh*kw, biases uniform
// in their layer's bound, normalization scales one and shifts zero,
// batch-norm running mean zero and running variance one, optimizer state zero.
// The expected values below are written from the model definitions, not read
// from the compiler.
//
//===----------------------------------------------------------------------===//

#include "mpt/runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace {

/// How a tensor of `count` elements starts: uniform in +-1/sqrt(fanIn), or
/// all equal to `value`.
struct Expected {
  int64_t count = 1;
  int64_t fanIn = 0; // 0: constant
  float value = 0.0f;
};
Expected uniform(int64_t count, int64_t fanIn) { return {count, fanIn, 0.0f}; }
Expected zeros(int64_t count) { return {count, 0, 0.0f}; }
Expected ones(int64_t count) { return {count, 0, 1.0f}; }

using ExpectedState = std::map<std::string, Expected>;

/// Adds, for every parameter, a zero optimizer state of its size named
/// prefix+name or name+suffix.
ExpectedState withZeroStates(ExpectedState params,
                             std::vector<std::string> prefixes,
                             std::vector<std::string> suffixes) {
  ExpectedState state = params;
  for (const auto &[name, param] : params) {
    for (const std::string &prefix : prefixes)
      state[prefix + name] = zeros(param.count);
    for (const std::string &suffix : suffixes)
      state[name + suffix] = zeros(param.count);
  }
  return state;
}

/// MLP 784-256-128-10: Linear(784, 256), Linear(256, 128), Linear(128, 10),
/// SGD momentum buffers.
ExpectedState mlpState() {
  ExpectedState state = {
      {"w1", uniform(784 * 256, 784)}, {"b1", uniform(256, 784)},
      {"w2", uniform(256 * 128, 256)}, {"b2", uniform(128, 256)},
      {"w3", uniform(128 * 10, 128)},  {"b3", uniform(10, 128)}};
  return withZeroStates(state, {"m"}, {});
}

/// Conv2d(1, 8, 3) without bias, BatchNorm2d(8), Conv2d(8, 16, 3) without
/// bias, BatchNorm2d(16), Linear(784, 10), SGD momentum buffers.
ExpectedState cnnState() {
  ExpectedState state = {{"wc1", uniform(8 * 1 * 3 * 3, 1 * 3 * 3)},
                         {"g1", ones(8)},
                         {"be1", zeros(8)},
                         {"wc2", uniform(16 * 8 * 3 * 3, 8 * 3 * 3)},
                         {"g2", ones(16)},
                         {"be2", zeros(16)},
                         {"wf", uniform(784 * 10, 784)},
                         {"bf", uniform(10, 784)}};
  state = withZeroStates(state, {"m"}, {});
  state.insert({{"rm1", zeros(8)},
                {"rv1", ones(8)},
                {"rm2", zeros(16)},
                {"rv2", ones(16)}});
  return state;
}

/// LayerNorm(64), Linear(64, 64) x4 without bias (q, k, v, out), LayerNorm(64),
/// Linear(64, 256), Linear(256, 64), Linear(64, 10), Adam's m, v and step.
ExpectedState transformerState() {
  ExpectedState state = {{"ln1_g", ones(64)},
                         {"ln1_b", zeros(64)},
                         {"wq", uniform(64 * 64, 64)},
                         {"wk", uniform(64 * 64, 64)},
                         {"wv", uniform(64 * 64, 64)},
                         {"wo", uniform(64 * 64, 64)},
                         {"ln2_g", ones(64)},
                         {"ln2_b", zeros(64)},
                         {"w_fc1", uniform(64 * 256, 64)},
                         {"b_fc1", uniform(256, 64)},
                         {"w_fc2", uniform(256 * 64, 256)},
                         {"b_fc2", uniform(64, 256)},
                         {"w_cls", uniform(64 * 10, 64)},
                         {"b_cls", uniform(10, 64)}};
  state = withZeroStates(state, {}, {"_m", "_v"});
  // Adam's step count: a scalar per parameter.
  for (const char *name :
       {"ln1_g", "ln1_b", "wq", "wk", "wv", "wo", "ln2_g", "ln2_b", "w_fc1",
        "b_fc1", "w_fc2", "b_fc2", "w_cls", "b_cls"})
    state[std::string(name) + "_t"] = zeros(1);
  return state;
}

std::string takeMessage(mpt_status_t status) {
  std::string message = mpt_status_message(status);
  mpt_status_free(status);
  return message;
}

/// Checks one tensor against its expected start. For a uniform tensor of n
/// values in +-b, no value may exceed b, and the largest |value| must reach
/// b*q with q = 1e-9^(1/n): for any seed, a correct sampler falls below that
/// with probability 1e-9. Large tensors must also have mean |value| = b/2
/// within 6 standard deviations (sd of |U(-b,b)| is b/sqrt(12)).
void checkTensor(const std::string &name, const std::vector<float> &values,
                 const Expected &expected) {
  if (!expected.fanIn) {
    for (size_t i = 0; i < values.size(); ++i)
      ASSERT_EQ(values[i], expected.value) << name << "[" << i << "]";
    return;
  }
  double bound = 1.0 / std::sqrt(double(expected.fanIn));
  double largest = 0.0, sum = 0.0;
  for (size_t i = 0; i < values.size(); ++i) {
    ASSERT_LE(std::abs(values[i]), float(bound))
        << name << "[" << i << "] exceeds 1/sqrt(" << expected.fanIn << ")";
    largest = std::max(largest, double(std::abs(values[i])));
    sum += std::abs(values[i]);
  }
  double n = double(values.size());
  EXPECT_GE(largest, bound * std::pow(1e-9, 1.0 / n))
      << name << ": largest |value| " << largest << " does not fill the bound "
      << bound;
  if (values.size() >= 1000)
    EXPECT_NEAR(sum / n, bound / 2, 6 * bound / std::sqrt(12.0 * n))
        << name << ": mean |value| of a uniform tensor";
}

/// Compiles `example` and checks every parameter and state tensor against
/// `expected` for several seeds; with `mastersOnly`, tensors the
/// mixed-precision rewrite added (working copies, loss scale) are skipped.
void checkExample(const char *example, mpt_precision_t precision,
                  const ExpectedState &expected, bool mastersOnly) {
  mpt_compile_options_t options;
  mpt_compile_options_init(&options);
  options.precision = precision;
  mpt_program_t program = nullptr;
  std::string path = std::string(MPT_EXAMPLES_DIR) + "/" + example;
  if (mpt_status_t status =
          mpt_program_compile(path.c_str(), &options, &program))
    FAIL() << takeMessage(status);
  for (uint64_t seed : {0, 1, 2}) {
    mpt_session_t session = nullptr;
    if (mpt_status_t status = mpt_session_create(program, seed, &session))
      FAIL() << takeMessage(status);
    size_t checked = 0;
    for (int64_t i = 0, e = mpt_session_num_state(session); i < e; ++i) {
      std::string name = mpt_session_state_name(session, i);
      auto it = expected.find(name);
      if (it == expected.end()) {
        EXPECT_TRUE(mastersOnly) << example << ": unexpected state " << name;
        continue;
      }
      std::vector<float> values(it->second.count);
      if (mpt_status_t status = mpt_session_read_state(
              session, name.c_str(), values.data(), int64_t(values.size())))
        FAIL() << example << ": " << takeMessage(status);
      checkTensor(std::string(example) + " " + name, values, it->second);
      ++checked;
    }
    EXPECT_EQ(checked, expected.size()) << example << ": some state is missing";
    mpt_session_free(session);
  }
  mpt_program_free(program);
}

} // namespace

TEST(Init, MLP) {
  checkExample("mlp.mlir", MPT_PRECISION_FP32, mlpState(), false);
}
TEST(Init, CNN) {
  checkExample("cnn_bn.mlir", MPT_PRECISION_FP32, cnnState(), false);
}
TEST(Init, Transformer) {
  checkExample("transformer_block.mlir", MPT_PRECISION_FP32, transformerState(),
               false);
}
// Under mixed precision the compute reads f16 working copies; the f32
// masters must start exactly as in FP32.
TEST(Init, MLPMixedF16Masters) {
  checkExample("mlp.mlir", MPT_PRECISION_F16, mlpState(), true);
}
TEST(Init, CNNMixedF16Masters) {
  checkExample("cnn_bn.mlir", MPT_PRECISION_F16, cnnState(), true);
}
