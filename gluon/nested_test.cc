// Nested / None block arguments (gluon/nested.h, Block::call_nested and operator()): the
// formats MXNet 1.9's _flatten writes, regrouping, imperative and hybridized calls.
#include "gluon/nested.h"

#include <gtest/gtest.h>

#include "gluon/block.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/elemwise/elemwise_api.h"

namespace mxnet::gluon {
namespace {

NDArray Vec(std::vector<float> v) {
  int64_t n = static_cast<int64_t>(v.size());
  return NDArray::FromVector(v, Shape{n});
}

std::vector<float> Values(const Nested& n) { return n.array().ToVector<float>(); }

// MXNet 1.9's _flatten([x, None, [h, c]], "input") gives the format [0, -1, [0, 0]] and the
// flat list [x, None, h, c]; the cached graph takes it without the None.
TEST(Nested, FlattenGivesMxnetsFormat) {
  NDArray x = Vec({1}), h = Vec({2}), c = Vec({3});
  auto [flat, fmt] = Flatten({x, Nested(), Nested::List({h, c})});
  EXPECT_EQ(fmt, "[0, -1, [0, 0]]");
  ASSERT_EQ(flat.size(), 3u);
  EXPECT_EQ(flat[1].ToVector<float>(), std::vector<float>{2});
  EXPECT_EQ(Nested(x).format(), "0");
  EXPECT_EQ(Nested().format(), "-1");
  EXPECT_EQ(Nested::List({}).format(), "[]");
  EXPECT_EQ(Flatten({}).second, "[]");
}

TEST(Nested, RegroupRebuildsTheStructure) {
  NDArrayVec flat{Vec({1}), Vec({2}), Vec({3})};
  Nested n = Regroup(flat, "[0, -1, [0, [], 0]]");
  ASSERT_TRUE(n.is_list());
  ASSERT_EQ(n.list().size(), 3u);
  EXPECT_EQ(Values(n[0]), std::vector<float>{1});
  EXPECT_TRUE(n[1].is_none());
  EXPECT_TRUE(n[2][1].is_list());
  EXPECT_TRUE(n[2][1].list().empty());
  EXPECT_EQ(Values(n[2][2]), std::vector<float>{3});
  EXPECT_EQ(n.format(), "[0, -1, [0, [], 0]]");
  EXPECT_TRUE(Regroup({}, "-1").is_none());
  EXPECT_EQ(Values(Regroup({Vec({7})}, "0")), std::vector<float>{7});
}

TEST(Nested, BadFormatsAndAccessAreErrors) {
  auto expect_error = [](auto&& f, absl::StatusCode code, const std::string& what) {
    try {
      f();
      ADD_FAILURE() << "no error, expected " << what;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
  NDArrayVec two{Vec({1}), Vec({2})};
  expect_error([&] { Regroup(two, "[0]"); }, kInvalid, "holds 1 arrays but 2 were given");
  expect_error([&] { Regroup(two, "[0, 0, 0]"); }, kInvalid, "more arrays than the 2 given");
  expect_error([&] { Regroup(two, "[0, 0"); }, kInvalid, "malformed format '[0, 0'");
  expect_error([&] { Regroup(two, "[0; 0]"); }, kInvalid, "expected , or ]");
  expect_error([&] { Regroup(two, "[0, 0] x"); }, kInvalid, "unexpected text");
  expect_error([&] { Regroup(two, "[1, 0]"); }, kInvalid, "expected 0, -1 or [");
  expect_error([&] { Nested().array(); }, kInvalid, "the value is None");
  expect_error([&] { Nested(Vec({1})).list(); }, kInvalid, "the value is an array");
  expect_error([&] { Nested::List({Nested()})[1]; }, absl::StatusCode::kOutOfRange,
               "index 1 of a list of 1");
}

// forward(x, [h, c], state=None) -> [x + h * c, [h * c, None]]; with a state: + state.
class Cell : public HybridBlock {
 public:
  Nested forward_nested(const std::vector<Nested>& args) override {
    ++calls;
    const NDArray& x = args.at(0).array();
    NDArray hc = nd::elemwise_mul(args.at(1)[0].array(), args.at(1)[1].array());
    NDArray y = nd::elemwise_add(x, hc);
    if (!args.at(2).is_none()) y = nd::elemwise_add(y, args.at(2).array());
    return Nested::List({y, Nested::List({hc, Nested()})});
  }
  std::string class_name() const override { return "Cell"; }
  int calls = 0;
};

void ExpectCellOutput(const Nested& out, const std::vector<float>& y,
                      const std::vector<float>& hc) {
  ASSERT_EQ(out.format(), "[0, [0, -1]]");
  EXPECT_EQ(Values(out[0]), y);
  EXPECT_EQ(Values(out[1][0]), hc);
  EXPECT_TRUE(out[1][1].is_none());
}

TEST(NestedBlock, ImperativeCallGetsTheStructure) {
  Cell cell;
  NDArray x = Vec({1, 2}), h = Vec({3, 4}), c = Vec({5, 6}), s = Vec({10, 20});
  ExpectCellOutput(cell(x, Nested::List({h, c}), Nested()), {16, 26}, {15, 24});
  ExpectCellOutput(cell(x, Nested::List({h, c}), s), {26, 46}, {15, 24});
  EXPECT_EQ(cell.calls, 2);
  // Hooks see the flat arrays (None left out).
  size_t seen = 0;
  cell.register_forward_pre_hook([&](Block&, const NDArrayVec& in) { seen = in.size(); });
  cell(x, Nested::List({h, c}), Nested());
  EXPECT_EQ(seen, 3u);
}

TEST(NestedBlock, HybridizedCallsReplayTheGraphAndKeepTheStructure) {
  Cell cell;
  cell.hybridize(true, {.static_alloc = true, .static_shape = true, .backend = "none"});
  NDArray x = Vec({1, 2}), h = Vec({3, 4}), c = Vec({5, 6}), s = Vec({10, 20});
  ExpectCellOutput(cell(x, Nested::List({h, c}), Nested()), {16, 26}, {15, 24});
  EXPECT_EQ(cell.calls, 1);  // the trace
  // Replays: forward does not run, the output structure is the traced one.
  ExpectCellOutput(cell(Vec({0, 1}), Nested::List({h, c}), Nested()), {15, 25}, {15, 24});
  EXPECT_EQ(cell.calls, 1);
  EXPECT_FALSE(cell.cached_graph().tojson().empty());
  // Another structure is an error naming both (MXNet raises the same) ...
  try {
    cell(x, Nested::List({h, c}), s);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("stored format [0, [0, 0], -1], input format "
                                         "[0, [0, 0], 0]"),
              std::string::npos)
        << e.what();
  }
  // ... until hybridize() is called again.
  cell.hybridize(true, {.backend = "none"});
  ExpectCellOutput(cell(x, Nested::List({h, c}), s), {26, 46}, {15, 24});
  EXPECT_EQ(cell.calls, 2);
}

// Blocks that override forward take arrays through the nested call too; None or lists need
// forward_nested.
class Twice : public HybridBlock {
 public:
  NDArray forward(const NDArray& x) override { return nd::mul_scalar(x, 2); }
  std::string class_name() const override { return "Twice"; }
};

class Split : public HybridBlock {
 public:
  NDArrayVec forward(const NDArrayVec& in) override {
    return {nd::mul_scalar(in.at(0), 2), nd::mul_scalar(in.at(1), 3)};
  }
  std::string class_name() const override { return "Split"; }
};

TEST(NestedBlock, ForwardBlocksTakeArraysAndRejectNone) {
  Twice twice;
  EXPECT_EQ(Values(twice(Nested(Vec({1, 2})))), (std::vector<float>{2, 4}));
  twice.hybridize(true, {.backend = "none"});
  EXPECT_EQ(Values(twice(Nested(Vec({1, 2})))), (std::vector<float>{2, 4}));
  EXPECT_EQ(Values(twice(Nested(Vec({3})))), (std::vector<float>{6}));
  Split split;
  Nested out = split(Vec({1}), Vec({1}));
  EXPECT_EQ(out.format(), "[0, 0]");
  EXPECT_EQ(Values(out[1]), (std::vector<float>{3}));
  Twice plain;
  try {
    plain(Vec({1}), Nested());
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("Twice got None or nested arguments (format [0, -1])"),
              std::string::npos)
        << e.what();
  }
}

// A block with nested arguments inside a parent: the child's structure survives the parent's
// hybridized trace, and the parent's arrays-only call goes through forward.
class Parent : public HybridBlock {
 public:
  Parent() { cell = register_child(std::make_shared<Cell>(), "cell"); }
  NDArrayVec forward(const NDArrayVec& in) override {
    Nested out = (*cell)(in.at(0), Nested::List({in.at(1), in.at(2)}), Nested());
    return {out[0].array(), out[1][0].array()};
  }
  std::string class_name() const override { return "Parent"; }
  std::shared_ptr<Cell> cell;
};

TEST(NestedBlock, ChildWithNestedArgumentsInsideAHybridizedParent) {
  Parent p;
  NDArrayVec in{Vec({1, 2}), Vec({3, 4}), Vec({5, 6})};
  NDArrayVec want = p(in);
  EXPECT_EQ(want[0].ToVector<float>(), (std::vector<float>{16, 26}));
  p.hybridize(true, {.backend = "none"});
  for (int i = 0; i < 2; ++i) {
    NDArrayVec got = p(in);
    EXPECT_EQ(got[0].ToVector<float>(), (std::vector<float>{16, 26}));
    EXPECT_EQ(got[1].ToVector<float>(), (std::vector<float>{15, 24}));
  }
}

}  // namespace
}  // namespace mxnet::gluon
