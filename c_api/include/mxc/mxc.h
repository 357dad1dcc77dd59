/* mxc: the stable C ABI of mxnet-cpp. Include this one header (or the family headers). */
#ifndef MXC_MXC_H_
#define MXC_MXC_H_

#include "mxc/autograd.h"
#include "mxc/base.h"
#include "mxc/ctx.h"
#include "mxc/custom.h"
#include "mxc/data.h"
#include "mxc/gluon.h"
#include "mxc/log.h"
#include "mxc/ndarray.h"
#include "mxc/onnx.h"
#include "mxc/ops.h"
#include "mxc/symbol.h"
#include "mxc/training.h"

#endif /* MXC_MXC_H_ */
