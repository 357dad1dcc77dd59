// nd:: free functions of the optim op family (see ndarray/ops/BUILD).
#pragma once

#include "ndarray/ops/basic_api.h"

namespace mxnet::nd {}  // namespace mxnet::nd
