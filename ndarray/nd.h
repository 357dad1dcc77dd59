// The imperative C++ API over the operator registry (mxnet.ndarray): free functions per op,
// e.g. nd::Convolution(data, weight, bias, {...}), nd::relu(x), and + - * / with broadcasting.
// Each op family's functions are declared in ndarray/ops/<family>_api.h.
#pragma once

#include "ndarray/ndarray.h"
#include "ndarray/op.h"
#include "ndarray/ops/basic_api.h"
#include "ndarray/ops/conv_api.h"
#include "ndarray/ops/conv_spatial_api.h"
#include "ndarray/ops/elemwise_api.h"
#include "ndarray/ops/nn_api.h"
#include "ndarray/ops/nn_extra_api.h"
#include "ndarray/ops/nn_rnn_api.h"
#include "ndarray/ops/optim_api.h"
#include "ndarray/ops/optim_multi_api.h"
#include "ndarray/ops/reduce_api.h"
#include "ndarray/ops/reduce_contrib_api.h"
#include "ndarray/ops/reduce_linalg_api.h"
#include "ndarray/ops/shape_api.h"
#include "ndarray/ops/shape_image_api.h"
#include "ndarray/ops/shape_misc_api.h"
#include "ndarray/ops/shape_sample_api.h"
