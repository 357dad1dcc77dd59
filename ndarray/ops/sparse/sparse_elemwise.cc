// csr and row_sparse inputs of the elementwise ops: MXNet 1.9.1's storage-type inference
// (FInferStorageType in src/operator/tensor/elemwise_unary_op_*.cc, elemwise_binary_op_basic.cc,
// elemwise_binary_scalar_op_*.cc, elemwise_binary_broadcast_op_basic.cc, elemwise_sum.cc,
// square_sum.cc, init_op.cc, matrix_op.cc's slice, concat.cc), attached to the ops registered in
// the other packages (AttachStorageKernel, storage_attach.h). Values come from the ops' own dense
// kernels run on the stored values (packed side by side), so the arithmetic is the dense op's.
//
// Output storage (inputs csr C, row_sparse R, dense D; anything not listed falls back to dense
// with MXNet's one-time log, ndarray/op.cc):
//   unary f with f(0) = 0: abs sign sqrt square cbrt relu negative sin tan arcsin arctan sinh
//     tanh arcsinh arctanh expm1 log1p degrees radians floor ceil round rint fix trunc,
//     _copy/identity, BlockGrad, make_loss, _contrib_round_ste, _contrib_sign_ste:  C -> C, R -> R
//     (f applied to the stored values; stored results that are 0 stay stored)
//   zeros_like                       C -> C, R -> R, nothing stored
//   _mul_scalar, _div_scalar         keep storage (also for scalar 0: stored x / 0 gives inf/nan,
//                                    the rest stays 0, as in MXNet)
//   _plus_scalar, _minus_scalar      keep storage when scalar == 0, else dense
//   _equal_scalar, _not_equal_scalar, _greater(_equal)_scalar, _lesser(_equal)_scalar: keep
//                                    storage when comparing 0 with the scalar is false, else dense
//   _scatter_plus_scalar / _scatter_minus_scalar: keep storage (only stored values change)
//   clip                             keep storage when a_min <= 0 <= a_max
//   elemwise_add, elemwise_sub, _grad_add: C+C -> C (the union of the positions; results equal
//                                    to 0 are not stored), R+R -> R (the union of the rows, all
//                                    kept); C/R with D -> D (computed, no fallback log)
//   elemwise_mul                     C*C -> C (results 0 dropped), R*R -> R (union of rows),
//                                    C*D, D*C -> C and R*D, D*R -> R (the sparse operand's
//                                    positions, products 0 kept)
//   broadcast_mul, broadcast_div     C with D (the dense one broadcast to C's shape) -> C with C's
//                                    positions
//   add_n / ElementWiseSum           all R -> R (union of rows)
//   _square_sum (2-d R, one axis)    axis 1 with keepdims -> R (R's rows), otherwise D
//   slice (no step given)            C -> C (the entries inside the window, explicit zeros kept)
//   Concat / concat, dim 0           all C -> C
// Deliberate differences from MXNet:
//  - csr results list each row's columns in ascending order (MXNet's C+C / C-C / C*C leave them in
//    merge order, and over-allocate data/indices beyond indptr[-1]).
//  - broadcast_div of a csr by a dense array of its own shape gives the csr quotient (MXNet:
//    "Please use elemwise_div"); clip with 0 outside [a_min, a_max], and _square_sum of dense or
//    csr data or over axis -1 / -2, fall back to dense (MXNet: "operator not implemented").
//  - Mixed dtypes are refused by the ops' type inference (MXNet's csr+csr accepts float64 with
//    float32).
#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "ndarray/ops/core/basic_util.h"
#include "ndarray/ops/elemwise/elemwise_params.h"
#include "ndarray/ops/reduce/reduce_params.h"
#include "ndarray/ops/shape/shape_params.h"
#include "ndarray/ops/sparse/storage_attach.h"
#include "ndarray/sparse.h"

namespace mxnet::ops {
namespace {

using Kinds = std::span<const StorageType>;
constexpr StorageType kD = StorageType::kDefault, kC = StorageType::kCSR,
                      kR = StorageType::kRowSparse;

// ---- helpers ----
// Runs `op`'s dense CPU kernel on dense `in`; outputs from shape/type inference. Zero-size inputs
// skip the kernel (the outputs are then empty too).
NDArrayVec RunDense(const Op& op, const OpAttrs& attrs, const std::vector<NDArray>& in) {
  ShapeVec is, os;
  DTypeVec it, ot;
  for (const NDArray& x : in) is.push_back(x.shape()), it.push_back(static_cast<int>(x.dtype()));
  InferOutputs(op, attrs, &is, &it, &os, &ot);
  Device dev = in.empty() ? cpu() : in[0].device();
  NDArrayVec out;
  for (size_t i = 0; i < os.size(); ++i) out.emplace_back(os[i], dev, static_cast<DType>(ot[i]));
  bool empty = std::any_of(in.begin(), in.end(), [](const NDArray& x) { return x.size() == 0; });
  if (!empty) {
    OpContext ctx{false, false, dev};
    op.SelectKernel(dev.type, attrs, in)(ctx, attrs, in, out);
  }
  return out;
}

NDArray Int64(const std::vector<int64_t>& v, Device dev) {
  return NDArray::FromVector(v, Shape({static_cast<int64_t>(v.size())}), dev, DType::kInt64);
}

std::vector<char> Bytes(const NDArray& x) {
  std::vector<char> b(x.nbytes());
  if (!b.empty()) x.SyncCopyToCPU(b.data(), b.size());
  return b;
}

// A dense array of `shape`/`dtype` whose block k (`block` bytes) is src's block pick[k], or
// zeros where pick[k] < 0.
NDArray Gather(const std::vector<char>& src, const std::vector<int64_t>& pick, size_t block,
               const Shape& shape, DType dtype, Device dev) {
  std::vector<char> dst(pick.size() * block, 0);
  for (size_t k = 0; k < pick.size(); ++k)
    if (pick[k] >= 0) std::memcpy(dst.data() + k * block, src.data() + pick[k] * block, block);
  NDArray out(shape, dev, dtype);
  if (!dst.empty()) out.SyncCopyFromCPU(dst.data(), dst.size());
  return out;
}

// Stored positions of a csr array, row by row with columns ascending: the (row, col) pairs and,
// for each, its index into data().
struct CsrEntries {
  std::vector<int64_t> row, col, at;
};
CsrEntries EntriesOf(const NDArray& x) {
  std::vector<int64_t> ptr = x.indptr().ToVector<int64_t>();
  std::vector<int64_t> idx = x.indices().ToVector<int64_t>();
  CsrEntries e;
  for (size_t r = 0; r + 1 < ptr.size(); ++r) {
    std::vector<int64_t> order(static_cast<size_t>(ptr[r + 1] - ptr[r]));
    std::iota(order.begin(), order.end(), ptr[r]);
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return idx[a] < idx[b]; });
    for (int64_t k : order) {
      e.row.push_back(static_cast<int64_t>(r));
      e.col.push_back(idx[k]);
      e.at.push_back(k);
    }
  }
  return e;
}

// Gives csr `out` the entries (row, col) with values `vals` (one per entry, out's dtype); with
// drop_zeros, entries whose value is 0 are left out.
void SetCsr(const NDArray& out, const std::vector<int64_t>& row, const std::vector<int64_t>& col,
            const NDArray& vals, bool drop_zeros) {
  std::vector<int64_t> keep;
  if (drop_zeros) {
    std::vector<double> v = vals.ToVector<double>();
    for (size_t k = 0; k < v.size(); ++k)
      if (v[k] != 0.0) keep.push_back(static_cast<int64_t>(k));
  } else {
    keep.resize(row.size());
    std::iota(keep.begin(), keep.end(), 0);
  }
  const int64_t rows = out.shape()[0];
  std::vector<int64_t> ptr(static_cast<size_t>(rows + 1), 0), idx;
  for (int64_t k : keep) {
    ++ptr[row[k] + 1];
    idx.push_back(col[k]);
  }
  for (int64_t r = 0; r < rows; ++r) ptr[r + 1] += ptr[r];
  const size_t es = DTypeSize(out.dtype());
  NDArray data = keep.size() == row.size()
                     ? vals
                     : Gather(Bytes(vals), keep, es, Shape({static_cast<int64_t>(keep.size())}),
                              out.dtype(), out.device());
  SetSparseParts(out, data, {Int64(ptr, out.device()), Int64(idx, out.device())});
}

// Bytes of one row of a row_sparse array of `shape` (the product of shape[1:]).
size_t RowBytes(const Shape& shape, DType dt) {
  return static_cast<size_t>(shape.ProdRange(1, shape.ndim())) * DTypeSize(dt);
}

Shape RowsShape(const Shape& shape, int64_t k) {
  std::vector<int64_t> d = shape.ToVector();
  d[0] = k;
  return Shape(d);
}

// ---- unary (and scalar, clip): f applied to the stored values ----
void KeepStorageKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                       std::span<const NDArray> out) {
  const NDArray& x = in[0];
  NDArray vals = RunDense(*attrs.op(), attrs, {x.data()})[0];
  std::vector<NDArray> aux;
  for (int i = 0; i < x.num_aux(); ++i) aux.push_back(x.aux_data(i).copy());
  SetSparseParts(out[0], vals, std::move(aux));
}

// Storage kept for a sparse input when keep(attrs) holds.
FInferStorageType KeepIf(std::function<bool(const OpAttrs&)> keep) {
  return [keep](const OpAttrs& attrs, Kinds in, std::span<StorageType> out) {
    if (in[0] == kD || !keep(attrs)) return false;
    out[0] = in[0];
    return true;
  };
}

void AttachKeep(const std::string& op, std::function<bool(const OpAttrs&)> keep) {
  AttachStorageKernel(op, KeepIf(std::move(keep)), KeepStorageKernel);
}

double ScalarOf(const OpAttrs& a) { return a.get<ScalarParam>().scalar; }

// ---- binary elemwise_add / sub / mul ----
// Runs the dense op on the two packed operands and writes csr or row_sparse `out`.
enum class Pattern { kUnion, kLhs, kRhs };

void BinaryCsr(const OpAttrs& attrs, const NDArray& a, const NDArray& b, const NDArray& out) {
  const bool sa = a.is_sparse(), sb = b.is_sparse();
  const size_t es = DTypeSize(a.dtype());
  std::vector<int64_t> row, col, pa, pb;
  if (sa && sb) {  // union of the positions, merged row by row
    CsrEntries ea = EntriesOf(a), eb = EntriesOf(b);
    size_t i = 0, j = 0;
    while (i < ea.row.size() || j < eb.row.size()) {
      bool take_a = j == eb.row.size() ||
                    (i < ea.row.size() &&
                     std::make_pair(ea.row[i], ea.col[i]) <= std::make_pair(eb.row[j], eb.col[j]));
      bool take_b = i == ea.row.size() ||
                    (j < eb.row.size() &&
                     std::make_pair(eb.row[j], eb.col[j]) <= std::make_pair(ea.row[i], ea.col[i]));
      row.push_back(take_a ? ea.row[i] : eb.row[j]);
      col.push_back(take_a ? ea.col[i] : eb.col[j]);
      pa.push_back(take_a ? ea.at[i++] : -1);
      pb.push_back(take_b ? eb.at[j++] : -1);
    }
  } else {  // the csr operand's positions; the dense one read there
    const NDArray& s = sa ? a : b;
    const int64_t cols = s.shape()[1];
    CsrEntries e = EntriesOf(s);
    row = e.row;
    col = e.col;
    std::vector<int64_t> flat(row.size());
    for (size_t k = 0; k < row.size(); ++k) flat[k] = row[k] * cols + col[k];
    (sa ? pa : pb) = e.at;
    (sa ? pb : pa) = flat;
  }
  const Shape ps({static_cast<int64_t>(row.size())});
  NDArray va = Gather(Bytes(a.data()), pa, es, ps, a.dtype(), a.device());
  NDArray vb = Gather(Bytes(b.data()), pb, es, ps, b.dtype(), b.device());
  NDArray vals = RunDense(*attrs.op(), attrs, {va, vb})[0];
  SetCsr(out, row, col, vals, sa && sb);
}

void BinaryRsp(const OpAttrs& attrs, const NDArray& a, const NDArray& b, const NDArray& out) {
  const bool sa = a.is_sparse(), sb = b.is_sparse();
  const size_t rb = RowBytes(a.shape(), a.dtype());
  std::vector<int64_t> ia = sa ? a.indices().ToVector<int64_t>() : std::vector<int64_t>{};
  std::vector<int64_t> ib = sb ? b.indices().ToVector<int64_t>() : std::vector<int64_t>{};
  std::vector<int64_t> rows, pa, pb;
  if (sa && sb) {
    std::set_union(ia.begin(), ia.end(), ib.begin(), ib.end(), std::back_inserter(rows));
    for (int64_t r : rows) {
      auto x = std::lower_bound(ia.begin(), ia.end(), r);
      auto y = std::lower_bound(ib.begin(), ib.end(), r);
      pa.push_back(x != ia.end() && *x == r ? x - ia.begin() : -1);
      pb.push_back(y != ib.end() && *y == r ? y - ib.begin() : -1);
    }
  } else {  // the row_sparse operand's rows; the dense one's rows of those numbers
    rows = sa ? ia : ib;
    std::vector<int64_t> own(rows.size());
    std::iota(own.begin(), own.end(), 0);
    (sa ? pa : pb) = own;
    (sa ? pb : pa) = rows;
  }
  const Shape ps = RowsShape(a.shape(), static_cast<int64_t>(rows.size()));
  NDArray va = Gather(Bytes(a.data()), pa, rb, ps, a.dtype(), a.device());
  NDArray vb = Gather(Bytes(b.data()), pb, rb, ps, b.dtype(), b.device());
  NDArray vals = RunDense(*attrs.op(), attrs, {va, vb})[0];
  SetSparseParts(out, vals, {Int64(rows, out.device())});
}

void BinaryKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  if (!out[0].is_sparse()) {  // sparse with dense, or csr with row_sparse: dense result
    std::vector<NDArray> dense;
    for (const NDArray& x : in) dense.push_back(x.tostype(kD));
    RunDense(*attrs.op(), attrs, dense)[0].copyto(out[0]);
    return;
  }
  if (out[0].stype() == kC)
    BinaryCsr(attrs, in[0], in[1], out[0]);
  else
    BinaryRsp(attrs, in[0], in[1], out[0]);
}

// elemwise_add / sub: same sparse storage -> it; sparse with dense -> dense (computed here).
bool AddSubStorage(const OpAttrs&, Kinds in, std::span<StorageType> out) {
  if (in[0] == kD && in[1] == kD) return false;
  if (in[0] == in[1]) {
    out[0] = in[0];
    return true;
  }
  if (in[0] != kD && in[1] != kD) return false;  // csr with row_sparse: fallback
  out[0] = kD;
  return true;
}

// elemwise_mul: a sparse operand's storage survives a dense one; csr with row_sparse falls back.
bool MulStorage(const OpAttrs&, Kinds in, std::span<StorageType> out) {
  if (in[0] == kD && in[1] == kD) return false;
  if (in[0] != kD && in[1] != kD && in[0] != in[1]) return false;
  out[0] = in[0] != kD ? in[0] : in[1];
  return true;
}

// ---- broadcast_mul / broadcast_div: csr lhs, dense rhs broadcast to it ----
bool BroadcastCsrStorage(const OpAttrs&, Kinds in, std::span<StorageType> out) {
  if (in[0] != kC || in[1] != kD) return false;
  out[0] = kC;
  return true;
}

void BroadcastCsrKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                        std::span<const NDArray> out) {
  const NDArray &a = in[0], &b = in[1];
  if (out[0].shape() != a.shape()) {  // the rhs widens the result: computed dense, stored csr
    NDArray d = RunDense(*attrs.op(), attrs, {a.tostype(kD), b})[0];
    NDArray c = d.tostype(kC);
    SetSparseParts(out[0], c.data(), {c.indptr(), c.indices()});
    return;
  }
  // rhs right-aligned to (rows, cols); a size-1 (or missing) axis is broadcast.
  const int64_t cols = a.shape()[1];
  const int nb = b.ndim();
  const int64_t br = nb >= 2 ? b.shape()[nb - 2] : 1, bc = nb >= 1 ? b.shape()[nb - 1] : 1;
  CsrEntries e = EntriesOf(a);
  std::vector<int64_t> pb(e.row.size());
  for (size_t k = 0; k < pb.size(); ++k)
    pb[k] = (br == 1 ? 0 : e.row[k]) * bc + (bc == 1 ? 0 : e.col[k]);
  (void)cols;
  const size_t es = DTypeSize(a.dtype());
  const Shape ps({static_cast<int64_t>(pb.size())});
  NDArray va = Gather(Bytes(a.data()), e.at, es, ps, a.dtype(), a.device());
  NDArray vb = Gather(Bytes(b), pb, es, ps, b.dtype(), b.device());
  const Op& ew =
      OpRegistry::Get(attrs.op()->name == "broadcast_div" ? "elemwise_div" : "elemwise_mul");
  NDArray vals = RunDense(ew, OpAttrs::Parse(ew, {}), {va, vb})[0];
  SetCsr(out[0], e.row, e.col, vals, false);
}

// ---- add_n over row_sparse ----
bool AddNStorage(const OpAttrs&, Kinds in, std::span<StorageType> out) {
  for (StorageType s : in)
    if (s != kR) return false;
  out[0] = kR;
  return true;
}

void AddNRspKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  std::vector<std::vector<int64_t>> idx;
  std::vector<int64_t> rows;
  for (const NDArray& x : in) {
    idx.push_back(x.indices().ToVector<int64_t>());
    rows.insert(rows.end(), idx.back().begin(), idx.back().end());
  }
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  const Shape ps = RowsShape(out[0].shape(), static_cast<int64_t>(rows.size()));
  std::vector<NDArray> packed;
  for (size_t i = 0; i < in.size(); ++i) {
    std::vector<int64_t> pick;
    for (int64_t r : rows) {
      auto it = std::lower_bound(idx[i].begin(), idx[i].end(), r);
      pick.push_back(it != idx[i].end() && *it == r ? it - idx[i].begin() : -1);
    }
    packed.push_back(Gather(Bytes(in[i].data()), pick, RowBytes(in[i].shape(), in[i].dtype()), ps,
                            in[i].dtype(), in[i].device()));
  }
  SetSparseParts(out[0], RunDense(*attrs.op(), attrs, packed)[0], {Int64(rows, out[0].device())});
}

// ---- _square_sum of 2-d row_sparse data over one axis ----
int SquareSumAxis(const OpAttrs& attrs) {  // 0, 1, or -1 when not a single axis of a 2-d array
  const auto& p = attrs.get<ReduceAxesParam>();
  if (p.exclude || !p.axis || p.axis->ndim() != 1) return -1;
  int64_t ax = (*p.axis)[0];  // MXNet takes 0 and 1 only (not -1 / -2)
  return ax == 0 || ax == 1 ? static_cast<int>(ax) : -1;
}

bool SquareSumStorage(const OpAttrs& attrs, Kinds in, std::span<StorageType> out) {
  if (in[0] != kR || SquareSumAxis(attrs) < 0) return false;
  out[0] = SquareSumAxis(attrs) == 1 && attrs.get<ReduceAxesParam>().keepdims ? kR : kD;
  return true;
}

void SquareSumKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
  const NDArray& x = in[0];
  if (x.ndim() != 2)
    MX_THROW(absl::StatusCode::kInvalidArgument,
             "_square_sum: row_sparse data must be 2-d (MXNet's rule), got ", x.shape().ToString());
  const int64_t k = x.indices().size();
  std::vector<int64_t> rows = x.indices().ToVector<int64_t>();
  NDArray part = RunDense(*attrs.op(), attrs, {x.data()})[0];  // over the stored rows
  if (SquareSumAxis(attrs) == 0) {
    if (k == 0) {
      std::vector<char> zero(out[0].nbytes(), 0);
      if (!zero.empty()) out[0].SyncCopyFromCPU(zero.data(), zero.size());
    } else {
      part.copyto(out[0]);
    }
    return;
  }
  if (out[0].is_sparse()) {  // (rows, 1), keepdims: x's rows
    if (k > 0) SetSparseParts(out[0], part, {Int64(rows, out[0].device())});
    return;
  }
  std::vector<int64_t> pick(static_cast<size_t>(out[0].size()), -1);
  for (int64_t i = 0; i < k; ++i) pick[rows[i]] = i;
  Gather(Bytes(part), pick, DTypeSize(out[0].dtype()), out[0].shape(), out[0].dtype(),
         out[0].device())
      .copyto(out[0]);
}

// ---- slice / concat of csr arrays (the stored entries move, explicit zeros included) ----
bool SliceStorage(const OpAttrs& attrs, Kinds in, std::span<StorageType> out) {
  if (in[0] != kC) return false;
  if (!attrs.get<SliceParam>().step.v.empty()) return false;  // MXNet: any step falls back
  out[0] = kC;
  return true;
}

void SliceCsrKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                    std::span<const NDArray> out) {
  const NDArray& x = in[0];
  const auto& b = attrs.get<SliceParam>().begin.v;
  int64_t first[2] = {0, 0};  // begin per axis as the dense slice takes it (out's shape follows)
  for (int d = 0; d < 2 && d < static_cast<int>(b.size()); ++d) {
    if (!b[d]) continue;
    const int64_t n = x.shape()[d];
    first[d] = std::clamp<int64_t>(*b[d] < 0 ? *b[d] + n : *b[d], 0, n);
  }
  const int64_t rows = out[0].shape()[0], cols = out[0].shape()[1];
  CsrEntries e = EntriesOf(x);
  std::vector<int64_t> row, col, pick;
  for (size_t k = 0; k < e.row.size(); ++k) {
    const int64_t r = e.row[k] - first[0], c = e.col[k] - first[1];
    if (r < 0 || r >= rows || c < 0 || c >= cols) continue;
    row.push_back(r);
    col.push_back(c);
    pick.push_back(e.at[k]);
  }
  NDArray vals = Gather(Bytes(x.data()), pick, DTypeSize(x.dtype()),
                        Shape({static_cast<int64_t>(pick.size())}), x.dtype(), x.device());
  SetCsr(out[0], row, col, vals, false);
}

bool ConcatStorage(const OpAttrs& attrs, Kinds in, std::span<StorageType> out) {
  if (attrs.get<ConcatParam>().dim != 0) return false;
  for (StorageType s : in)
    if (s != kC) return false;
  out[0] = kC;
  return true;
}

void ConcatCsrKernel(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
  std::vector<int64_t> row, col, pick;
  std::vector<char> bytes;
  int64_t offset = 0, base = 0;
  for (const NDArray& x : in) {
    CsrEntries e = EntriesOf(x);
    for (size_t k = 0; k < e.row.size(); ++k) {
      row.push_back(e.row[k] + offset);
      col.push_back(e.col[k]);
      pick.push_back(e.at[k] + base);
    }
    std::vector<char> b = Bytes(x.data());
    bytes.insert(bytes.end(), b.begin(), b.end());
    offset += x.shape()[0];
    base += x.data().size();
  }
  const NDArray& o = out[0];
  NDArray vals = Gather(bytes, pick, DTypeSize(o.dtype()),
                        Shape({static_cast<int64_t>(pick.size())}), o.dtype(), o.device());
  SetCsr(o, row, col, vals, false);
}

// ---- zeros_like: nothing stored ----
bool ZerosLikeStorage(const OpAttrs&, Kinds in, std::span<StorageType> out) {
  if (in[0] == kD) return false;
  out[0] = in[0];
  return true;
}

[[maybe_unused]] const bool kAttached = [] {
  for (const char* op : {"abs",
                         "sign",
                         "sqrt",
                         "square",
                         "cbrt",
                         "relu",
                         "negative",
                         "sin",
                         "tan",
                         "arcsin",
                         "arctan",
                         "sinh",
                         "tanh",
                         "arcsinh",
                         "arctanh",
                         "expm1",
                         "log1p",
                         "degrees",
                         "radians",
                         "floor",
                         "ceil",
                         "round",
                         "rint",
                         "fix",
                         "trunc",
                         "_copy",
                         "BlockGrad",
                         "make_loss",
                         "_contrib_round_ste",
                         "_contrib_sign_ste",
                         "_mul_scalar",
                         "_div_scalar",
                         "_scatter_plus_scalar",
                         "_scatter_minus_scalar"})
    AttachKeep(op, [](const OpAttrs&) { return true; });
  for (const char* op : {"_plus_scalar", "_minus_scalar"})
    AttachKeep(op, [](const OpAttrs& a) { return ScalarOf(a) == 0.0; });
  // Comparisons keep storage when 0 compared with the scalar is false.
  AttachKeep("_equal_scalar", [](const OpAttrs& a) { return !(0.0 == ScalarOf(a)); });
  AttachKeep("_not_equal_scalar", [](const OpAttrs& a) { return !(0.0 != ScalarOf(a)); });
  AttachKeep("_greater_scalar", [](const OpAttrs& a) { return !(0.0 > ScalarOf(a)); });
  AttachKeep("_greater_equal_scalar", [](const OpAttrs& a) { return !(0.0 >= ScalarOf(a)); });
  AttachKeep("_lesser_scalar", [](const OpAttrs& a) { return !(0.0 < ScalarOf(a)); });
  AttachKeep("_lesser_equal_scalar", [](const OpAttrs& a) { return !(0.0 <= ScalarOf(a)); });
  AttachKeep("clip", [](const OpAttrs& a) {
    const auto& p = a.get<ClipParam>();
    return p.a_min <= 0.0f && p.a_max >= 0.0f;
  });
  AttachStorageKernel("zeros_like", ZerosLikeStorage,
                      [](const OpContext&, const OpAttrs&, std::span<const NDArray>,
                         std::span<const NDArray>) {});  // the empty sparse output
  AttachStorageKernel("elemwise_add", AddSubStorage, BinaryKernel);
  AttachStorageKernel("elemwise_sub", AddSubStorage, BinaryKernel);
  AttachStorageKernel("elemwise_mul", MulStorage, BinaryKernel);
  AttachStorageKernel("broadcast_mul", BroadcastCsrStorage, BroadcastCsrKernel);
  AttachStorageKernel("broadcast_div", BroadcastCsrStorage, BroadcastCsrKernel);
  AttachStorageKernel("add_n", AddNStorage, AddNRspKernel);
  AttachStorageKernel("_square_sum", SquareSumStorage, SquareSumKernel);
  AttachStorageKernel("slice", SliceStorage, SliceCsrKernel);
  AttachStorageKernel("Concat", ConcatStorage, ConcatCsrKernel);
  return true;
}();

}  // namespace
}  // namespace mxnet::ops
