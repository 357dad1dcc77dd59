// Tests of nn_quantized_rnn.cc (_contrib_quantized_rnn): MXNet 1.9.1's registry entry
// (testdata/nn/quantized_rnn.json, tools/conformance/refs_quantized_rnn.py; MXNet's wheel cannot
// run the op on that machine, so there are no MXNet values), MXNet's own test criterion (mean
// squared difference from the float32 LSTM below 1e-3, with its quantization of the data), exact
// agreement with RNN on the dequantized data, and errors.
#include <cmath>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet::testing {
namespace {

using json = nlohmann::json;

json LoadJson() { return LoadRefJson("ndarray/ops/testdata/nn/quantized_rnn.json"); }

TEST(MXNetRegistry, NamesAttributesAndDefaults) {
  json doc = LoadJson();
  ASSERT_EQ(doc["mxnet_version"], "1.9.1");
  CheckRegistryEntry("_contrib_quantized_rnn", doc["ops"]["_contrib_quantized_rnn"],
                     {{"state_size", "1"}, {"num_layers", "1"}, {"mode", "lstm"}});
}

// MXNet's test_quantized_rnn: uint8 data = x * scale + shift + 0.5 truncated, scale = 128 /
// (max - min), shift = 128 - max * scale; MSE of the output vs the float32 LSTM < 1e-3.
void CheckLikeMXNetTest(bool bidirectional, int layers) {
  const int64_t T = 5, N = 2, C = 16, H = 16, D = bidirectional ? 2 : 1;
  AttrDict attrs = {{"state_size", "16"},
                    {"num_layers", std::to_string(layers)},
                    {"bidirectional", bidirectional ? "True" : "False"},
                    {"mode", "lstm"},
                    {"state_outputs", "True"}};
  int64_t np = 0;
  for (int l = 0; l < layers; ++l) {
    int64_t in = l == 0 ? C : D * H;
    np += D * (4 * H * (in + H) + 8 * H);
  }
  NDArray x = RandomArray({T, N, C}, -1, 1, 11, DType::kFloat32);
  NDArray w = RandomArray({np}, -1, 1, 12, DType::kFloat32);
  NDArray s = RandomArray({layers * D, N, H}, -1, 1, 13, DType::kFloat32);
  NDArray c = RandomArray({layers * D, N, H}, -1, 1, 14, DType::kFloat32);
  std::vector<double> xv = x.ToVector<double>();
  double mx = *std::max_element(xv.begin(), xv.end()), mn = *std::min_element(xv.begin(), xv.end());
  // (float32 scale and shift, as the op's inputs)
  double scale = static_cast<float>(128.0 / (mx - mn));
  double shift = static_cast<float>(128.0 - mx * scale);
  std::vector<double> q(xv.size());
  for (size_t i = 0; i < q.size(); ++i) q[i] = std::floor(xv[i] * scale + shift + 0.5);
  NDArray qx = NDArray::FromVector(q, x.shape(), cpu(), DType::kUint8);
  NDArrayVec ref = Invoke("RNN", std::vector<NDArray>{x, w, s, c}, attrs);
  NDArrayVec got =
      Invoke("_contrib_quantized_rnn",
             std::vector<NDArray>{
                 qx, w, s, c,
                 NDArray::FromVector(std::vector<double>{scale}, Shape{1}, cpu(), DType::kFloat32),
                 NDArray::FromVector(std::vector<double>{shift}, Shape{1}, cpu(), DType::kFloat32)},
             attrs);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].shape(), (Shape{T, N, D * H}));
  EXPECT_EQ(got[0].dtype(), DType::kFloat32);
  std::vector<double> a = got[0].ToVector<double>(), b = ref[0].ToVector<double>();
  double mse = 0;
  for (size_t i = 0; i < a.size(); ++i) mse += (a[i] - b[i]) * (a[i] - b[i]);
  mse /= static_cast<double>(a.size());
  EXPECT_LT(mse, 1e-3);
  EXPECT_GT(mse, 0);  // the data were quantized
  // RNN on the dequantized data (to float32 rounding: RNN may run on another backend).
  std::vector<double> dq(q.size());
  for (size_t i = 0; i < q.size(); ++i) dq[i] = static_cast<float>((q[i] - shift) / scale);
  NDArrayVec on_dq = Invoke(
      "RNN",
      std::vector<NDArray>{NDArray::FromVector(dq, x.shape(), cpu(), DType::kFloat32), w, s, c},
      attrs);
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(AllClose(got[k], on_dq[k], 1e-5, 1e-6)) << k;
}

TEST(QuantizedRnn, MXNetTestCriterion) {
  CheckLikeMXNetTest(false, 1);
  CheckLikeMXNetTest(true, 1);
  CheckLikeMXNetTest(false, 2);
}

TEST(QuantizedRnn, Errors) {
  NDArray q =
      NDArray::FromVector(std::vector<double>(8, 128), Shape{2, 1, 4}, cpu(), DType::kUint8);
  NDArray w = RandomArray({4 * 2 * (4 + 2) + 8 * 2}, -1, 1, 1, DType::kFloat32);
  NDArray s = RandomArray({1, 1, 2}, -1, 1, 2, DType::kFloat32);
  NDArray one = NDArray::FromVector(std::vector<double>{1}, Shape{1}, cpu(), DType::kFloat32);
  ExpectInvalidArgument(
      [&] {
        Invoke("_contrib_quantized_rnn", std::vector<NDArray>{q, w, s, s, one, one},
               {{"state_size", "2"}, {"num_layers", "1"}, {"mode", "gru"}});
      },
      {"_contrib_quantized_rnn", "only mode 'lstm'"});
  ExpectInvalidArgument(
      [&] {
        Invoke("_contrib_quantized_rnn",
               std::vector<NDArray>{q.astype(DType::kFloat32), w, s, s, one, one},
               {{"state_size", "2"}, {"num_layers", "1"}, {"mode", "lstm"}});
      },
      {"_contrib_quantized_rnn", "uint8"});
  EXPECT_FALSE(OpRegistry::Get("_contrib_quantized_rnn").differentiable());
}

}  // namespace
}  // namespace mxnet::testing
