// Attribute structs of MXNet 1.9.1's _contrib_ box and helper operators registered in the reduce
// family (reduce_contrib*.cc), with MXNet's attribute names, defaults and choices. Shared by the
// registrations and the nd:: free functions (reduce_contrib_api.h).
// Source: MXNet src/operator/contrib/{bounding_box,multibox_prior,index_array,quadratic_op,
// allclose_op}*.h and src/operator/tensor/init_op.h (RangeLikeParam).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/shape.h"
#include "ndarray/params.h"

namespace mxnet::ops {

// "corner" = [xmin, ymin, xmax, ymax], "center" = [x, y, width, height].
inline std::string CheckBoxFormat(const std::string& f, const char* name) {
  if (f != "corner" && f != "center")
    return StrCat(name, "='", f, "' is not one of {center, corner}");
  return "";
}

// _contrib_box_iou.
struct BoxIouParam {
  std::string format = "corner";
  template <class D>
  static void Declare(D& d) {
    d.field("format", &BoxIouParam::format)
        .describe("Box encoding: corner [xmin, ymin, xmax, ymax] or center [x, y, w, h].")
        .choices({"center", "corner"});
  }
  std::string Validate() const { return CheckBoxFormat(format, "format"); }
};

// _contrib_box_nms (alias _contrib_box_non_maximum_suppression).
struct BoxNMSParam {
  float overlap_thresh = 0.5f;
  float valid_thresh = 0.0f;
  int topk = -1;
  int coord_start = 2;
  int score_index = 1;
  int id_index = -1;
  int background_id = -1;
  bool force_suppress = false;
  std::string in_format = "corner";
  std::string out_format = "corner";
  template <class D>
  static void Declare(D& d) {
    d.field("overlap_thresh", &BoxNMSParam::overlap_thresh)
        .describe("IoU above which the lower-scored box is suppressed.");
    d.field("valid_thresh", &BoxNMSParam::valid_thresh)
        .describe("Only boxes with score > valid_thresh take part.");
    d.field("topk", &BoxNMSParam::topk)
        .describe("Apply NMS to the topk highest-scored boxes per batch; -1: all.");
    d.field("coord_start", &BoxNMSParam::coord_start)
        .describe("Index of the first of the 4 consecutive coordinates in a box row.");
    d.field("score_index", &BoxNMSParam::score_index).describe("Index of the score.");
    d.field("id_index", &BoxNMSParam::id_index)
        .describe("Index of the class id; -1: no class ids.");
    d.field("background_id", &BoxNMSParam::background_id)
        .describe("Class id ignored by NMS (with id_index); -1: none.");
    d.field("force_suppress", &BoxNMSParam::force_suppress)
        .describe("Suppress across classes (otherwise only within a class when id_index >= 0).");
    d.field("in_format", &BoxNMSParam::in_format)
        .describe("Input box encoding.")
        .choices({"center", "corner"});
    d.field("out_format", &BoxNMSParam::out_format)
        .describe("Output box encoding.")
        .choices({"center", "corner"});
  }
  std::string Validate() const {
    std::string e = CheckBoxFormat(in_format, "in_format");
    return e.empty() ? CheckBoxFormat(out_format, "out_format") : e;
  }
};

// _contrib_box_decode.
struct BoxDecodeParam {
  float std0 = 1.0f, std1 = 1.0f, std2 = 1.0f, std3 = 1.0f;
  float clip = -1.0f;
  std::string format = "center";
  template <class D>
  static void Declare(D& d) {
    d.field("std0", &BoxDecodeParam::std0).describe("Multiplier of the 1st encoded value.");
    d.field("std1", &BoxDecodeParam::std1).describe("Multiplier of the 2nd encoded value.");
    d.field("std2", &BoxDecodeParam::std2).describe("Multiplier of the 3rd encoded value.");
    d.field("std3", &BoxDecodeParam::std3).describe("Multiplier of the 4th encoded value.");
    d.field("clip", &BoxDecodeParam::clip)
        .describe("If > 0, the scaled width/height deltas are clipped to this before exp.");
    d.field("format", &BoxDecodeParam::format)
        .describe("Encoding of the anchors.")
        .choices({"center", "corner"});
  }
  std::string Validate() const { return CheckBoxFormat(format, "format"); }
};

// _contrib_bipartite_matching.
struct BipartiteMatchingParam {
  bool is_ascend = false;
  float threshold = 0.0f;
  int topk = -1;
  template <class D>
  static void Declare(D& d) {
    d.field("is_ascend", &BipartiteMatchingParam::is_ascend)
        .describe("Match the lowest scores first (threshold is then an upper bound).");
    d.field("threshold", &BipartiteMatchingParam::threshold)
        .describe("Stop at the first score <= threshold (>= when is_ascend).")
        .required();
    d.field("topk", &BipartiteMatchingParam::topk)
        .describe("Limit on the number of matches (MXNet stops after topk + 1); -1: none.");
  }
};

// _contrib_arange_like (alias _npx_arange_like).
struct ArangeLikeParam {
  double start = 0;
  double step = 1;
  int repeat = 1;
  std::string ctx;
  std::optional<int> axis;
  template <class D>
  static void Declare(D& d) {
    d.field("start", &ArangeLikeParam::start).describe("First value.");
    d.field("step", &ArangeLikeParam::step).describe("Spacing between values.");
    d.field("repeat", &ArangeLikeParam::repeat).describe("Times each value is repeated.");
    d.field("ctx", &ArangeLikeParam::ctx)
        .describe("Device of the output (accepted; the output is on the input's device).");
    d.field("axis", &ArangeLikeParam::axis)
        .describe("If set, a 1-D output as long as this axis of the input; None: input's shape.");
  }
  std::string Validate() const {
    if (repeat < 1) return StrCat("repeat=", repeat, " must be >= 1");
    return "";
  }
};

// _contrib_index_array.
struct IndexArrayParam {
  std::optional<Shape> axes;
  template <class D>
  static void Declare(D& d) {
    d.field("axes", &IndexArrayParam::axes)
        .describe("The axes whose indices are listed (negative from the end); None: all.");
  }
};

// _contrib_gradientmultiplier (MXNet's NumpyBinaryScalarParam).
struct GradientMultiplierParam {
  double scalar = 1;
  bool is_int = true;
  template <class D>
  static void Declare(D& d) {
    d.field("scalar", &GradientMultiplierParam::scalar)
        .describe("Factor applied to the gradient in backward.");
    d.field("is_int", &GradientMultiplierParam::is_int)
        .describe("Whether scalar is an integer (accepted; the value is used as given).");
  }
};

// _contrib_quadratic.
struct QuadraticParam {
  float a = 0.0f, b = 0.0f, c = 0.0f;
  template <class D>
  static void Declare(D& d) {
    d.field("a", &QuadraticParam::a).describe("Coefficient of x^2.");
    d.field("b", &QuadraticParam::b).describe("Coefficient of x.");
    d.field("c", &QuadraticParam::c).describe("Constant term.");
  }
};

// _contrib_allclose.
struct AllCloseParam {
  float rtol = 1e-5f;
  float atol = 1e-8f;
  bool equal_nan = true;
  template <class D>
  static void Declare(D& d) {
    d.field("rtol", &AllCloseParam::rtol).describe("Relative tolerance.");
    d.field("atol", &AllCloseParam::atol).describe("Absolute tolerance.");
    d.field("equal_nan", &AllCloseParam::equal_nan).describe("Whether NaN equals NaN.");
  }
};

// _contrib_MultiBoxPrior (alias _npx_multibox_prior).
struct MultiBoxPriorParam {
  std::vector<double> sizes = {1.0};
  std::vector<double> ratios = {1.0};
  bool clip = false;
  std::vector<double> steps = {-1.0, -1.0};
  std::vector<double> offsets = {0.5, 0.5};
  template <class D>
  static void Declare(D& d) {
    d.field("sizes", &MultiBoxPriorParam::sizes).describe("Anchor sizes (fractions of the image).");
    d.field("ratios", &MultiBoxPriorParam::ratios).describe("Anchor aspect ratios.");
    d.field("clip", &MultiBoxPriorParam::clip).describe("Clip the boxes into [0, 1].");
    d.field("steps", &MultiBoxPriorParam::steps)
        .describe("(step_y, step_x) between anchor centers; -1: 1/height, 1/width.");
    d.field("offsets", &MultiBoxPriorParam::offsets)
        .describe("(offset_y, offset_x) of the centers within a cell, in [0, 1].");
  }
  std::string Validate() const {
    if (sizes.empty()) return "sizes must not be empty";
    if (ratios.empty()) return "ratios must not be empty";
    if (steps.size() != 2)
      return StrCat("steps must have 2 values (step_y, step_x), got ", steps.size());
    if (offsets.size() != 2)
      return StrCat("offsets must have 2 values (offset_y, offset_x), got ", offsets.size());
    for (double o : offsets)
      if (o < 0 || o > 1) return StrCat("offsets must be in [0, 1], got ", o);
    if (steps[0] * steps[1] < 0) return "steps: give both step_y and step_x or neither";
    return "";
  }
};

// Checks MultiBox variances: 4 values (x, y, w, h).
inline std::string CheckVariances(const std::vector<double>& v) {
  if (v.size() != 4) return StrCat("variances must have 4 values, got ", v.size());
  return "";
}

// _contrib_MultiBoxDetection (alias _npx_multibox_detection).
struct MultiBoxDetectionParam {
  bool clip = true;
  float threshold = 0.01f;
  int background_id = 0;
  float nms_threshold = 0.5f;
  bool force_suppress = false;
  std::vector<double> variances = {0.1, 0.1, 0.2, 0.2};
  int nms_topk = -1;
  template <class D>
  static void Declare(D& d) {
    d.field("clip", &MultiBoxDetectionParam::clip).describe("Clip the boxes into [0, 1].");
    d.field("threshold", &MultiBoxDetectionParam::threshold)
        .describe("Detections with a best class probability below this are dropped.");
    d.field("background_id", &MultiBoxDetectionParam::background_id)
        .describe("Background class id (MXNet's CPU kernel always treats class 0 as background).");
    d.field("nms_threshold", &MultiBoxDetectionParam::nms_threshold)
        .describe("NMS IoU threshold; outside (0, 1] disables NMS.");
    d.field("force_suppress", &MultiBoxDetectionParam::force_suppress)
        .describe("Suppress across classes.");
    d.field("variances", &MultiBoxDetectionParam::variances)
        .describe("Scales of the (x, y, w, h) predictions.");
    d.field("nms_topk", &MultiBoxDetectionParam::nms_topk)
        .describe("Keep only the nms_topk best detections before NMS; -1: all.");
  }
  std::string Validate() const { return CheckVariances(variances); }
};

// _contrib_MultiBoxTarget (alias _npx_multibox_target).
struct MultiBoxTargetParam {
  float overlap_threshold = 0.5f;
  float ignore_label = -1.0f;
  float negative_mining_ratio = -1.0f;
  float negative_mining_thresh = 0.5f;
  int minimum_negative_samples = 0;
  std::vector<double> variances = {0.1, 0.1, 0.2, 0.2};
  template <class D>
  static void Declare(D& d) {
    d.field("overlap_threshold", &MultiBoxTargetParam::overlap_threshold)
        .describe("Anchors with IoU > this to a ground truth are positives.");
    d.field("ignore_label", &MultiBoxTargetParam::ignore_label)
        .describe("Class target of anchors that are neither positive nor negative.");
    d.field("negative_mining_ratio", &MultiBoxTargetParam::negative_mining_ratio)
        .describe("Negatives per positive kept by hard negative mining; <= 0: all negatives.");
    d.field("negative_mining_thresh", &MultiBoxTargetParam::negative_mining_thresh)
        .describe("Only anchors with IoU below this are negative candidates.");
    d.field("minimum_negative_samples", &MultiBoxTargetParam::minimum_negative_samples)
        .describe("Accepted for compatibility (MXNet's CPU kernel does not use it).");
    d.field("variances", &MultiBoxTargetParam::variances)
        .describe("Scales of the (x, y, w, h) targets.");
  }
  std::string Validate() const { return CheckVariances(variances); }
};

}  // namespace mxnet::ops
