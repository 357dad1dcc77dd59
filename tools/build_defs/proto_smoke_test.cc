#include <gtest/gtest.h>

#include "tools/build_defs/proto_smoke.pb.h"

namespace mxnet {
namespace {

TEST(ProtoSmoke, SerializesAndParses) {
  proto_smoke::Tensor t;
  t.set_name("conv0_weight");
  t.add_dims(16);
  t.add_dims(3);
  std::string bytes;
  ASSERT_TRUE(t.SerializeToString(&bytes));
  proto_smoke::Tensor back;
  ASSERT_TRUE(back.ParseFromString(bytes));
  EXPECT_EQ(back.name(), "conv0_weight");
  ASSERT_EQ(back.dims_size(), 2);
  EXPECT_EQ(back.dims(1), 3);
}

}  // namespace
}  // namespace mxnet
