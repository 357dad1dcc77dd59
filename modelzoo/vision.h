// mxnet.gluon.model_zoo.vision in C++: the 34 pre-defined vision models with MXNet 1.9.1's module
// trees (so MXNet's save_parameters files and the model store's pretrained weights load by
// structured name), their factories, and get_model by MXNet's names.
//
//   namespace vision = mxnet::gluon::model_zoo::vision;
//   auto net = vision::get_model("resnet50_v1");                 // random weights after
//   initialize() net->initialize(gluon::init::Xavier()); auto pre =
//   vision::get_model("mobilenetv2_1.0", {.pretrained = true});   // model store NDArray y =
//   (*pre)(vision::preprocess_image(img));           // preprocess.h
//
// Pretrained weights expect RGB input in [0, 1] normalized with mean (0.485, 0.456, 0.406) and
// std (0.229, 0.224, 0.225), 224x224 (299x299 for inceptionv3): see preprocess.h.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "modelzoo/alexnet.h"
#include "modelzoo/common.h"
#include "modelzoo/densenet.h"
#include "modelzoo/inception.h"
#include "modelzoo/mobilenet.h"
#include "modelzoo/resnet.h"
#include "modelzoo/squeezenet.h"
#include "modelzoo/vgg.h"

namespace mxnet::gluon::model_zoo::vision {

// Returns a pre-defined model by MXNet's name (case-insensitive): resnet18_v1 ... resnet152_v2,
// vgg11 ... vgg19_bn, alexnet, densenet121/161/169/201, squeezenet1.0, squeezenet1.1,
// inceptionv3, mobilenet1.0/0.75/0.5/0.25, mobilenetv2_1.0/0.75/0.5/0.25. Throws
// kInvalidArgument for another name, listing the valid ones; pretrained errors as ModelOptions.
std::shared_ptr<HybridBlock> get_model(std::string_view name, const ModelOptions& options = {});

// get_model's names, sorted (as MXNet lists them in the error).
std::vector<std::string> model_names();

// The input size the pretrained weights expect: 299 for inceptionv3, 224 for the others.
int64_t input_size(std::string_view name);

}  // namespace mxnet::gluon::model_zoo::vision
