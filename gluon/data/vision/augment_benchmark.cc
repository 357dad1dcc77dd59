// Per-image training augmentation on one core: JPEG decode (libjpeg-turbo) + RandomResizedCrop(224)
// (antialiased) + RandomFlipLeftRight + ToTensor + Normalize, over the real photos. Reports
// images/s; the target is >= 500 images/s per core for ImageNet-sized (~500x400) JPEGs.
//   ./bazelw run -c opt --config=bench //gluon/data/vision:augment_benchmark
#include <benchmark/benchmark.h>

#include "gluon/data/vision/image.h"
#include "gluon/data/vision/transforms.h"

namespace mxnet::gluon::data::vision {
namespace {

const char* const kPhotos[] = {"/work/shared/data/images/cat.jpg",           // 500x400
                               "/work/shared/data/images/dog.jpg",           // 1024x576
                               "/work/shared/data/images/plane-draw.jpeg"};  // 882x548

void BM_DecodeAugment(benchmark::State& state) {
  using namespace transforms;
  const std::string bytes = ValueOrThrow(ReadFileBytes(kPhotos[state.range(0)]));
  Compose aug({RandomResizedCrop(224), RandomFlipLeftRight(), ToTensor(),
               Normalize({0.485f, 0.456f, 0.406f}, {0.229f, 0.224f, 0.225f})});
  for (auto _ : state) {
    NDArray img = ValueOrThrow(imdecode(bytes));
    NDArray out = aug(img);
    benchmark::DoNotOptimize(out.data_ptr());
  }
  state.counters["images/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_DecodeAugment)->DenseRange(0, 2)->ArgName("photo")->Unit(benchmark::kMicrosecond);

// The parts alone, on the cat photo.
void BM_DecodeOnly(benchmark::State& state) {
  const std::string bytes = ValueOrThrow(ReadFileBytes(kPhotos[state.range(0)]));
  for (auto _ : state) benchmark::DoNotOptimize(ValueOrThrow(imdecode(bytes)).data_ptr());
}
BENCHMARK(BM_DecodeOnly)->DenseRange(0, 2)->ArgName("photo")->Unit(benchmark::kMicrosecond);

void BM_RandomResizedCrop224(benchmark::State& state) {
  const NDArray img = ValueOrThrow(imread(kPhotos[0]));
  transforms::RandomResizedCrop crop(224);
  for (auto _ : state) benchmark::DoNotOptimize(crop(img).data_ptr());
}
BENCHMARK(BM_RandomResizedCrop224)->Unit(benchmark::kMicrosecond);

void BM_Resize(benchmark::State& state) {
  const NDArray img = ValueOrThrow(imread(kPhotos[1]));
  const auto interp = static_cast<Interp>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(imresize(img, 224, 224, interp).data_ptr());
}
BENCHMARK(BM_Resize)->Arg(1)->Arg(2)->Arg(3)->Arg(4)->ArgName("interp")->Unit(
    benchmark::kMicrosecond);

}  // namespace
}  // namespace mxnet::gluon::data::vision
