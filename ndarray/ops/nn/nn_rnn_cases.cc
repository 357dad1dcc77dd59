// Test cases of RNN, _backward_RNN, CTCLoss and _backward_ctc_loss (nn family), enumerated by
// //ndarray:all_ops_test: finite-difference gradients in float64 w.r.t. data, parameters, state
// and state_cell (RNN) and data (CTCLoss), attribute round trips.
#include <vector>

#include "ndarray/ops/nn/nn_rnn_api.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

struct RnnSpec {
  std::string mode;
  int64_t T = 3, N = 2, C = 3;
  int H = 2, L = 1;
  bool bidir = false, state_outputs = false;
  int proj = 0;
  std::vector<double> seq_len;  // non-empty: use_sequence_length
  double p = 0;
  bool clip = false;
};

AttrDict RnnAttrs(const RnnSpec& s) {
  AttrDict a{
      {"state_size", std::to_string(s.H)}, {"num_layers", std::to_string(s.L)}, {"mode", s.mode}};
  if (s.bidir) a["bidirectional"] = "True";
  if (s.state_outputs) a["state_outputs"] = "True";
  if (s.proj) a["projection_size"] = std::to_string(s.proj);
  if (!s.seq_len.empty()) a["use_sequence_length"] = "True";
  if (s.p > 0) a["p"] = std::to_string(s.p);
  if (s.clip) a["lstm_state_clip_min"] = "-0.3", a["lstm_state_clip_max"] = "0.3";
  return a;
}

ops::RNNParam ParamOf(const RnnSpec& s) {
  ops::RNNParam p;
  p.state_size = s.H, p.num_layers = s.L, p.bidirectional = s.bidir, p.mode = s.mode;
  if (s.proj) p.projection_size = s.proj;
  return p;
}

// data, parameters, state[, state_cell][, sequence_length (int32)].
std::vector<NDArray> RnnInputs(const RnnSpec& s, DType t, uint64_t seed) {
  const int64_t D = s.bidir ? 2 : 1, R = s.proj ? s.proj : s.H;
  std::vector<NDArray> v{RandomArray({s.T, s.N, s.C}, -1, 1, seed, t),
                         RandomArray({ops::RNNParamSize(ParamOf(s), s.C)}, -0.6, 0.6, seed + 1, t),
                         RandomArray({s.L * D, s.N, R}, -1, 1, seed + 2, t)};
  if (s.mode == "lstm") v.push_back(RandomArray({s.L * D, s.N, s.H}, -1, 1, seed + 3, t));
  if (!s.seq_len.empty()) v.push_back(NDArray::FromVector(s.seq_len, {s.N}, cpu(), DType::kInt32));
  return v;
}

std::vector<int> RnnGradInputs(const RnnSpec& s) {
  std::vector<int> g{0, 1, 2};
  if (s.mode == "lstm") g.push_back(3);
  return g;
}

std::string Label(const RnnSpec& s) {
  std::string l = "(" + s.mode + ", L=" + std::to_string(s.L);
  if (s.bidir) l += ", bidirectional";
  if (s.state_outputs) l += ", state_outputs";
  if (s.proj) l += ", projection";
  if (!s.seq_len.empty()) l += ", sequence_length";
  if (s.p > 0) l += ", dropout";
  if (s.clip) l += ", clip";
  return l + ")";
}

int AddRnnCase(RnnSpec s, bool train = false) {
  return RegisterOpTestCase(
      {.op = "RNN",
       .attrs = RnnAttrs(s),
       .make_inputs = [s](DType t, uint64_t seed) { return RnnInputs(s, t, seed); },
       .grad_inputs = RnnGradInputs(s),
       .is_train = train,
       .grad_rtol = 1e-4,
       .grad_atol = 1e-6,
       .label = Label(s)});
}

[[maybe_unused]] const int kRnnCases[] = {
    AddRnnCase({.mode = "rnn_tanh"}),
    AddRnnCase({.mode = "rnn_relu", .state_outputs = true}),
    AddRnnCase({.mode = "lstm"}),
    AddRnnCase({.mode = "gru"}),
    AddRnnCase({.mode = "lstm", .H = 3, .L = 2, .bidir = true, .state_outputs = true}),
    AddRnnCase({.mode = "gru", .L = 2, .bidir = true, .state_outputs = true}),
    AddRnnCase({.mode = "rnn_tanh", .L = 2, .state_outputs = true}),
    AddRnnCase({.mode = "gru",
                .T = 4,
                .N = 3,
                .bidir = true,
                .state_outputs = true,
                .seq_len = {4, 1, 2}}),
    AddRnnCase({.mode = "lstm",
                .T = 4,
                .N = 2,
                .L = 2,
                .bidir = true,
                .state_outputs = true,
                .seq_len = {2, 4}}),
    AddRnnCase({.mode = "lstm", .H = 3, .L = 2, .bidir = true, .state_outputs = true, .proj = 2}),
    AddRnnCase({.mode = "lstm", .state_outputs = true, .clip = true}),
    AddRnnCase({.mode = "gru", .L = 3, .state_outputs = true, .p = 0.4}, /*train=*/true),
    AddRnnCase({.mode = "lstm", .L = 2, .p = 0.4}, /*train=*/false),
};

// _backward_RNN(data, parameters, state, state_cell, ograd, ograd_state, ograd_statecell).
MX_OP_TEST_CASE({.op = "_backward_RNN",
                 .attrs = {{"state_size", "2"},
                           {"num_layers", "1"},
                           {"mode", "lstm"},
                           {"state_outputs", "True"}},
                 .make_inputs =
                     [](DType t, uint64_t seed) {
                       RnnSpec s{.mode = "lstm"};
                       std::vector<NDArray> v = RnnInputs(s, t, seed);
                       v.push_back(RandomArray({3, 2, 2}, -1, 1, seed + 5, t));
                       v.push_back(RandomArray({1, 2, 2}, -1, 1, seed + 6, t));
                       v.push_back(RandomArray({1, 2, 2}, -1, 1, seed + 7, t));
                       return v;
                     },
                 .check_grad = false});

// ---- CTCLoss ----

NDArray Ints(std::vector<double> v, Shape s) {
  return NDArray::FromVector(v, s, cpu(), DType::kFloat32);
}

// data (T=5, N=3, A=4); labels for blank first (1..3, padded with 0) or last (0..2, pad -1).
auto CtcInputs(bool last, bool data_len, bool label_len) {
  return [=](DType t, uint64_t seed) {
    std::vector<NDArray> v{RandomArray({5, 3, 4}, -2, 2, seed, t)};
    if (!last)
      v.push_back(Ints({1, 2, 0, 3, 3, 1, 2, 0, 0}, {3, 3}));
    else
      v.push_back(Ints({0, 1, -1, 2, 2, 0, 1, -1, -1}, {3, 3}));
    if (data_len) v.push_back(Ints({5, 4, 2}, {3}));
    if (label_len) v.push_back(Ints({2, 2, 1}, {3}));
    return v;
  };
}

MX_OP_TEST_CASE({.op = "CTCLoss",
                 .make_inputs = CtcInputs(false, false, false),
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "CTCLoss",
                 .attrs = {{"blank_label", "last"}},
                 .make_inputs = CtcInputs(true, false, false),
                 .grad_inputs = {0},
                 .label = "(blank last)"});
MX_OP_TEST_CASE({.op = "ctc_loss",
                 .attrs = {{"use_data_lengths", "True"}, {"use_label_lengths", "True"}},
                 .make_inputs = CtcInputs(false, true, true),
                 .grad_inputs = {0},
                 .label = "(data and label lengths)"});
MX_OP_TEST_CASE({.op = "_backward_ctc_loss", .shapes = {{3}, {4, 3, 5}}, .check_grad = false});

}  // namespace
}  // namespace mxnet::testing
