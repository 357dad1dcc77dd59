// RuntimeContext (ndarray/runtime_context.h): per-thread defaults, ContextScope switching and
// nesting, a context handed between threads (a migrating goroutine), the one-thread-at-a-time
// check, per-context random streams against mx.random.seed semantics, and the default device.
#include "ndarray/runtime_context.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "ndarray/op.h"
#include "ndarray/ops/shape/shape_api.h"
#include "ndarray/random.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet {
namespace {

std::vector<float> Draw(int n = 6) { return nd::random::uniform(0, 1, Shape{n}).ToVector<float>(); }

// Runs f on a new thread and waits for it.
template <typename F>
void OnThread(F f) {
  std::thread t(f);
  t.join();
}

TEST(RuntimeContext, EachThreadStartsWithItsOwnDefault) {
  RuntimeContext* main_default = &RuntimeContext::Current();
  CurrentDispatchState().is_recording = true;
  RuntimeContext* other = nullptr;
  bool other_recording = true;
  OnThread([&] {
    other = &RuntimeContext::Current();
    other_recording = CurrentDispatchState().is_recording;
  });
  EXPECT_NE(other, main_default);
  EXPECT_FALSE(other_recording);
  EXPECT_EQ(&RuntimeContext::Current(), main_default);
  CurrentDispatchState().is_recording = false;
}

TEST(RuntimeContext, ScopesSwitchNestAndRestore) {
  RuntimeContext& thread_default = RuntimeContext::Current();
  RuntimeContext a, b;
  {
    ContextScope sa(a);
    EXPECT_EQ(&RuntimeContext::Current(), &a);
    CurrentDispatchState().is_training = true;
    {
      ContextScope sb(b);
      EXPECT_EQ(&RuntimeContext::Current(), &b);
      EXPECT_FALSE(CurrentDispatchState().is_training);
      ContextScope again(a);  // re-entering a context on its own thread is fine
      EXPECT_TRUE(CurrentDispatchState().is_training);
    }
    EXPECT_EQ(&RuntimeContext::Current(), &a);
  }
  EXPECT_EQ(&RuntimeContext::Current(), &thread_default);
  EXPECT_FALSE(thread_default.dispatch.is_training);
  EXPECT_TRUE(a.dispatch.is_training);  // the state stays with the context
}

// A goroutine's context moves from OS thread to OS thread between calls: its flags go with it.
TEST(RuntimeContext, StateFollowsTheContextAcrossThreads) {
  RuntimeContext ctx;
  OnThread([&] {
    ContextScope s(ctx);
    CurrentDispatchState().is_recording = true;
  });
  bool seen = false;
  OnThread([&] {
    ContextScope s(ctx);
    seen = CurrentDispatchState().is_recording;
  });
  EXPECT_TRUE(seen);
  EXPECT_FALSE(CurrentDispatchState().is_recording);  // this thread's default is untouched
}

TEST(RuntimeContext, OneThreadAtATime) {
  RuntimeContext ctx;
  std::atomic<int> stage{0};
  std::thread holder([&] {
    ContextScope s(ctx);
    stage = 1;
    while (stage != 2) std::this_thread::yield();
  });
  while (stage != 1) std::this_thread::yield();
  try {
    ContextScope s(ctx);
    ADD_FAILURE() << "a second thread entered the context";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(std::string(e.what()).find("another thread"), std::string::npos) << e.what();
  }
  stage = 2;
  holder.join();
  ContextScope s(ctx);  // free again
  EXPECT_EQ(&RuntimeContext::Current(), &ctx);
}

TEST(RuntimeContext, DispatchStateScopeRestoresTheWholeState) {
  DispatchState before = CurrentDispatchState();
  {
    DispatchStateScope s;
    s.state().is_recording = true;
    s.state().infer_only = true;
    EXPECT_TRUE(CurrentDispatchState().infer_only);
    {
      QuietDispatchScope q;
      EXPECT_FALSE(CurrentDispatchState().is_recording);
      EXPECT_TRUE(CurrentDispatchState().infer_only);
    }
    EXPECT_TRUE(CurrentDispatchState().is_recording);
  }
  EXPECT_EQ(CurrentDispatchState().is_recording, before.is_recording);
  EXPECT_EQ(CurrentDispatchState().infer_only, before.infer_only);
}

// A seeded context draws what mx.random.seed(s) gives the process-wide generators, and neither
// disturbs the other.
TEST(RuntimeContext, OwnRandomStream) {
  random::seed(42);
  std::vector<float> global = Draw();
  RuntimeContext ctx;
  ctx.seed(42);
  random::seed(42);
  std::vector<float> own;
  {
    ContextScope s(ctx);
    own = Draw();
  }
  EXPECT_EQ(own, global);
  EXPECT_EQ(Draw(), global);  // the global stream did not advance while ctx drew
  // Two contexts with one seed on two threads at once: identical, independent sequences.
  RuntimeContext c1, c2;
  c1.seed(9);
  c2.seed(9);
  std::vector<float> r1, r2;
  std::thread t1([&] {
    ContextScope s(c1);
    for (int i = 0; i < 50; ++i) r1 = Draw();
  });
  std::thread t2([&] {
    ContextScope s(c2);
    for (int i = 0; i < 50; ++i) r2 = Draw();
  });
  t1.join();
  t2.join();
  EXPECT_EQ(r1, r2);
  random::seed(9);  // the 50th draw of one stream seeded 9, alone: neither context saw the other
  std::vector<float> alone;
  for (int i = 0; i < 50; ++i) alone = Draw();
  EXPECT_EQ(r1, alone);
  // Back to the global generators.
  ctx.use_global_random();
  EXPECT_EQ(ctx.generators(), nullptr);
  random::seed(42);
  ContextScope s(ctx);
  EXPECT_EQ(Draw(), global);
}

TEST(RuntimeContext, DefaultDeviceOfOpsWithoutInputs) {
  RuntimeContext ctx;
  ctx.default_device = Device{DeviceType::kCPUPinned, 0};
  ContextScope s(ctx);
  NDArrayVec z = Invoke("_zeros", {}, {{"shape", "(2,)"}});
  EXPECT_EQ(z[0].device(), ctx.default_device);
  // An explicit device still wins.
  EXPECT_EQ(Invoke("_zeros", {}, {{"shape", "(2,)"}, {"ctx", "cpu(0)"}})[0].device(), cpu());
}

}  // namespace
}  // namespace mxnet
