// nd:: free functions and typed attributes of the fused recurrent layer (mx.nd.RNN, alias
// _npx_rnn) and the CTC loss (mx.nd.CTCLoss, aliases ctc_loss, _contrib_CTCLoss,
// _contrib_ctc_loss), part of the nn op family (nn_rnn.cc, nn_ctc.cc). Semantics follow MXNet
// 1.9.1 (src/operator/rnn.cc, rnn-inl.h, nn/ctc_loss.cc); attribute names, defaults and string
// forms are MXNet's:
//   NDArrayVec r = nd::RNN(x, params, h0, c0, {.state_size = 8, .num_layers = 2,
//                                               .mode = "lstm", .state_outputs = true});
//   NDArray loss = nd::CTCLoss(acts, labels);
// Errors throw mxnet::Error(kInvalidArgument) naming the op and the input or attribute.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ndarray/ops/core/basic_api.h"
#include "ndarray/params.h"

namespace mxnet::ops {

// RNN attributes (MXNet's RNNParam, in declaration order). state_size, num_layers and mode are
// required. p: dropout on the outputs of every layer but the last, in train mode only.
// projection_size: LSTM with a projection (LSTMP, Sak et al. 2014), 1 <= P <= state_size.
// lstm_state_clip_min/max: clip the LSTM cell state to [min, max] after every step (both or
// neither; lstm only); lstm_state_clip_nan: a NaN cell state becomes max instead of propagating.
// use_sequence_length: an extra input sequence_length (N,) of valid lengths (cuDNN semantics).
struct RNNParam {
  int state_size = 0;
  int num_layers = 0;
  bool bidirectional = false;
  std::string mode;  // rnn_relu, rnn_tanh, lstm, gru
  float p = 0.0f;
  bool state_outputs = false;
  std::optional<int> projection_size;
  std::optional<double> lstm_state_clip_min;
  std::optional<double> lstm_state_clip_max;
  bool lstm_state_clip_nan = false;
  bool use_sequence_length = false;
  template <class D>
  static void Declare(D& d) {
    d.field("state_size", &RNNParam::state_size).required().describe("Hidden state size H.");
    d.field("num_layers", &RNNParam::num_layers).required().describe("Number of stacked layers.");
    d.field("bidirectional", &RNNParam::bidirectional)
        .describe("Add a reverse-time direction to every layer.");
    d.field("mode", &RNNParam::mode)
        .required()
        .choices({"gru", "lstm", "rnn_relu", "rnn_tanh"})
        .describe("The recurrent cell.");
    d.field("p", &RNNParam::p).describe("Dropout on the outputs of all layers but the last.");
    d.field("state_outputs", &RNNParam::state_outputs)
        .describe("Also output the final hidden (and cell) states.");
    d.field("projection_size", &RNNParam::projection_size)
        .describe("LSTM projection size (None: no projection).");
    d.field("lstm_state_clip_min", &RNNParam::lstm_state_clip_min)
        .describe("Lower clip of the LSTM cell state (with lstm_state_clip_max).");
    d.field("lstm_state_clip_max", &RNNParam::lstm_state_clip_max)
        .describe("Upper clip of the LSTM cell state (with lstm_state_clip_min).");
    d.field("lstm_state_clip_nan", &RNNParam::lstm_state_clip_nan)
        .describe("Clip NaN cell states too (to the maximum).");
    d.field("use_sequence_length", &RNNParam::use_sequence_length)
        .describe("Take a sequence_length input with each sample's valid length.");
  }
  std::string Validate() const;
};

// CTCLoss attributes. blank_label "first": channel 0 is the blank, labels are 1..A-1 padded with
// 0; "last": channel A-1 is the blank, labels are 0..A-2 padded with -1.
struct CTCLossParam {
  bool use_data_lengths = false;
  bool use_label_lengths = false;
  std::string blank_label = "first";
  template <class D>
  static void Declare(D& d) {
    d.field("use_data_lengths", &CTCLossParam::use_data_lengths)
        .describe("Take a data_lengths input (N,) (else every sequence has length T).");
    d.field("use_label_lengths", &CTCLossParam::use_label_lengths)
        .describe("Take a label_lengths input (N,) (else labels end at the padding value).");
    d.field("blank_label", &CTCLossParam::blank_label)
        .choices({"first", "last"})
        .describe("Which channel is the blank.");
  }
};

// Number of gate blocks of a cell: 1 (rnn_relu, rnn_tanh), 4 (lstm), 3 (gru); 0 if unknown.
int RNNGates(const std::string& mode);

// Length of RNN's flat `parameters` vector for inputs with `input_size` features, in MXNet's
// packing: for each layer, for each direction (forward, then reverse): W_i2h (G*H, in),
// W_h2h (G*H, R) [, W_h2r (P, H) with a projection]; then for each layer and direction:
// b_i2h (G*H), b_h2h (G*H). G gates, gate order LSTM i,f,g,o and GRU r,z,n; R = P or H;
// in = input_size for layer 0, D*R above it.
int64_t RNNParamSize(const RNNParam& p, int64_t input_size);

}  // namespace mxnet::ops

namespace mxnet::nd {

using RNNOptions = ops::RNNParam;
using CTCLossOptions = ops::CTCLossParam;

// Fused multi-layer RNN/LSTM/GRU (mx.nd.RNN). Layout TNC:
//   data       (T, N, C), float32/float64 (float16/bfloat16 computed in float32)
//   parameters (RNNParamSize(opts, C),) flat vector (see RNNParamSize)
//   state      (L*D, N, R) initial hidden state (D = 2 if bidirectional, R = projection or H)
//   state_cell (L*D, N, H) initial cell state: lstm only, pass NDArray() otherwise
//   sequence_length (N,) integer or float valid lengths in [1, T]: only with
//              use_sequence_length (else NDArray()); steps at or beyond a sample's length
//              output 0 and leave its state unchanged, the reverse direction starts at the last
//              valid step (cuDNN's semantics; MXNet 1.9.1's CPU build ignores or rejects it).
// Cells (MXNet's documented formulas): rnn_relu/rnn_tanh h' = act(W x + b + U h + c);
// lstm c' = f*c + i*g, h' = o*tanh(c'); gru (cuDNN variant) n = tanh(W_n x + b_n +
// r*(U_n h + c_n)), h' = (1-z)*n + z*h.
// Returns {out (T, N, D*R)} or, with state_outputs, {out, hy (L*D, N, R)[, cy (L*D, N, H)]}.
// Errors: wrong parameter vector size, state shapes, rank of data, unknown mode, bad attributes.
NDArrayVec RNN(const NDArray& data, const NDArray& parameters, const NDArray& state,
               const NDArray& state_cell, const NDArray& sequence_length, RNNOptions opts);
// Without sequence lengths (use_sequence_length is cleared); state_cell only for lstm.
NDArrayVec RNN(const NDArray& data, const NDArray& parameters, const NDArray& state,
               const NDArray& state_cell, const RNNOptions& opts);
NDArrayVec RNN(const NDArray& data, const NDArray& parameters, const NDArray& state,
               const RNNOptions& opts);

// Connectionist Temporal Classification loss (Graves et al. 2006), mx.nd.CTCLoss:
//   data  (T, N, A) unnormalized activations (softmax is applied inside), float32/float64
//   label (N, L) class indices (any numeric dtype), padded as blank_label says
//   data_lengths (N,), label_lengths (N,): optional (pass NDArray() to leave out; the
//   use_*_lengths flags are set from which are given)
// Returns loss (N,) = -log p(label | data). Its gradient w.r.t. data is
// softmax(data) - posterior(label) per step (zero past a sample's data length), times the head
// gradient. A label that cannot fit (length + repeats > data length) gives loss 0 and gradient 0
// (MXNet's behaviour).
NDArray CTCLoss(const NDArray& data, const NDArray& label, const NDArray& data_lengths,
                const NDArray& label_lengths, CTCLossOptions opts = {});
NDArray CTCLoss(const NDArray& data, const NDArray& label, const CTCLossOptions& opts = {});

}  // namespace mxnet::nd
