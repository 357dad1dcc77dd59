// What an mxc_parameter holds (gluon.cc makes them, training.cc reads them).
#pragma once

#include <string>

#include "gluon/parameter.h"

namespace mxc {

// The parameter and the structured name it was collected under ("features.0.weight").
struct ParamRef {
  std::string name;
  mxnet::gluon::ParameterPtr param;
};

}  // namespace mxc
