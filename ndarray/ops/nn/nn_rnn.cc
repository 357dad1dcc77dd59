// The fused recurrent layer RNN (alias _npx_rnn) and its backward _backward_RNN, following MXNet
// 1.9.1 (src/operator/rnn.cc, rnn-inl.h, rnn_impl.h): modes rnn_relu, rnn_tanh, lstm (gates
// i, f, g, o; optional projection), gru (gates r, z, n; cuDNN's variant with the reset gate on
// U_n h + c_n), stacked layers, bidirectional, dropout between layers in train mode, final
// states, variable sequence lengths and LSTM cell-state clipping (cuDNN semantics).
//
// The forward computes one gemm X * W_i2h^T for all steps of a layer and direction, then one
// (N, R) x (R, G*H) gemm per step (oneDNN sgemm for float, blocked loops for double; 16-bit
// floats compute in float). Nothing is kept for the backward: _backward_RNN recomputes the
// forward with a tape (gates, states, layer inputs) and runs backpropagation through time. The
// only hidden output is the dropout mask (when p > 0 and num_layers > 1), so a recorded
// training forward and its backward see the same mask.
//
// Differences from MXNet 1.9.1's CPU build (documented, not pinned against MXNet):
//  - use_sequence_length and lstm_state_clip_*: MXNet's CPU float32 path ignores them and its
//    float64 path rejects them; we implement them as cuDNN does (their documented meaning).
//  - projection_size: MXNet's CPU build runs it only for inference with state_outputs=True
//    (it crashes without); ours also has state_outputs=False and the gradient.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include <omp.h>

#include "ndarray/grad.h"
#include "ndarray/ops/nn/nn_rnn_api.h"
#include "ndarray/ops/nn/nn_util.h"
#include "ndarray/random.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace mxnet::ops {

int RNNGates(const std::string& mode) {
  if (mode == "lstm") return 4;
  if (mode == "gru") return 3;
  if (mode == "rnn_relu" || mode == "rnn_tanh") return 1;
  return 0;
}

int64_t RNNParamSize(const RNNParam& p, int64_t input_size) {
  const int64_t G = RNNGates(p.mode), H = p.state_size, D = p.bidirectional ? 2 : 1;
  const int64_t P = p.projection_size.value_or(0), R = P ? P : H;
  int64_t total = 0;
  for (int l = 0; l < p.num_layers; ++l) {
    const int64_t I = l == 0 ? input_size : D * R;
    total += D * (G * H * I + G * H * R + P * H + 2 * G * H);
  }
  return total;
}

std::string RNNParam::Validate() const {
  if (state_size < 1) return StrCat("attribute state_size must be >= 1, got ", state_size);
  if (num_layers < 1) return StrCat("attribute num_layers must be >= 1, got ", num_layers);
  if (!(p >= 0 && p < 1)) return StrCat("attribute p (dropout) must be in [0, 1), got ", p);
  if (RNNGates(mode) == 0)
    return StrCat("attribute mode must be one of rnn_relu, rnn_tanh, lstm, gru, got '", mode, "'");
  if (projection_size) {
    if (mode != "lstm")
      return StrCat("attribute projection_size is only supported by mode='lstm', got mode='", mode,
                    "'");
    if (*projection_size < 1 || *projection_size > state_size)
      return StrCat("attribute projection_size must be in [1, state_size=", state_size, "], got ",
                    *projection_size);
  }
  if (lstm_state_clip_min || lstm_state_clip_max) {
    if (mode != "lstm") return "lstm_state_clip_min/max are only supported by mode='lstm'";
    if (!lstm_state_clip_min || !lstm_state_clip_max)
      return "lstm_state_clip_min and lstm_state_clip_max must be given together";
    if (!(*lstm_state_clip_max >= *lstm_state_clip_min))
      return StrCat("lstm_state_clip_max (", *lstm_state_clip_max,
                    ") must be >= lstm_state_clip_min (", *lstm_state_clip_min, ")");
  }
  return "";
}

namespace nn {
namespace {

constexpr const char* kRNN = "RNN";
constexpr const char* kBRNN = "_backward_RNN";

enum class Cell { kRelu, kTanh, kLstm, kGru };

// Sizes of one call.
struct Dims {
  int64_t T = 0, N = 0, C = 0;
  int L = 1, D = 1, H = 1, P = 0, R = 1, G = 1;
  Cell cell = Cell::kTanh;
  bool has_cell_state() const { return cell == Cell::kLstm; }
  int64_t GH() const { return int64_t{G} * H; }
  int64_t In(int l) const { return l == 0 ? C : int64_t{D} * R; }
};

Dims MakeDims(const RNNParam& p, const Shape& data) {
  Dims d;
  d.T = data[0], d.N = data[1], d.C = data[2];
  d.L = p.num_layers, d.D = p.bidirectional ? 2 : 1, d.H = p.state_size;
  d.P = p.projection_size.value_or(0), d.R = d.P ? d.P : d.H, d.G = RNNGates(p.mode);
  d.cell = p.mode == "lstm"       ? Cell::kLstm
           : p.mode == "gru"      ? Cell::kGru
           : p.mode == "rnn_relu" ? Cell::kRelu
                                  : Cell::kTanh;
  return d;
}

bool HasMask(const RNNParam& p) { return p.p > 0 && p.num_layers > 1; }
int NumForwardInputs(const RNNParam& p) {
  return 3 + (p.mode == "lstm" ? 1 : 0) + (p.use_sequence_length ? 1 : 0);
}
int NumVisibleOutputs(const RNNParam& p) {
  return p.state_outputs ? (p.mode == "lstm" ? 3 : 2) : 1;
}
int SeqLenIndex(const RNNParam& p) { return p.mode == "lstm" ? 4 : 3; }

std::vector<std::string> ForwardInputNames(const RNNParam& p) {
  std::vector<std::string> n{"data", "parameters", "state"};
  if (p.mode == "lstm") n.push_back("state_cell");
  if (p.use_sequence_length) n.push_back("sequence_length");
  return n;
}

// ---- gemm: C (M, Nn) = beta * C + op(A) (M, K) * op(B) (K, Nn), row-major. ----

void Gemm(bool ta, bool tb, int64_t M, int64_t Nn, int64_t K, const float* A, int64_t lda,
          const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  if (M == 0 || Nn == 0) return;
  // Small gemms (the per-step recurrent products) run on the calling thread: forking the
  // OpenMP team 2 * T times per layer costs more than it gains, most of all on a busy machine.
  struct Threads {
    int saved = omp_get_max_threads();
    explicit Threads(int n) { omp_set_num_threads(n); }
    ~Threads() { omp_set_num_threads(saved); }
  } threads(M * Nn * K < (int64_t{1} << 22) ? 1 : GetNumThreads());
  dnnl::status st =
      dnnl::sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', M, Nn, K, 1.0f, A, lda, B, ldb, beta, C, ldc);
  if (st != dnnl::status::success)
    MX_THROW(absl::StatusCode::kInternal, kRNN, ": oneDNN sgemm failed");
}

void Gemm(bool ta, bool tb, int64_t M, int64_t Nn, int64_t K, const double* A, int64_t lda,
          const double* B, int64_t ldb, double beta, double* C, int64_t ldc) {
  ParallelForRange(M, std::max<int64_t>(1, (int64_t{1} << 22) / std::max<int64_t>(1, Nn * K)),
                   [&](int64_t mb, int64_t me) {
                     std::vector<double> arow(K);
                     for (int64_t m = mb; m < me; ++m) {
                       double* c = C + m * ldc;
                       for (int64_t n = 0; n < Nn; ++n) c[n] = beta == 0 ? 0.0 : c[n] * beta;
                       for (int64_t k = 0; k < K; ++k)
                         arow[k] = ta ? A[k * lda + m] : A[m * lda + k];
                       if (tb) {
                         for (int64_t n = 0; n < Nn; ++n) {
                           const double* b = B + n * ldb;
                           double s = 0;
                           for (int64_t k = 0; k < K; ++k) s += arow[k] * b[k];
                           c[n] += s;
                         }
                       } else {
                         for (int64_t k = 0; k < K; ++k) {
                           const double a = arow[k];
                           if (a == 0) continue;
                           const double* b = B + k * ldb;
                           for (int64_t n = 0; n < Nn; ++n) c[n] += a * b[n];
                         }
                       }
                     }
                   });
}

template <typename CT>
std::vector<CT> Load(const NDArray& a) {
  std::vector<CT> v(a.size());
  MX_FLOAT_TYPE_SWITCH(a.dtype(), T, kRNN, {
    const T* p = a.data<T>();
    for (int64_t i = 0; i < a.size(); ++i) v[i] = static_cast<CT>(static_cast<AccType<T>>(p[i]));
  });
  return v;
}

template <typename CT>
void Store(const std::vector<CT>& v, const NDArray& a) {
  MX_FLOAT_TYPE_SWITCH(a.dtype(), T, kRNN, {
    T* p = a.data<T>();
    for (int64_t i = 0; i < a.size(); ++i) p[i] = static_cast<T>(static_cast<AccType<T>>(v[i]));
  });
}

template <typename CT>
inline CT Sigmoid(CT x) {
  return CT(1) / (CT(1) + std::exp(-x));
}

// Offsets of one layer/direction's weights and biases inside the flat parameter vector.
struct Slots {
  int64_t wx, wh, wr, bx, bh, I;
};
std::vector<Slots> LayerSlots(const Dims& d) {
  std::vector<Slots> s(static_cast<size_t>(d.L) * d.D);
  int64_t off = 0;
  for (int l = 0; l < d.L; ++l)
    for (int k = 0; k < d.D; ++k) {
      Slots& x = s[l * d.D + k];
      x.I = d.In(l);
      x.wx = off, off += d.GH() * x.I;
      x.wh = off, off += d.GH() * d.R;
      x.wr = off, off += int64_t{d.P} * d.H;
    }
  for (int l = 0; l < d.L; ++l)
    for (int k = 0; k < d.D; ++k) {
      Slots& x = s[l * d.D + k];
      x.bx = off, off += d.GH();
      x.bh = off, off += d.GH();
    }
  return s;
}

// What the backward needs from the forward, per layer and direction (index l * D + k).
template <typename CT>
struct Tape {
  std::vector<std::vector<CT>> act;    // (T, N, G*H) activated gates (rnn: the new h)
  std::vector<std::vector<CT>> hn;     // gru: U_n h + c_n (T, N, H)
  std::vector<std::vector<CT>> c;      // lstm: cell state after step t (T, N, H), clipped
  std::vector<std::vector<CT>> craw;   // lstm with clipping: before clipping
  std::vector<std::vector<CT>> hraw;   // lstmp: h before the projection (T, N, H)
  std::vector<std::vector<CT>> hprev;  // state entering step t (T, N, R)
  std::vector<std::vector<CT>> cprev;  // lstm: cell state entering step t (T, N, H)
  std::vector<std::vector<CT>> x;      // per layer: its input after dropout (T, N, In(l))
};

struct Clip {
  bool on = false, nan = false;
  double lo = 0, hi = 0;
};

template <typename CT>
inline CT ClipCell(const Clip& cl, CT v) {
  if (!cl.on) return v;
  if (std::isnan(v)) return cl.nan ? static_cast<CT>(cl.hi) : v;
  return std::min(std::max(v, static_cast<CT>(cl.lo)), static_cast<CT>(cl.hi));
}

// The forward pass. w: flat parameters; hx (L*D, N, R), cx (L*D, N, H); len: valid lengths or
// empty; mask (L-1, T, N, D*R) multiplied into the inputs of layers 1.. or empty. Writes y
// (T, N, D*R) and, when non-null, hy/cy; fills `tape` when non-null.
template <typename CT>
void RunForward(const Dims& d, const Clip& clip, const std::vector<CT>& x0, const CT* w,
                const CT* hx, const CT* cx, const std::vector<int64_t>& len,
                const std::vector<CT>& mask, std::vector<CT>* y, CT* hy, CT* cy, Tape<CT>* tape) {
  const int64_t T = d.T, N = d.N, H = d.H, R = d.R, GH = d.GH(), DR = int64_t{d.D} * R;
  const std::vector<Slots> slots = LayerSlots(d);
  std::vector<CT> xw(T * N * GH), hw(N * GH), h(N * R), c(N * H), hr, rr;
  if (d.P) hr.resize(N * H), rr.resize(N * d.P);
  std::vector<CT> layer_in = x0, out;
  if (tape) {
    const size_t n = slots.size();
    tape->act.assign(n, {}), tape->hn.assign(n, {}), tape->c.assign(n, {});
    tape->craw.assign(n, {}), tape->hraw.assign(n, {}), tape->hprev.assign(n, {});
    tape->cprev.assign(n, {}), tape->x.assign(d.L, {});
  }
  auto active = [&](int64_t t, int64_t n) { return len.empty() || t < len[n]; };
  for (int l = 0; l < d.L; ++l) {
    if (l > 0 && !mask.empty()) {
      const CT* m = mask.data() + (l - 1) * T * N * DR;
      for (int64_t i = 0; i < T * N * DR; ++i) layer_in[i] *= m[i];
    }
    out.assign(T * N * DR, CT(0));
    for (int k = 0; k < d.D; ++k) {
      const int idx = l * d.D + k;
      const Slots& s = slots[idx];
      const CT *wx = w + s.wx, *wh = w + s.wh, *wr = w + s.wr, *bx = w + s.bx, *bh = w + s.bh;
      Gemm(false, true, T * N, GH, s.I, layer_in.data(), s.I, wx, s.I, CT(0), xw.data(), GH);
      std::copy(hx + idx * N * R, hx + (idx + 1) * N * R, h.begin());
      if (d.has_cell_state()) std::copy(cx + idx * N * H, cx + (idx + 1) * N * H, c.begin());
      CT *t_act = nullptr, *t_hn = nullptr, *t_c = nullptr, *t_craw = nullptr, *t_hraw = nullptr,
         *t_hp = nullptr, *t_cp = nullptr;
      if (tape) {
        auto take = [&](std::vector<std::vector<CT>>& v, int64_t n) {
          v[idx].assign(n, CT(0));
          return v[idx].data();
        };
        t_act = take(tape->act, T * N * GH);
        t_hp = take(tape->hprev, T * N * R);
        if (d.cell == Cell::kGru) t_hn = take(tape->hn, T * N * H);
        if (d.cell == Cell::kLstm) {
          t_c = take(tape->c, T * N * H);
          t_cp = take(tape->cprev, T * N * H);
          if (clip.on) t_craw = take(tape->craw, T * N * H);
          if (d.P) t_hraw = take(tape->hraw, T * N * H);
        }
      }
      for (int64_t step = 0; step < T; ++step) {
        const int64_t t = k ? T - 1 - step : step;
        Gemm(false, true, N, GH, R, h.data(), R, wh, R, CT(0), hw.data(), GH);
        if (t_hp) std::copy(h.begin(), h.end(), t_hp + t * N * R);
        if (t_cp) std::copy(c.begin(), c.end(), t_cp + t * N * H);
        for (int64_t n = 0; n < N; ++n) {
          if (!active(t, n)) continue;
          const CT* a = xw.data() + (t * N + n) * GH;
          const CT* b = hw.data() + n * GH;
          CT* act = t_act ? t_act + (t * N + n) * GH : nullptr;
          CT* hn_out = d.P ? hr.data() + n * H : h.data() + n * R;
          for (int64_t j = 0; j < H; ++j) {
            switch (d.cell) {
              case Cell::kRelu:
              case Cell::kTanh: {
                const CT z = a[j] + b[j] + bx[j] + bh[j];
                const CT v = d.cell == Cell::kRelu ? std::max(z, CT(0)) : std::tanh(z);
                hn_out[j] = v;
                if (act) act[j] = v;
                break;
              }
              case Cell::kLstm: {
                const CT gi = Sigmoid(a[j] + b[j] + bx[j] + bh[j]);
                const CT gf = Sigmoid(a[H + j] + b[H + j] + bx[H + j] + bh[H + j]);
                const CT gg =
                    std::tanh(a[2 * H + j] + b[2 * H + j] + bx[2 * H + j] + bh[2 * H + j]);
                const CT go = Sigmoid(a[3 * H + j] + b[3 * H + j] + bx[3 * H + j] + bh[3 * H + j]);
                const CT craw = gf * c[n * H + j] + gi * gg;
                const CT cn = ClipCell(clip, craw);
                c[n * H + j] = cn;
                hn_out[j] = go * std::tanh(cn);
                if (act) {
                  act[j] = gi, act[H + j] = gf, act[2 * H + j] = gg, act[3 * H + j] = go;
                  t_c[(t * N + n) * H + j] = cn;
                  if (t_craw) t_craw[(t * N + n) * H + j] = craw;
                }
                break;
              }
              case Cell::kGru: {
                const CT gr = Sigmoid(a[j] + b[j] + bx[j] + bh[j]);
                const CT gz = Sigmoid(a[H + j] + b[H + j] + bx[H + j] + bh[H + j]);
                const CT hn = b[2 * H + j] + bh[2 * H + j];
                const CT gn = std::tanh(a[2 * H + j] + bx[2 * H + j] + gr * hn);
                hn_out[j] = (CT(1) - gz) * gn + gz * h[n * R + j];
                if (act) {
                  act[j] = gr, act[H + j] = gz, act[2 * H + j] = gn;
                  t_hn[(t * N + n) * H + j] = hn;
                }
                break;
              }
            }
          }
        }
        if (d.P) {  // r = W_hr h for the active samples
          if (t_hraw) std::copy(hr.begin(), hr.end(), t_hraw + t * N * H);
          Gemm(false, true, N, d.P, H, hr.data(), H, wr, H, CT(0), rr.data(), d.P);
          for (int64_t n = 0; n < N; ++n)
            if (active(t, n))
              std::copy(rr.begin() + n * R, rr.begin() + (n + 1) * R, h.begin() + n * R);
        }
        for (int64_t n = 0; n < N; ++n)
          if (active(t, n))
            std::copy(h.begin() + n * R, h.begin() + (n + 1) * R,
                      out.begin() + (t * N + n) * DR + k * R);
      }
      if (hy) std::copy(h.begin(), h.end(), hy + idx * N * R);
      if (cy && d.has_cell_state()) std::copy(c.begin(), c.end(), cy + idx * N * H);
    }
    if (tape) tape->x[l] = std::move(layer_in);
    layer_in = std::move(out);
  }
  *y = std::move(layer_in);
}

// Backpropagation through time. dy (T, N, D*R); dhy/dcy may be null. Accumulates into dw
// (zeroed by the caller); writes dx (T, N, C), dhx, dcx.
template <typename CT>
void RunBackward(const Dims& d, const Clip& clip, const CT* w, const std::vector<int64_t>& len,
                 const std::vector<CT>& mask, const Tape<CT>& tape, std::vector<CT> dy,
                 const CT* dhy, const CT* dcy, CT* dw, std::vector<CT>* dx, CT* dhx, CT* dcx) {
  const int64_t T = d.T, N = d.N, H = d.H, R = d.R, GH = d.GH(), DR = int64_t{d.D} * R;
  const std::vector<Slots> slots = LayerSlots(d);
  auto active = [&](int64_t t, int64_t n) { return len.empty() || t < len[n]; };
  std::vector<CT> dxw(T * N * GH), dhw(T * N * GH), dh(N * R), dc(N * H), dr(N * R), dhp(N * R),
      dhraw;
  if (d.P) dhraw.resize(N * H);
  for (int l = d.L - 1; l >= 0; --l) {
    const int64_t I = d.In(l);
    const std::vector<CT>& xin = tape.x[l];
    std::vector<CT> dxin(T * N * I, CT(0));
    for (int k = 0; k < d.D; ++k) {
      const int idx = l * d.D + k;
      const Slots& s = slots[idx];
      const CT *wx = w + s.wx, *wh = w + s.wh, *wr = w + s.wr;
      const CT* act = tape.act[idx].data();
      const CT* hp = tape.hprev[idx].data();
      std::fill(dh.begin(), dh.end(), CT(0));
      std::fill(dc.begin(), dc.end(), CT(0));
      if (dhy) std::copy(dhy + idx * N * R, dhy + (idx + 1) * N * R, dh.begin());
      if (dcy && d.has_cell_state())
        std::copy(dcy + idx * N * H, dcy + (idx + 1) * N * H, dc.begin());
      std::fill(dxw.begin(), dxw.end(), CT(0));
      std::fill(dhw.begin(), dhw.end(), CT(0));
      for (int64_t step = T - 1; step >= 0; --step) {
        const int64_t t = k ? T - 1 - step : step;
        for (int64_t n = 0; n < N; ++n)
          for (int64_t j = 0; j < R; ++j)
            dr[n * R + j] = active(t, n) ? dy[(t * N + n) * DR + k * R + j] + dh[n * R + j] : CT(0);
        const CT* dhv = dr.data();  // gradient w.r.t. the cell's h (before any projection)
        int64_t ldh = R;
        if (d.P) {
          Gemm(false, false, N, H, d.P, dr.data(), d.P, wr, H, CT(0), dhraw.data(), H);
          Gemm(true, false, d.P, H, N, dr.data(), d.P, tape.hraw[idx].data() + t * N * H, H, CT(1),
               dw + s.wr, H);
          dhv = dhraw.data(), ldh = H;
        }
        for (int64_t n = 0; n < N; ++n) {
          if (!active(t, n)) continue;
          const CT* g = act + (t * N + n) * GH;
          CT* ax = dxw.data() + (t * N + n) * GH;
          CT* ah = dhw.data() + (t * N + n) * GH;
          for (int64_t j = 0; j < H; ++j) {
            const CT gh = dhv[n * ldh + j];
            switch (d.cell) {
              case Cell::kRelu:
                ax[j] = ah[j] = g[j] > CT(0) ? gh : CT(0);
                break;
              case Cell::kTanh:
                ax[j] = ah[j] = gh * (CT(1) - g[j] * g[j]);
                break;
              case Cell::kLstm: {
                const CT gi = g[j], gf = g[H + j], gg = g[2 * H + j], go = g[3 * H + j];
                const int64_t ci = (t * N + n) * H + j;
                const CT cn = tape.c[idx][ci], tc = std::tanh(cn);
                CT dcell = dc[n * H + j] + gh * go * (CT(1) - tc * tc);
                if (clip.on) {
                  const CT raw = tape.craw[idx][ci];
                  if (std::isnan(raw) || raw < static_cast<CT>(clip.lo) ||
                      raw > static_cast<CT>(clip.hi))
                    dcell = CT(0);
                }
                const CT cp = tape.cprev[idx][ci];
                ax[j] = dcell * gg * gi * (CT(1) - gi);
                ax[H + j] = dcell * cp * gf * (CT(1) - gf);
                ax[2 * H + j] = dcell * gi * (CT(1) - gg * gg);
                ax[3 * H + j] = gh * tc * go * (CT(1) - go);
                for (int q = 0; q < 4; ++q) ah[q * H + j] = ax[q * H + j];
                dc[n * H + j] = dcell * gf;
                break;
              }
              case Cell::kGru: {
                const CT gr = g[j], gz = g[H + j], gn = g[2 * H + j];
                const CT hprev = hp[(t * N + n) * R + j];
                const CT hn = tape.hn[idx][(t * N + n) * H + j];
                const CT dn = gh * (CT(1) - gz) * (CT(1) - gn * gn);
                const CT dz = gh * (hprev - gn) * gz * (CT(1) - gz);
                const CT drr = dn * hn * gr * (CT(1) - gr);
                ax[j] = ah[j] = drr;
                ax[H + j] = ah[H + j] = dz;
                ax[2 * H + j] = dn;
                ah[2 * H + j] = dn * gr;
                break;
              }
            }
          }
        }
        // dh_prev = dHW * W_h2h (+ z * dh for gru), for the active samples.
        Gemm(false, false, N, R, GH, dhw.data() + t * N * GH, GH, wh, R, CT(0), dhp.data(), R);
        for (int64_t n = 0; n < N; ++n) {
          if (!active(t, n)) continue;
          for (int64_t j = 0; j < R; ++j) {
            CT v = dhp[n * R + j];
            if (d.cell == Cell::kGru) v += dr[n * R + j] * act[(t * N + n) * GH + H + j];
            dh[n * R + j] = v;
          }
        }
      }
      if (dhx) std::copy(dh.begin(), dh.end(), dhx + idx * N * R);
      if (dcx && d.has_cell_state()) std::copy(dc.begin(), dc.end(), dcx + idx * N * H);
      // Parameter gradients over all steps at once.
      Gemm(true, false, GH, s.I, T * N, dxw.data(), GH, xin.data(), s.I, CT(1), dw + s.wx, s.I);
      Gemm(true, false, GH, R, T * N, dhw.data(), GH, hp, R, CT(1), dw + s.wh, R);
      CT *dbx = dw + s.bx, *dbh = dw + s.bh;
      for (int64_t i = 0; i < T * N; ++i)
        for (int64_t j = 0; j < GH; ++j) dbx[j] += dxw[i * GH + j], dbh[j] += dhw[i * GH + j];
      Gemm(false, false, T * N, I, GH, dxw.data(), GH, wx, I, CT(1), dxin.data(), I);
    }
    if (l > 0) {
      if (!mask.empty()) {
        const CT* m = mask.data() + (l - 1) * T * N * DR;
        for (int64_t i = 0; i < T * N * DR; ++i) dxin[i] *= m[i];
      }
      dy = std::move(dxin);
    } else {
      *dx = std::move(dxin);
    }
  }
}

std::vector<int64_t> Lengths(const RNNParam& p, const Dims& d, std::span<const NDArray> in) {
  if (!p.use_sequence_length) return {};
  std::vector<double> v = in[SeqLenIndex(p)].ToVector<double>();
  std::vector<int64_t> len(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    if (!(v[i] >= 0 && v[i] <= static_cast<double>(d.T)))
      MX_THROW(absl::StatusCode::kInvalidArgument, kRNN, ": sequence_length[", i, "] = ", v[i],
               " is out of range [0, ", d.T, "] (T = data.shape[0])");
    len[i] = static_cast<int64_t>(v[i]);
  }
  return len;
}

Clip ClipOf(const RNNParam& p) {
  Clip c;
  c.on = p.lstm_state_clip_min.has_value() && p.lstm_state_clip_max.has_value();
  if (c.on) c.lo = *p.lstm_state_clip_min, c.hi = *p.lstm_state_clip_max;
  c.nan = p.lstm_state_clip_nan;
  return c;
}

// ---- shape and type inference ----

void RNNShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const auto& p = attrs.get<RNNParam>();
  const Shape& ds = (*in)[0];
  const int64_t D = p.bidirectional ? 2 : 1, H = p.state_size;
  const int64_t R = p.projection_size.value_or(H), LD = D * p.num_layers;
  if (ds.ndim_known() && ds.ndim() != 3)
    MX_THROW(absl::StatusCode::kInvalidArgument, kRNN,
             ": data must be 3-D (sequence length, batch, input size) in layout TNC, got ",
             ds.ToString());
  const int64_t T = ds.ndim_known() ? ds[0] : -1, C = ds.ndim_known() ? ds[2] : -1;
  int64_t N = ds.ndim_known() ? ds[1] : -1;
  if (N < 0 && (*in)[2].ndim_known() && (*in)[2].ndim() == 3) N = (*in)[2][1];
  auto check = [&](int i, const char* name, const Shape& want) {
    Shape& s = (*in)[i];
    if (s.ndim_known() && s.ndim() == want.ndim()) {
      bool ok = true;
      for (int k = 0; k < want.ndim(); ++k) ok &= s[k] < 0 || want[k] < 0 || s[k] == want[k];
      if (ok) {
        MergeShape(&s, want, StrCat(kRNN, ": input ", name));
        return;
      }
    } else if (!s.ndim_known()) {
      s = want;
      return;
    }
    std::string why =
        i == 1 ? StrCat(" (the flat parameter vector of mode=", p.mode,
                        ", num_layers=", p.num_layers, ", state_size=", H,
                        p.bidirectional ? ", bidirectional" : "", ", input size ", C, ")")
               : "";
    MX_THROW(absl::StatusCode::kInvalidArgument, kRNN, ": input ", name, " has shape ",
             s.ToString(), ", expected ", want.ToString(), why);
  };
  if (C >= 0) check(1, "parameters", Shape{RNNParamSize(p, C)});
  check(2, "state", Shape{LD, N, R});
  if (p.mode == "lstm") check(3, "state_cell", Shape{LD, N, H});
  if (p.use_sequence_length) check(SeqLenIndex(p), "sequence_length", Shape{N});
  (*out)[0] = Shape{T, N, D * R};
  int o = 1;
  if (p.state_outputs) {
    (*out)[o++] = Shape{LD, N, R};
    if (p.mode == "lstm") (*out)[o++] = Shape{LD, N, H};
  }
  if (HasMask(p)) (*out)[o++] = Shape{p.num_layers - 1, T, N, D * R};
}

void RNNType(const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
  const auto& p = attrs.get<RNNParam>();
  const std::vector<std::string> names = ForwardInputNames(p);
  int t = (*in)[0];
  for (size_t i = 0; i < names.size(); ++i) {
    if (p.use_sequence_length && static_cast<int>(i) == SeqLenIndex(p)) continue;
    if (t < 0) t = (*in)[i];
  }
  if (t >= 0) RequireFloat(kRNN, "data", static_cast<DType>(t));
  for (size_t i = 0; i < names.size(); ++i) {
    if (p.use_sequence_length && static_cast<int>(i) == SeqLenIndex(p)) {
      if ((*in)[i] == DTypeFlag(DType::kBool))
        MX_THROW(absl::StatusCode::kInvalidArgument, kRNN,
                 ": input sequence_length must be numeric, got bool");
      continue;
    }
    MergeType(&(*in)[i], t, StrCat(kRNN, ": input ", names[i]));
  }
  for (auto& o : *out) o = t;
}

// ---- kernels ----

template <typename CT>
void ForwardImpl(const OpContext& ctx, const RNNParam& p, std::span<const NDArray> in,
                 std::span<const NDArray> out) {
  const Dims d = MakeDims(p, in[0].shape());
  const std::vector<int64_t> len = Lengths(p, d, in);
  std::vector<CT> mask;
  if (HasMask(p)) {
    const NDArray& m = out[NumVisibleOutputs(p)];
    mask.assign(m.size(), CT(1));
    if (ctx.is_train) {
      const double keep = 1.0 - static_cast<double>(p.p);
      random::GeneratorGuard g(ctx.device);
      for (auto& v : mask) {
        const double u = static_cast<double>(g.gen()() >> 11) * 0x1.0p-53;  // uniform [0, 1)
        v = u < keep ? static_cast<CT>(1.0 / keep) : CT(0);
      }
    }
    Store(mask, m);
    if (!ctx.is_train) mask.clear();
  }
  const std::vector<CT> x = Load<CT>(in[0]), w = Load<CT>(in[1]), hx = Load<CT>(in[2]);
  std::vector<CT> cx;
  if (d.has_cell_state()) cx = Load<CT>(in[3]);
  std::vector<CT> y, hy, cy;
  if (p.state_outputs) {
    hy.resize(out[1].size());
    if (d.has_cell_state()) cy.resize(out[2].size());
  }
  RunForward<CT>(d, ClipOf(p), x, w.data(), hx.data(), cx.data(), len, mask, &y,
                 hy.empty() ? nullptr : hy.data(), cy.empty() ? nullptr : cy.data(), nullptr);
  Store(y, out[0]);
  if (p.state_outputs) {
    Store(hy, out[1]);
    if (d.has_cell_state()) Store(cy, out[2]);
  }
}

void RNNRef(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
            std::span<const NDArray> out) {
  const auto& p = attrs.get<RNNParam>();
  if (in[0].dtype() == DType::kFloat64)
    ForwardImpl<double>(ctx, p, in, out);
  else
    ForwardImpl<float>(ctx, p, in, out);
}

// _backward_RNN inputs: the forward's inputs, [mask], dout, [dhy, [dcy]] (with state_outputs).
int BackwardNumInputs(const RNNParam& p) {
  return NumForwardInputs(p) + (HasMask(p) ? 1 : 0) + NumVisibleOutputs(p);
}

template <typename CT>
void BackwardImpl(const RNNParam& p, std::span<const NDArray> in, std::span<const NDArray> out) {
  const Dims d = MakeDims(p, in[0].shape());
  const std::vector<int64_t> len = Lengths(p, d, in);
  int i = NumForwardInputs(p);
  std::vector<CT> mask;
  if (HasMask(p)) mask = Load<CT>(in[i++]);
  const std::vector<CT> dy = Load<CT>(in[i++]);
  std::vector<CT> dhy, dcy;
  if (p.state_outputs) {
    dhy = Load<CT>(in[i++]);
    if (d.has_cell_state()) dcy = Load<CT>(in[i++]);
  }
  const std::vector<CT> x = Load<CT>(in[0]), w = Load<CT>(in[1]), hx = Load<CT>(in[2]);
  std::vector<CT> cx;
  if (d.has_cell_state()) cx = Load<CT>(in[3]);
  const Clip clip = ClipOf(p);
  Tape<CT> tape;
  std::vector<CT> y;
  RunForward<CT>(d, clip, x, w.data(), hx.data(), cx.data(), len, mask, &y, nullptr, nullptr,
                 &tape);
  std::vector<CT> dw(w.size(), CT(0)), dx, dhx(hx.size()), dcx(cx.size());
  RunBackward<CT>(d, clip, w.data(), len, mask, tape, dy, dhy.empty() ? nullptr : dhy.data(),
                  dcy.empty() ? nullptr : dcy.data(), dw.data(), &dx, dhx.data(), dcx.data());
  Store(dx, out[0]);
  Store(dw, out[1]);
  Store(dhx, out[2]);
  if (d.has_cell_state()) Store(dcx, out[3]);
}

void BackwardRNNRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                    std::span<const NDArray> out) {
  const auto& p = attrs.get<RNNParam>();
  if (in[0].dtype() == DType::kFloat64)
    BackwardImpl<double>(p, in, out);
  else
    BackwardImpl<float>(p, in, out);
}

std::vector<GradValue> RNNGrad(GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue> in,
                               std::span<const GradValue> out, std::span<const GradValue> og) {
  const auto& p = attrs.get<RNNParam>();
  const int nin = NumForwardInputs(p), nvis = NumVisibleOutputs(p);
  std::vector<GradValue> args(in.begin(), in.begin() + nin);
  if (HasMask(p)) args.push_back(out[nvis]);
  for (int k = 0; k < nvis; ++k) args.push_back(og[k].valid() ? og[k] : b.ZerosLike(out[k]));
  const Op& bw = OpRegistry::Get(kBRNN);
  std::vector<GradValue> g = b.Apply(bw, OpAttrs::From(bw, p), args);
  std::vector<GradValue> r(g.begin(), g.end());
  if (p.use_sequence_length) r.push_back(GradValue{});
  return r;
}

MX_REGISTER_OP(RNN)
    .describe(
        "Fused multi-layer recurrent layer (rnn_relu, rnn_tanh, lstm, gru; optionally "
        "bidirectional) over data (T, N, C) with one flat parameter vector; outputs (T, N, "
        "D*state_size) and, with state_outputs, the final hidden (and cell) states.")
    .add_alias("_npx_rnn")
    .set_params<RNNParam>()
    .set_num_inputs([](const OpAttrs& a) { return NumForwardInputs(a.get<RNNParam>()); })
    .set_input_names([](const OpAttrs& a) { return ForwardInputNames(a.get<RNNParam>()); })
    .set_num_outputs([](const OpAttrs& a) {
      const auto& p = a.get<RNNParam>();
      return NumVisibleOutputs(p) + (HasMask(p) ? 1 : 0);
    })
    .set_num_visible_outputs([](const OpAttrs& a) { return NumVisibleOutputs(a.get<RNNParam>()); })
    .set_output_names(std::vector<std::string>{"output", "state_output", "statecell_output",
                                               "mask"})
    .set_infer_shape(RNNShape)
    .set_infer_type(RNNType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, RNNRef)
    .set_gradient(RNNGrad, true, true);

MX_REGISTER_OP(_backward_RNN)
    .describe(
        "Gradients of RNN w.r.t. data, parameters, state (and state_cell) by backpropagation "
        "through time, from the forward's inputs, its dropout mask and the head gradients "
        "(internal).")
    .set_params<RNNParam>()
    .set_num_inputs([](const OpAttrs& a) { return BackwardNumInputs(a.get<RNNParam>()); })
    .set_input_names([](const OpAttrs& a) {
      const auto& p = a.get<RNNParam>();
      std::vector<std::string> n = ForwardInputNames(p);
      if (HasMask(p)) n.push_back("mask");
      n.push_back("ograd");
      if (p.state_outputs) {
        n.push_back("ograd_state");
        if (p.mode == "lstm") n.push_back("ograd_statecell");
      }
      return n;
    })
    .set_num_outputs([](const OpAttrs& a) { return a.get<RNNParam>().mode == "lstm" ? 4 : 3; })
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const auto& p = attrs.get<RNNParam>();
      const int nin = NumForwardInputs(p);
      ShapeVec fin(in->begin(), in->begin() + nin);
      ShapeVec fout(NumVisibleOutputs(p) + (HasMask(p) ? 1 : 0), Shape::Unknown());
      RNNShape(attrs, &fin, &fout);
      for (int i = 0; i < nin; ++i) (*in)[i] = fin[i];
      // The rest of the inputs: [mask], then one head gradient per visible output.
      const int nvis = NumVisibleOutputs(p);
      std::vector<Shape> want;
      if (HasMask(p)) want.push_back(fout[nvis]);
      for (int k = 0; k < nvis; ++k) want.push_back(fout[k]);
      for (size_t k = nin; k < in->size(); ++k)
        MergeShape(&(*in)[k], want[k - nin], StrCat(kBRNN, ": input ", k));
      for (size_t k = 0; k < out->size(); ++k) (*out)[k] = fin[k];
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      for (auto& o : *out) o = (*in)[0];
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, BackwardRNNRef)
    .set_non_differentiable();

}  // namespace
}  // namespace nn
}  // namespace mxnet::ops

namespace mxnet::nd {

NDArrayVec RNN(const NDArray& data, const NDArray& parameters, const NDArray& state,
               const NDArray& state_cell, const NDArray& sequence_length, RNNOptions opts) {
  const Op& op = MX_ND_OP(RNN);
  opts.use_sequence_length = !sequence_length.is_none();
  if ((opts.mode == "lstm") == state_cell.is_none())
    MX_THROW(absl::StatusCode::kInvalidArgument, "RNN: input state_cell is ",
             opts.mode == "lstm" ? "required by mode='lstm'" : "only taken by mode='lstm'",
             " (mode='", opts.mode, "')");
  std::vector<NDArray> in{data, parameters, state};
  if (!state_cell.is_none()) in.push_back(state_cell);
  if (opts.use_sequence_length) in.push_back(sequence_length);
  const OpAttrs attrs = OpAttrs::From(op, opts);
  NDArrayVec out = Invoke(op, attrs, in);
  out.resize(op.NumVisibleOutputs(attrs));
  return out;
}

NDArrayVec RNN(const NDArray& data, const NDArray& parameters, const NDArray& state,
               const NDArray& state_cell, const RNNOptions& opts) {
  return RNN(data, parameters, state, state_cell, NDArray(), opts);
}

NDArrayVec RNN(const NDArray& data, const NDArray& parameters, const NDArray& state,
               const RNNOptions& opts) {
  return RNN(data, parameters, state, NDArray(), NDArray(), opts);
}

}  // namespace mxnet::nd
