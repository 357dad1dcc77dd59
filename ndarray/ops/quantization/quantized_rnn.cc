// MXNet 1.9.1's _contrib_quantized_rnn (src/operator/quantization/quantized_rnn.cc): the LSTM of
// RNN (nn_rnn.cc) on uint8 data quantized asymmetrically.
//   Inputs: data (T, N, C) uint8 with data = round(x * data_scale + data_shift), parameters
//   (float32, RNN's flat layout), state and state_cell (L*D, N, H) float32, data_scale (1,) and
//   data_shift (1,) float32. Attributes: RNN's (mode must be 'lstm', use_sequence_length false,
//   as MXNet). Outputs: RNN's, float32: output (T, N, D*H) [, state, state_cell].
//   Ours dequantizes the data, x = (data - data_shift) / data_scale, and runs RNN's float32 LSTM
//   on it. MXNet's oneDNN kernel also quantizes the weights (int8 per channel) and the hidden
//   state inside its int8 LSTM; its own test (tests/python/quantization/test_quantization.py,
//   test_quantized_rnn) only bounds the mean squared difference from the float32 LSTM by 1e-3,
//   which nn_quantized_rnn_test.cc checks for ours. MXNet 1.9.1's pip wheel fails to run this op
//   on the machine the references are made on ("could not create a primitive descriptor for a
//   reorder primitive", tools/conformance/refs_quantized_rnn.py records it), so there are no
//   MXNet values to compare; its registry entry is compared. Not differentiable (MXNet registers
//   no gradient).
#include <vector>

#include "ndarray/ops/nn/nn_rnn_api.h"
#include "ndarray/ops/nn/nn_util.h"

namespace mxnet::ops {
namespace {

constexpr auto kBad = absl::StatusCode::kInvalidArgument;

void CheckLstm(const RNNParam& p) {
  if (p.mode != "lstm")
    MX_THROW(kBad, "_contrib_quantized_rnn: only mode 'lstm' is supported (as in MXNet), got '",
             p.mode, "'");
  if (p.use_sequence_length)
    MX_THROW(kBad, "_contrib_quantized_rnn: use_sequence_length is not supported (as in MXNet)");
}

// The float RNN's attributes for p (no dropout mask: inference).
OpAttrs RnnAttrs(const RNNParam& p) {
  const Op& rnn = OpRegistry::Get("RNN");
  RNNParam q = p;
  q.p = 0;
  return OpAttrs::From(rnn, q);
}

int NumOutputs(const OpAttrs& a) { return a.get<RNNParam>().state_outputs ? 3 : 1; }

MX_REGISTER_OP(_contrib_quantized_rnn)
    .describe(
        "LSTM (RNN's) on uint8 data quantized as round(x * data_scale + data_shift): the data "
        "dequantized, then RNN's float32 LSTM; float32 outputs.")
    .set_params<RNNParam>()
    .set_num_inputs(6)
    .set_input_names(std::vector<std::string>{"data", "parameters", "state", "state_cell",
                                              "data_scale", "data_shift"})
    .set_num_outputs(NumOutputs)
    .set_output_names(std::vector<std::string>{"output", "state_output", "statecell_output"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const RNNParam& p = a.get<RNNParam>();
      CheckLstm(p);
      const Op& rnn = OpRegistry::Get("RNN");
      ShapeVec rin(in->begin(), in->begin() + 4), rout(out->size());
      for (size_t i = 0; i < out->size(); ++i) rout[i] = (*out)[i];
      rnn.infer_shape(RnnAttrs(p), &rin, &rout);
      for (int i = 0; i < 4; ++i) (*in)[i] = rin[i];
      for (size_t i = 0; i < out->size(); ++i) (*out)[i] = rout[i];
      MergeShape(&(*in)[4], Shape{1}, "_contrib_quantized_rnn: data_scale");
      MergeShape(&(*in)[5], Shape{1}, "_contrib_quantized_rnn: data_shift");
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      CheckLstm(a.get<RNNParam>());
      int d = (*in)[0];
      if (d >= 0 && static_cast<DType>(d) != DType::kUint8)
        MX_THROW(kBad, "_contrib_quantized_rnn: data must be uint8, got ",
                 DTypeName(static_cast<DType>(d)));
      for (int i = 1; i < 6; ++i)
        MergeType(&(*in)[i], static_cast<int>(DType::kFloat32), "_contrib_quantized_rnn: input");
      for (auto& t : *out)
        MergeType(&t, static_cast<int>(DType::kFloat32), "_contrib_quantized_rnn: output");
    })
    .set_kernel(
        {DeviceType::kCPU, Backend::kReference},
        [](const OpContext& ctx, const OpAttrs& a, std::span<const NDArray> in,
           std::span<const NDArray> out) {
          const RNNParam& p = a.get<RNNParam>();
          CheckLstm(p);
          double scale = in[4].ToVector<double>()[0], shift = in[5].ToVector<double>()[0];
          if (!(scale > 0))
            MX_THROW(kBad, "_contrib_quantized_rnn: data_scale must be > 0, got ", scale);
          std::vector<double> q = in[0].ToVector<double>();
          for (double& v : q) v = (v - shift) / scale;
          NDArray x = NDArray::FromVector(q, in[0].shape(), cpu(), DType::kFloat32);
          const Op& rnn = OpRegistry::Get("RNN");
          std::vector<NDArray> rin = {x, in[1], in[2], in[3]};
          (*rnn.FindKernel({DeviceType::kCPU, Backend::kReference}))(ctx, RnnAttrs(p), rin, out);
        })
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
