// gen_onnx_cases OUT_DIR: writes every test case (gluon/onnx/testing/cases.h) as
// OUT_DIR/<case>.onnx (opset 13, dynamic batch, exported at batch 2) and its batch-3 inputs
// OUT_DIR/<case>_in<k>.npy. gluon/onnx/testdata/gen_ort_refs.py runs it, then ONNX Runtime on the
// files.
#include <cstdio>
#include <string>

#include "base/strings.h"
#include "gluon/onnx/onnx.h"
#include "gluon/onnx/testing/cases.h"
#include "ndarray/io.h"

int main(int argc, char** argv) {
  using namespace mxnet;
  if (argc != 2) {
    std::fprintf(stderr, "usage: gen_onnx_cases OUT_DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  for (const auto& c : gluon::onnx_testing::AllCases()) {
    absl::Status st = gluon::export_onnx(c.graph, c.params, c.inputs, dir + "/" + c.name + ".onnx");
    auto in = gluon::onnx_testing::CaseInputs(c, 3);
    nd::SaveOptions o;
    o.format = nd::FileFormat::kNpy;
    for (size_t k = 0; st.ok() && k < in.size(); ++k)
      st = nd::save(StrCat(dir, "/", c.name, "_in", k, ".npy"), std::vector<NDArray>{in[k]}, o);
    if (!st.ok()) {
      std::fprintf(stderr, "%s: %s\n", c.name.c_str(), std::string(st.message()).c_str());
      return 1;
    }
    std::printf("%s\n", c.name.c_str());
  }
  return 0;
}
