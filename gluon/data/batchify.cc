#include "gluon/data/batchify.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace mxnet::gluon::data {
namespace {

// The fields of every sample at position `field`, checking the sample has it.
std::vector<NDArray> Field(const std::vector<Sample>& samples, size_t field, size_t num_fields,
                           const char* fn) {
  std::vector<NDArray> out;
  out.reserve(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) {
    MX_REQUIRE(samples[i].size() == num_fields, absl::StatusCode::kInvalidArgument, fn, ": sample ",
               i, " of the batch has ", samples[i].size(), " fields but sample 0 has ", num_fields);
    out.push_back(samples[i][field]);
  }
  return out;
}

size_t NumFields(const std::vector<Sample>& samples, const char* fn) {
  MX_REQUIRE(!samples.empty(), absl::StatusCode::kInvalidArgument, fn, ": empty batch");
  return samples[0].size();
}

// Host copy of `a`'s bytes; for CPU arrays the data pointer itself.
const char* HostBytes(const NDArray& a, std::vector<char>* tmp) {
  if (a.device().is_cpu()) return static_cast<const char*>(a.data_ptr());
  tmp->resize(a.nbytes());
  a.SyncCopyToCPU(tmp->data(), tmp->size());
  return tmp->data();
}

// Copies a C-contiguous block of shape `src` into the corner of a block of shape `dst`
// (dst[d] >= src[d] for all d), element size `es`.
void CopyPadded(const char* src, const Shape& src_shape, char* dst, const Shape& dst_shape,
                size_t es, int dim) {
  const int nd = src_shape.ndim();
  if (dim == nd - 1 || nd == 0) {
    std::memcpy(dst, src, (nd == 0 ? 1 : src_shape[dim]) * es);
    return;
  }
  const size_t src_stride = static_cast<size_t>(src_shape.ProdRange(dim + 1, nd)) * es;
  const size_t dst_stride = static_cast<size_t>(dst_shape.ProdRange(dim + 1, nd)) * es;
  for (int64_t i = 0; i < src_shape[dim]; ++i)
    CopyPadded(src + i * src_stride, src_shape, dst + i * dst_stride, dst_shape, es, dim + 1);
}

}  // namespace

NDArray StackArrays(const std::vector<NDArray>& items) {
  MX_REQUIRE(!items.empty(), absl::StatusCode::kInvalidArgument, "Stack: no arrays to stack");
  const Shape& s0 = items[0].shape();
  const DType t0 = items[0].dtype();
  for (size_t i = 1; i < items.size(); ++i) {
    MX_REQUIRE(items[i].shape() == s0, absl::StatusCode::kInvalidArgument, "Stack: sample ", i,
               " has shape ", items[i].shape().ToString(), " but sample 0 has ", s0.ToString(),
               " (use Pad for variable-size data)");
    MX_REQUIRE(items[i].dtype() == t0, absl::StatusCode::kInvalidArgument, "Stack: sample ", i,
               " has dtype ", DTypeName(items[i].dtype()), " but sample 0 has ", DTypeName(t0));
  }
  Shape out_shape{static_cast<int64_t>(items.size())};
  for (int64_t d : s0) out_shape.push_back(d);
  NDArray out(out_shape, cpu(), t0);
  const size_t bytes = items[0].nbytes();
  char* dst = static_cast<char*>(out.data_ptr());
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].device().is_cpu()) {
      if (bytes) std::memcpy(dst + i * bytes, items[i].data_ptr(), bytes);
    } else {
      items[i].SyncCopyToCPU(dst + i * bytes, bytes);
    }
  }
  return out;
}

NDArray PadArrays(const std::vector<NDArray>& items, double pad_val, std::optional<DType> dtype,
                  std::vector<int64_t>* lengths) {
  MX_REQUIRE(!items.empty(), absl::StatusCode::kInvalidArgument, "Pad: no arrays to pad");
  const int nd = items[0].ndim();
  const DType t0 = items[0].dtype();
  Shape max_shape = items[0].shape();
  for (size_t i = 1; i < items.size(); ++i) {
    MX_REQUIRE(items[i].ndim() == nd, absl::StatusCode::kInvalidArgument, "Pad: sample ", i,
               " has shape ", items[i].shape().ToString(), " of rank ", items[i].ndim(),
               " but sample 0 has rank ", nd, " (shape ", items[0].shape().ToString(), ")");
    MX_REQUIRE(items[i].dtype() == t0, absl::StatusCode::kInvalidArgument, "Pad: sample ", i,
               " has dtype ", DTypeName(items[i].dtype()), " but sample 0 has ", DTypeName(t0));
    for (int d = 0; d < nd; ++d) max_shape[d] = std::max(max_shape[d], items[i].shape()[d]);
  }
  if (lengths) {
    lengths->clear();
    for (const NDArray& a : items) lengths->push_back(nd == 0 ? 0 : a.shape()[0]);
  }
  Shape out_shape{static_cast<int64_t>(items.size())};
  for (int64_t d : max_shape) out_shape.push_back(d);
  NDArray out = NDArray::Full(out_shape, pad_val, cpu(), t0);
  const size_t es = DTypeSize(t0);
  const size_t per_item = static_cast<size_t>(max_shape.Size()) * es;
  char* dst = static_cast<char*>(out.data_ptr());
  std::vector<char> tmp;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].size() == 0) continue;
    CopyPadded(HostBytes(items[i], &tmp), items[i].shape(), dst + i * per_item, max_shape, es, 0);
  }
  if (dtype && *dtype != t0) return out.astype(*dtype);
  return out;
}

Batch Stack::operator()(const std::vector<Sample>& samples) const {
  const size_t nf = NumFields(samples, "Stack");
  Batch out;
  for (size_t f = 0; f < nf; ++f) {
    try {
      out.push_back(StackArrays(Field(samples, f, nf, "Stack")));
    } catch (const Error& e) {
      MX_THROW(e.code(), "field ", f, ": ", e.what());
    }
  }
  return out;
}

Batch Stack::operator()(const std::vector<NDArray>& items) const { return {StackArrays(items)}; }

Batch Pad::operator()(const std::vector<NDArray>& items) const {
  std::vector<int64_t> lengths;
  Batch out{PadArrays(items, val_, dtype_, ret_length_ ? &lengths : nullptr)};
  if (ret_length_)
    out.push_back(NDArray::FromVector(lengths, Shape{static_cast<int64_t>(lengths.size())}, cpu(),
                                      DType::kInt32));
  return out;
}

Batch Pad::operator()(const std::vector<Sample>& samples) const {
  const size_t nf = NumFields(samples, "Pad");
  Batch out;
  for (size_t f = 0; f < nf; ++f) {
    try {
      for (NDArray& a : (*this)(Field(samples, f, nf, "Pad"))) out.push_back(std::move(a));
    } catch (const Error& e) {
      MX_THROW(e.code(), "field ", f, ": ", e.what());
    }
  }
  return out;
}

Group::Group(std::vector<FieldBatchifyFn> fns) : fns_(std::move(fns)) {
  MX_REQUIRE(!fns_.empty(), absl::StatusCode::kInvalidArgument, "Group: no functions");
  for (size_t i = 0; i < fns_.size(); ++i)
    MX_REQUIRE(fns_[i] != nullptr, absl::StatusCode::kInvalidArgument, "Group: function ", i,
               " is empty");
}

Batch Group::operator()(const std::vector<Sample>& samples) const {
  const size_t nf = NumFields(samples, "Group");
  MX_REQUIRE(nf == fns_.size(), absl::StatusCode::kInvalidArgument, "Group: samples have ", nf,
             " fields but the group has ", fns_.size(), " functions");
  Batch out;
  for (size_t f = 0; f < nf; ++f) {
    try {
      for (NDArray& a : fns_[f](Field(samples, f, nf, "Group"))) out.push_back(std::move(a));
    } catch (const Error& e) {
      MX_THROW(e.code(), "field ", f, ": ", e.what());
    }
  }
  return out;
}

}  // namespace mxnet::gluon::data
