// Typed attributes of the nn family's contrib ops (nn_contrib*.cc): MXNet 1.9.1's names, C++
// defaults and string forms (src/operator/contrib/{transformer,sync_batch_norm,fft,ifft,
// count_sketch,hawkes_ll,proposal,multi_proposal}-inl.h). They double as the options structs of
// ndarray/ops/contrib/nn_contrib_api.h.
#pragma once

#include <string>
#include <vector>

#include "ndarray/params.h"

namespace mxnet::ops {

// _contrib_interleaved_matmul_{selfatt,encdec}_{qk,valatt} (src/operator/contrib/transformer.cc).
struct InterleavedMatmulParam {
  int heads = 0;
  template <class D>
  static void Declare(D& d) {
    d.field("heads", &InterleavedMatmulParam::heads)
        .required()
        .describe("Number of attention heads (>= 1).");
  }
  std::string Validate() const;
};

// _contrib_SyncBatchNorm (src/operator/contrib/sync_batch_norm-inl.h). key is required.
struct SyncBatchNormParam {
  float eps = 1e-3f;
  float momentum = 0.9f;
  bool fix_gamma = true;
  bool use_global_stats = false;
  bool output_mean_var = false;
  int ndev = 1;
  std::string key;
  template <class D>
  static void Declare(D& d) {
    d.field("eps", &SyncBatchNormParam::eps).describe("Epsilon added to the variance.");
    d.field("momentum", &SyncBatchNormParam::momentum).describe("Momentum of the moving averages.");
    d.field("fix_gamma", &SyncBatchNormParam::fix_gamma)
        .describe("Treat gamma as 1 (its gradient is 0).");
    d.field("use_global_stats", &SyncBatchNormParam::use_global_stats)
        .describe("Normalize with the moving statistics, also in training.");
    d.field("output_mean_var", &SyncBatchNormParam::output_mean_var)
        .describe("Also output the mean and the (biased) variance.");
    d.field("ndev", &SyncBatchNormParam::ndev)
        .describe("Devices synchronized (one process, one device here: statistics are local).");
    d.field("key", &SyncBatchNormParam::key)
        .required()
        .describe("Hash key naming the layer for synchronization (unused on one device).");
  }
  std::string Validate() const;
};

// _contrib_fft, _contrib_ifft (src/operator/contrib/{fft,ifft}-inl.h). compute_size only sizes
// MXNet's cuFFT sub-batches; results do not depend on it.
struct FFTParam {
  int compute_size = 128;
  template <class D>
  static void Declare(D& d) {
    d.field("compute_size", &FFTParam::compute_size)
        .describe("Maximum rows transformed at one time (>= 1; no effect on results).");
  }
  std::string Validate() const;
};

// _contrib_count_sketch (src/operator/contrib/count_sketch-inl.h). out_dim is required.
struct CountSketchParam {
  int out_dim = 0;
  int processing_batch_size = 32;
  template <class D>
  static void Declare(D& d) {
    d.field("out_dim", &CountSketchParam::out_dim).required().describe("The output dimension k.");
    d.field("processing_batch_size", &CountSketchParam::processing_batch_size)
        .describe("Rows sketched at one time (>= 1; no effect on results).");
  }
  std::string Validate() const;
};

// _contrib_Proposal, _contrib_MultiProposal (src/operator/contrib/{proposal,multi_proposal}-inl.h).
struct ProposalParam {
  int rpn_pre_nms_top_n = 6000;
  int rpn_post_nms_top_n = 300;
  float threshold = 0.7f;
  int rpn_min_size = 16;
  std::vector<double> scales = {4, 8, 16, 32};
  std::vector<double> ratios = {0.5, 1, 2};
  int feature_stride = 16;
  bool output_score = false;
  bool iou_loss = false;
  template <class D>
  static void Declare(D& d) {
    d.field("rpn_pre_nms_top_n", &ProposalParam::rpn_pre_nms_top_n)
        .describe("Top-scoring boxes kept before NMS (<= 0: all).");
    d.field("rpn_post_nms_top_n", &ProposalParam::rpn_post_nms_top_n)
        .describe("Boxes output per image after NMS (>= 1; repeated when fewer survive).");
    d.field("threshold", &ProposalParam::threshold)
        .describe("NMS IoU threshold: a box overlapping a kept one by more is suppressed.");
    d.field("rpn_min_size", &ProposalParam::rpn_min_size)
        .describe("Minimum box side (times im_info's scale); smaller boxes get score -1.");
    d.field("scales", &ProposalParam::scales).describe("Anchor scales.");
    d.field("ratios", &ProposalParam::ratios).describe("Anchor aspect ratios (height / width).");
    d.field("feature_stride", &ProposalParam::feature_stride)
        .describe("Image pixels per feature-map cell (>= 1).");
    d.field("output_score", &ProposalParam::output_score).describe("Also output the scores.");
    d.field("iou_loss", &ProposalParam::iou_loss)
        .describe("Deltas are corner offsets (IoU loss) instead of center/size deltas.");
  }
  std::string Validate() const;
};

}  // namespace mxnet::ops
