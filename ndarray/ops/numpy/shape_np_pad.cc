// MXNet 1.9.1's mx.np.pad as an op, with numpy.pad's semantics:
//   _npi_pad (data; pad_width, mode='constant', constant_value=0, reflect_type='even'):
//     data (d_0, ..., d_{n-1}) -> (d_i + before_i + after_i). pad_width "((b0, a0), (b1, a1), ...)"
//     (one pair per axis), "((b, a),)" or "(b, a)" (the same pair for every axis), "(p,)" or "p"
//     (before = after = p). Modes: constant (constant_value cast to the dtype), edge, reflect,
//     symmetric (mirror without / with the edge; pads wider than the axis repeat the reflection;
//     reflect_type 'odd' gives 2 * edge - mirrored), maximum, minimum (of the whole axis). Axes are
//     padded in order, later axes reading the earlier padding (NumPy's corners).
//     Any dtype; out dtype = in dtype.
//   Gradient: mode 'constant' only (the interior of the head gradient), as MXNet
//   (_backward_npi_pad); other modes fail at backward time with a clear error, as MXNet's
//   "Other modes are not supported".
// Where MXNet 1.9.1 differs we follow NumPy (tools/conformance/refs_np_pad.py keeps MXNet's right
// calls): its op rejects the short pad_width forms its own documentation lists (index check) and
// ignores reflect_type='odd'.
// Source: src/operator/numpy/np_pad_op-inl.h, np_pad_op.cc; numpy.pad's documentation and
// numpy/lib/arraypad.py's algorithm (read for semantics).
#include <algorithm>
#include <cctype>
#include <cstring>

#include "ndarray/grad.h"
#include "ndarray/ops/core/shape_util.h"
#include "ndarray/params.h"

namespace mxnet::ops {
namespace {

using namespace shape_internal;
using Grads = std::vector<GradValue>;
using GV = std::span<const GradValue>;

// MXNet's NumpyPadParam; pad_width kept as its text (a tuple of tuples), parsed per call.
struct NpPadParam {
  std::string pad_width;
  std::string mode = "constant";
  double constant_value = 0;
  std::string reflect_type = "even";
  template <class D>
  static void Declare(D& d) {
    d.field("pad_width", &NpPadParam::pad_width)
        .required()
        .describe(
            "((before_0, after_0), ...), ((before, after),), (before, after), (pad,) or pad.");
    d.field("mode", &NpPadParam::mode)
        .choices({"constant", "edge", "maximum", "minimum", "reflect", "symmetric"})
        .describe("numpy.pad's mode.");
    d.field("constant_value", &NpPadParam::constant_value).describe("Value of mode 'constant'.");
    d.field("reflect_type", &NpPadParam::reflect_type)
        .choices({"even", "odd"})
        .describe("'even' (plain mirror) or 'odd' (2 * edge - mirror) for reflect/symmetric.");
  }
};

// (before, after) per axis of an ndim-d input.
std::vector<std::pair<int64_t, int64_t>> PadPairs(const OpAttrs& a, int ndim) {
  const std::string& s = a.get<NpPadParam>().pad_width;
  std::vector<int64_t> nums;
  int depth = 0, max_depth = 0;
  for (size_t i = 0; i < s.size();) {
    char c = s[i];
    if (c == '(' || c == '[') {
      max_depth = std::max(max_depth, ++depth);
      ++i;
    } else if (c == ')' || c == ']') {
      --depth;
      ++i;
    } else if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i + 1;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      nums.push_back(std::stoll(s.substr(i, j - i)));
      i = j;
    } else if (c == ',' || c == ' ' || c == 'L') {
      ++i;
    } else {
      Fail(a, "cannot parse pad_width '", s, "'");
    }
  }
  if (nums.empty()) Fail(a, "pad_width '", s, "' is empty");
  for (int64_t v : nums)
    if (v < 0) Fail(a, "pad_width '", s, "' has a negative width");
  std::vector<std::pair<int64_t, int64_t>> r;
  if (max_depth >= 2) {  // pairs
    if (nums.size() % 2) Fail(a, "pad_width '", s, "' must hold (before, after) pairs");
    for (size_t i = 0; i < nums.size(); i += 2) r.push_back({nums[i], nums[i + 1]});
    if (r.size() == 1) r.assign(ndim, r[0]);
  } else if (nums.size() == 1) {
    r.assign(ndim, {nums[0], nums[0]});
  } else if (nums.size() == 2) {
    r.assign(ndim, {nums[0], nums[1]});
  } else {
    Fail(a, "pad_width '", s, "' must be pairs per axis, one pair, or one width");
  }
  if (static_cast<int>(r.size()) != ndim)
    Fail(a, "pad_width '", s, "' has ", r.size(), " pairs for an input of ", ndim, " dimensions");
  return r;
}

Shape PadShape(const OpAttrs& a, const Shape& x) {
  auto pairs = PadPairs(a, x.ndim());
  Shape o = x;
  const auto& p = a.get<NpPadParam>();
  for (int i = 0; i < x.ndim(); ++i) {
    if (x[i] == 0 && p.mode != "constant" && (pairs[i].first || pairs[i].second))
      Fail(a, "cannot pad an empty axis ", i, " with mode '", p.mode, "'");
    o[i] = x[i] + pairs[i].first + pairs[i].second;
  }
  return o;
}

// Pads one line (stride `st` elements) whose interior [b, b + n) is set: NumPy's algorithm.
template <typename T>
void PadLine(T* v, int64_t st, int64_t n, int64_t b, int64_t e, const NpPadParam& p, T cval) {
  auto at = [&](int64_t i) -> T& { return v[i * st]; };
  int64_t len = b + n + e;
  const std::string& m = p.mode;
  if (m == "constant") {
    for (int64_t i = 0; i < b; ++i) at(i) = cval;
    for (int64_t i = b + n; i < len; ++i) at(i) = cval;
  } else if (m == "edge") {
    for (int64_t i = 0; i < b; ++i) at(i) = at(b);
    for (int64_t i = b + n; i < len; ++i) at(i) = at(b + n - 1);
  } else if (m == "maximum" || m == "minimum") {
    T s = at(b);
    for (int64_t i = b; i < b + n; ++i)
      s = m == "maximum" ? std::max(s, at(i)) : std::min(s, at(i));
    for (int64_t i = 0; i < b; ++i) at(i) = s;
    for (int64_t i = b + n; i < len; ++i) at(i) = s;
  } else {  // reflect / symmetric: chunks mirrored from the filled part, growing each round
    bool edge = m == "symmetric", odd = p.reflect_type == "odd";
    if (!edge && n == 1) {  // NumPy: reflecting a single value repeats it
      for (int64_t i = 0; i < len; ++i) at(i) = at(b);
      return;
    }
    int64_t lp = b, rp = e;
    while (lp > 0 || rp > 0) {
      int64_t old = len - lp - rp - (edge ? 0 : 1);
      if (lp > 0) {
        int64_t chunk = std::min(old, lp), stop = lp - (edge ? 1 : 0);
        T ev = at(lp);
        for (int64_t k = 0; k < chunk; ++k) {  // padded[lp - 1 - k] = padded[stop + 1 + k]
          T x = at(stop + chunk - k);
          at(lp - chunk + k) = odd ? static_cast<T>(2 * ev - x) : x;
        }
        lp -= chunk;
      }
      if (rp > 0) {
        int64_t chunk = std::min(old, rp);
        int64_t start = len - rp + (edge ? 1 : 0) - 2;  // mirror source, right to left
        T ev = at(len - rp - 1);
        for (int64_t k = 0; k < chunk; ++k) {
          T x = at(start - k);
          at(len - rp + k) = odd ? static_cast<T>(2 * ev - x) : x;
        }
        rp -= chunk;
      }
    }
  }
}

void PadKernel(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
               std::span<const NDArray> out) {
  const NpPadParam& p = a.get<NpPadParam>();
  const Shape& xs = in[0].shape();
  const Shape& os = out[0].shape();
  int nd = xs.ndim();
  auto pairs = PadPairs(a, nd);
  if (os.Size() == 0) return;
  size_t es = DTypeSize(in[0].dtype());
  // The input into the interior of the output.
  std::vector<int64_t> ostr = Strides(os), off(nd, 0);
  int64_t base = 0;
  for (int i = 0; i < nd; ++i) base += pairs[i].first * ostr[i];
  if (xs.Size() > 0) {
    std::vector<int64_t> dims = xs.ToVector();
    StridedCopy(ElemPtr(out[0].data_ptr(), base, es), in[0].data_ptr(), es, dims, ostr,
                Strides(xs));
  }
  // Axis by axis: lines along axis k over the already padded axes < k and the interior of > k.
  MX_DTYPE_SWITCH(in[0].dtype(), T, {
    T* o = static_cast<T*>(out[0].data_ptr());
    T cval = static_cast<T>(p.constant_value);
    for (int k = 0; k < nd; ++k) {
      if (pairs[k].first == 0 && pairs[k].second == 0) continue;
      // Ranges of the other axes: full (padded) for < k, interior for > k.
      std::vector<int64_t> lo(nd), cnt(nd);
      for (int i = 0; i < nd; ++i) {
        lo[i] = i < k ? 0 : pairs[i].first;
        cnt[i] = i < k ? os[i] : xs[i];
      }
      cnt[k] = 1;
      lo[k] = 0;
      int64_t lines = 1;
      for (int i = 0; i < nd; ++i) lines *= cnt[i];
      for (int64_t l = 0; l < lines; ++l) {
        int64_t r = l, pos = 0;
        for (int i = nd - 1; i >= 0; --i) {
          pos += (lo[i] + r % cnt[i]) * ostr[i];
          r /= cnt[i];
        }
        PadLine<T>(o + pos, ostr[k], xs[k], pairs[k].first, pairs[k].second, p, cval);
      }
    }
  });
}

// (ograd padded) -> its interior, the gradient of mode 'constant'.
void PadBackwardKernel(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                       std::span<const NDArray> out) {
  const Shape& gs = in[0].shape();
  const Shape& xs = out[0].shape();
  auto pairs = PadPairs(a, xs.ndim());
  if (xs.Size() == 0) return;
  size_t es = DTypeSize(in[0].dtype());
  std::vector<int64_t> gstr = Strides(gs);
  int64_t base = 0;
  for (int i = 0; i < xs.ndim(); ++i) base += pairs[i].first * gstr[i];
  std::vector<int64_t> dims = xs.ToVector();
  StridedCopy(out[0].data_ptr(), ElemPtr(in[0].data_ptr(), base, es), es, dims, Strides(xs), gstr);
}

void PadType(const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
  MergeType(&(*out)[0], (*in)[0], StrCat(OpName(a), ": output"));
  MergeType(&(*in)[0], (*out)[0], StrCat(OpName(a), ": input"));
}

MX_REGISTER_OP(_npi_pad)
    .describe(
        "numpy.pad(data, pad_width, mode): data padded by (before, after) per axis; modes "
        "constant, edge, reflect, symmetric, maximum, minimum.")
    .set_params<NpPadParam>()
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      if (!(*in)[0].is_known()) return;
      MergeShape(&(*out)[0], PadShape(a, (*in)[0]), "_npi_pad: output");
    })
    .set_infer_type(PadType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, PadKernel)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV, GV, GV og) {
          const NpPadParam& p = a.get<NpPadParam>();
          if (p.mode != "constant")
            Fail(a, "the gradient is only defined for mode 'constant' (as in MXNet 1.9.1), got '",
                 p.mode, "'");
          NpPadParam q = p;
          return Grads{b.CallP("_backward_npi_pad", {og[0]}, q)};
        },
        false, false);

MX_REGISTER_OP(_backward_npi_pad)
    .describe("Gradient of _npi_pad (mode 'constant'): the interior of the head gradient.")
    .set_params<NpPadParam>()
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"ograd"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const Shape& g = (*in)[0];
      if (!g.is_known()) return;
      auto pairs = PadPairs(a, g.ndim());
      Shape x = g;
      for (int i = 0; i < g.ndim(); ++i) {
        x[i] = g[i] - pairs[i].first - pairs[i].second;
        if (x[i] < 0)
          Fail(a, "ograd of shape ", g.ToString(), " is smaller than pad_width ",
               a.get<NpPadParam>().pad_width);
      }
      MergeShape(&(*out)[0], x, "_backward_npi_pad: output");
    })
    .set_infer_type(PadType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, PadBackwardKernel)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV, GV, GV og) {
          NpPadParam q = a.get<NpPadParam>();  // linear: pad the incoming gradient with zeros
          q.mode = "constant";
          q.constant_value = 0;
          return Grads{b.CallP("_npi_pad", {og[0]}, q)};
        },
        false, false);

}  // namespace
}  // namespace mxnet::ops
