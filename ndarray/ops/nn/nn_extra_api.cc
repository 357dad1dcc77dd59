#include "ndarray/ops/nn/nn_extra_api.h"

namespace mxnet::nd {
namespace {
template <typename P>
NDArrayVec Run(const Op& op, const P& p, std::initializer_list<NDArray> in) {
  return Call(op, OpAttrs::From(op, p), in);
}
}  // namespace

NDArray SequenceMask(const NDArray& data, const SequenceMaskOptions& opts) {
  SequenceMaskOptions p = opts;
  p.use_sequence_length = false;
  return Run(MX_ND_OP(SequenceMask), p, {data})[0];
}
NDArray SequenceMask(const NDArray& data, const NDArray& sequence_length,
                     SequenceMaskOptions opts) {
  opts.use_sequence_length = true;
  return Run(MX_ND_OP(SequenceMask), opts, {data, sequence_length})[0];
}

NDArray SequenceLast(const NDArray& data, const SequenceLastOptions& opts) {
  SequenceLastOptions p = opts;
  p.use_sequence_length = false;
  return Run(MX_ND_OP(SequenceLast), p, {data})[0];
}
NDArray SequenceLast(const NDArray& data, const NDArray& sequence_length,
                     SequenceLastOptions opts) {
  opts.use_sequence_length = true;
  return Run(MX_ND_OP(SequenceLast), opts, {data, sequence_length})[0];
}

NDArray SequenceReverse(const NDArray& data, const SequenceReverseOptions& opts) {
  SequenceReverseOptions p = opts;
  p.use_sequence_length = false;
  return Run(MX_ND_OP(SequenceReverse), p, {data})[0];
}
NDArray SequenceReverse(const NDArray& data, const NDArray& sequence_length,
                        SequenceReverseOptions opts) {
  opts.use_sequence_length = true;
  return Run(MX_ND_OP(SequenceReverse), opts, {data, sequence_length})[0];
}

NDArray L2Normalization(const NDArray& data, const L2NormalizationOptions& opts) {
  return Run(MX_ND_OP(L2Normalization), opts, {data})[0];
}

NDArray LRN(const NDArray& data, int nsize, LRNOptions opts) {
  opts.nsize = nsize;
  return Run(MX_ND_OP(LRN), opts, {data})[0];
}

std::pair<NDArray, NDArray> moments(const NDArray& data, const MomentsOptions& opts) {
  NDArrayVec r = Run(MX_ND_OP(moments), opts, {data});
  return {r[0], r[1]};
}

NDArray hard_sigmoid(const NDArray& data, const HardSigmoidOptions& opts) {
  return Run(MX_ND_OP(hard_sigmoid), opts, {data})[0];
}

NDArray MakeLoss(const NDArray& data, const MakeLossOptions& opts) {
  return Run(MX_ND_OP(MakeLoss), opts, {data})[0];
}

NDArray SVMOutput(const NDArray& data, const NDArray& label, const SVMOutputOptions& opts) {
  return Run(MX_ND_OP(SVMOutput), opts, {data, label})[0];
}

NDArray IdentityAttachKLSparseReg(const NDArray& data, const NDArray& moving_avg,
                                  const IdentityAttachKLSparseRegOptions& opts) {
  return Run(MX_ND_OP(IdentityAttachKLSparseReg), opts, {data, moving_avg})[0];
}

}  // namespace mxnet::nd
