// nd:: free functions of the conv op family (see ndarray/ops/BUILD).
#pragma once

#include "ndarray/ops/basic_api.h"

namespace mxnet::nd {}  // namespace mxnet::nd
