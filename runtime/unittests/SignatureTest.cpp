//===- SignatureTest.cpp - reading the compiler's step signature ----------===//
//
// The runtime trusts nothing it reads: a signature that is malformed or
// inconsistent (a result replacing a missing argument, an eval argument
// reading state of another shape or type) is refused with what is wrong.
//
//===----------------------------------------------------------------------===//

#include "Signature.h"

#include <gtest/gtest.h>

using namespace mpt::runtime;

namespace {

/// A training step w' = f(w, x, y) with loss, a scale and a step count kept
/// in their domains, and an eval step reading w.
std::string signatureJson(
    const std::string &next = "0", const std::string &stateOfDtype = "F32",
    const std::string &stepDomain = R"({"min": 0, "max": 9007199254740992})") {
  return R"({"format": "mpt-signature-2",
    "train": {"function": "train_step",
      "arguments": [
        {"name": "w", "role": "param", "dtype": "F32", "shape": [3, 2],
         "init": {"kind": "uniform", "fan_in": 3, "bound": 0.5773502691896258}},
        {"name": "scale", "role": "state", "dtype": "F32", "shape": [],
         "init": {"kind": "value", "values": [65536]},
         "domain": {"min": 1, "max": 16777216.5}},
        {"name": "step", "role": "state", "dtype": "I64", "shape": [],
         "init": {"kind": "zeros"},
         "domain": )" +
         stepDomain + R"(},
        {"name": "x", "role": "data", "dtype": "F32", "shape": [2, 3]},
        {"name": "y", "role": "data", "dtype": "I32", "shape": [2],
         "classes": 2}],
      "results": [{"dtype": "F32", "shape": [3, 2], "next": )" +
         next + R"(},
                  {"dtype": "F32", "shape": [], "metric": "loss"}]},
    "eval": {"function": "predict",
      "arguments": [{"name": "w", "role": "state", "dtype": ")" +
         stateOfDtype + R"(", "shape": [3, 2], "state_of": 0},
                    {"name": "x", "role": "data", "dtype": "F32",
                     "shape": [2, 3]}],
      "results": [{"name": "logits", "dtype": "F32", "shape": [2, 2]}]}})";
}

TEST(Signature, ReadsEveryField) {
  Signature signature;
  std::string error;
  ASSERT_TRUE(parseSignature(signatureJson(), signature, error)) << error;
  EXPECT_EQ(signature.trainFunction, "train_step");
  ASSERT_EQ(signature.trainArgs.size(), 5u);
  const ArgInfo &w = signature.trainArgs[0];
  EXPECT_EQ(w.name, "w");
  EXPECT_EQ(w.role, Role::Param);
  EXPECT_EQ(w.init, InitKind::Uniform);
  EXPECT_DOUBLE_EQ(w.bound, 0.5773502691896258);
  EXPECT_EQ(w.shape.dims, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(signature.trainArgs[1].init, InitKind::Value);
  EXPECT_EQ(signature.trainArgs[1].initValues, std::vector<double>{65536});
  ASSERT_TRUE(signature.trainArgs[1].domain);
  EXPECT_EQ(signature.trainArgs[1].domain->min, 1.0);
  EXPECT_EQ(signature.trainArgs[1].domain->max, 16777216.5);
  ASSERT_TRUE(signature.trainArgs[2].domain);
  EXPECT_EQ(signature.trainArgs[2].domain->intMin, 0);
  EXPECT_EQ(signature.trainArgs[2].domain->intMax, int64_t(1) << 53);
  EXPECT_FALSE(w.domain);
  EXPECT_EQ(signature.trainArgs[4].shape.kind, ElementKind::I32);
  EXPECT_EQ(signature.trainArgs[4].classes, 2);
  ASSERT_EQ(signature.trainResults.size(), 2u);
  EXPECT_EQ(signature.trainResults[0].next, 0);
  EXPECT_EQ(signature.trainResults[1].metric, "loss");
  EXPECT_EQ(signature.evalFunction, "predict");
  ASSERT_EQ(signature.evalArgs.size(), 2u);
  EXPECT_EQ(signature.evalArgs[0].stateOf, 0);
  EXPECT_EQ(signature.evalArgs[1].stateOf, -1);
  ASSERT_EQ(signature.evalResults.size(), 1u);
  EXPECT_EQ(signature.evalResults[0].name, "logits");
}

// An embedding table's standard normal initializer has no parameters.
TEST(Signature, ReadsNormalInitializer) {
  std::string json = signatureJson();
  json.replace(json.find(R"("kind": "uniform")"), 17, R"("kind": "normal")");
  Signature signature;
  std::string error;
  ASSERT_TRUE(parseSignature(json, signature, error)) << error;
  EXPECT_EQ(signature.trainArgs[0].init, InitKind::Normal);
}

void expectRefused(const std::string &json, const std::string &expected) {
  Signature signature;
  std::string error;
  EXPECT_FALSE(parseSignature(json, signature, error));
  EXPECT_NE(error.find(expected), std::string::npos) << error;
}

TEST(Signature, RefusesMalformedOrInconsistent) {
  expectRefused("{", "malformed step signature");
  expectRefused(R"({"format": "other"})", "not an mpt-signature-2 object");
  expectRefused(R"({"format": "mpt-signature-2"})", "no training step");
  // A carried result must replace an argument of its shape.
  expectRefused(signatureJson("7"), "result #0 replaces no matching argument");
  expectRefused(signatureJson("1"), "result #0 replaces no matching argument");
  // The eval step reads the state as stored: same dtype.
  expectRefused(signatureJson("0", "F16"),
                "eval argument #0 reads no matching training-step argument");
  std::string badDtype = signatureJson();
  badDtype.replace(badDtype.find("\"I32\""), 5, "\"U8\"");
  expectRefused(badDtype, "argument #4 has no valid dtype and shape");
  std::string badInit = signatureJson();
  badInit.replace(badInit.find("\"uniform\""), 9, "\"orthogonal\"");
  expectRefused(badInit, "argument #0 has unknown initializer 'orthogonal'");
  // A domain is a range of the state's kind: integers for integer state.
  for (const char *domain : {R"({"min": 0})", R"({"min": 2, "max": 1})",
                             R"({"min": 0, "max": 0.5})", R"([0, 1])"})
    expectRefused(signatureJson("0", "F32", domain),
                  "argument #2 has a malformed domain");
}

} // namespace
