// Typed attributes of the nn family's legacy extras (nn_sequence.cc, nn_extra.cc): MXNet 1.9.1's
// names, C++ defaults and string forms, in MXNet's declaration order so designated initializers
// read like kwargs. They double as the options structs of ndarray/ops/nn/nn_extra_api.h.
#pragma once

#include <optional>
#include <string>

#include "base/shape.h"
#include "ndarray/params.h"

namespace mxnet::ops {

// SequenceMask (src/operator/sequence_mask-inl.h). axis: the sequence axis, 0 (T, B, ...) or 1
// (B, T, ...).
struct SequenceMaskParam {
  bool use_sequence_length = false;
  float value = 0.0f;
  int axis = 0;
  template <class D>
  static void Declare(D& d) {
    d.field("use_sequence_length", &SequenceMaskParam::use_sequence_length)
        .describe("Take a sequence_length input (batch,) of per-example lengths.");
    d.field("value", &SequenceMaskParam::value).describe("The value of masked positions.");
    d.field("axis", &SequenceMaskParam::axis).describe("The sequence axis: 0 or 1.");
  }
  std::string Validate() const;
};

// SequenceLast (src/operator/sequence_last-inl.h). axis 0 or 1.
struct SequenceLastParam {
  bool use_sequence_length = false;
  int axis = 0;
  template <class D>
  static void Declare(D& d) {
    d.field("use_sequence_length", &SequenceLastParam::use_sequence_length)
        .describe("Take a sequence_length input (batch,) of per-example lengths.");
    d.field("axis", &SequenceLastParam::axis).describe("The sequence axis: 0 or 1.");
  }
  std::string Validate() const;
};

// SequenceReverse (src/operator/sequence_reverse-inl.h). axis 0 only (as MXNet 1.9.1).
struct SequenceReverseParam {
  bool use_sequence_length = false;
  int axis = 0;
  template <class D>
  static void Declare(D& d) {
    d.field("use_sequence_length", &SequenceReverseParam::use_sequence_length)
        .describe("Take a sequence_length input (batch,) of per-example lengths.");
    d.field("axis", &SequenceReverseParam::axis).describe("The sequence axis: only 0.");
  }
  std::string Validate() const;
};

// L2Normalization (src/operator/l2_normalization-inl.h).
struct L2NormalizationParam {
  float eps = 1e-10f;
  std::string mode = "instance";
  template <class D>
  static void Declare(D& d) {
    d.field("eps", &L2NormalizationParam::eps)
        .describe("Added to the sum of squares under the square root.");
    d.field("mode", &L2NormalizationParam::mode)
        .choices({"channel", "instance", "spatial"})
        .describe(
            "instance: one norm per example (axis 0); channel: across axis 1 at each position; "
            "spatial: over the axes after 1, per example and channel.");
  }
  std::string Validate() const;
};

// LRN (src/operator/nn/lrn-inl.h). nsize is required.
struct LRNParam {
  float alpha = 1e-4f;
  float beta = 0.75f;
  float knorm = 2.0f;
  int nsize = 0;
  template <class D>
  static void Declare(D& d) {
    d.field("alpha", &LRNParam::alpha).describe("Scale of the windowed sum of squares.");
    d.field("beta", &LRNParam::beta).describe("Exponent of the normalizer.");
    d.field("knorm", &LRNParam::knorm).describe("Offset k of the normalizer.");
    d.field("nsize", &LRNParam::nsize)
        .required()
        .describe("Window width in channels (odd; see nn_extra_api.h for even).");
  }
  std::string Validate() const;
};

// hard_sigmoid (src/operator/tensor/elemwise_unary_op_basic.cc).
struct HardSigmoidParam {
  float alpha = 0.2f;
  float beta = 0.5f;
  template <class D>
  static void Declare(D& d) {
    d.field("alpha", &HardSigmoidParam::alpha).describe("Slope.");
    d.field("beta", &HardSigmoidParam::beta).describe("Offset.");
  }
};

// MakeLoss (src/operator/make_loss-inl.h).
struct MakeLossParam {
  float grad_scale = 1.0f;
  float valid_thresh = 0.0f;
  std::string normalization = "null";
  template <class D>
  static void Declare(D& d) {
    d.field("grad_scale", &MakeLossParam::grad_scale).describe("The gradient's value.");
    d.field("valid_thresh", &MakeLossParam::valid_thresh)
        .describe("normalization='valid' counts the elements greater than this.");
    d.field("normalization", &MakeLossParam::normalization)
        .choices({"batch", "null", "valid"})
        .describe("Divide the gradient by nothing, the batch size or the valid count.");
  }
  std::string Validate() const;
};

// SVMOutput (src/operator/svm_output-inl.h).
struct SVMOutputParam {
  float margin = 1.0f;
  float regularization_coefficient = 1.0f;
  bool use_linear = false;
  template <class D>
  static void Declare(D& d) {
    d.field("margin", &SVMOutputParam::margin).describe("The hinge margin.");
    d.field("regularization_coefficient", &SVMOutputParam::regularization_coefficient)
        .describe("Scales the gradient.");
    d.field("use_linear", &SVMOutputParam::use_linear)
        .describe("L1-SVM (hinge) instead of L2-SVM (squared hinge).");
  }
};

// moments (src/operator/nn/moments-inl.h). axes is required in practice (None is an error).
struct MomentsParam {
  std::optional<Shape> axes;
  bool keepdims = false;
  template <class D>
  static void Declare(D& d) {
    d.field("axes", &MomentsParam::axes)
        .describe("The axes to reduce (negative from the end); None/() is an error.");
    d.field("keepdims", &MomentsParam::keepdims).describe("Keep reduced axes as size 1.");
  }
};

// IdentityAttachKLSparseReg (src/operator/identity_attach_KL_sparse_reg-inl.h).
struct IdentityAttachKLSparseRegParam {
  float sparseness_target = 0.1f;
  float penalty = 0.001f;
  float momentum = 0.9f;
  template <class D>
  static void Declare(D& d) {
    d.field("sparseness_target", &IdentityAttachKLSparseRegParam::sparseness_target)
        .describe("Target mean activation, in [0, 1].");
    d.field("penalty", &IdentityAttachKLSparseRegParam::penalty)
        .describe("Weight of the KL sparseness penalty.");
    d.field("momentum", &IdentityAttachKLSparseRegParam::momentum)
        .describe("Momentum of the moving average, in [0, 1].");
  }
  std::string Validate() const;
};

}  // namespace mxnet::ops
