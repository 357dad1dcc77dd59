// Each op's parameters are declared once (the struct's Declare in ndarray/ops/*/..._params.h):
// the C ABI's operator metadata, which the bindings' generated wrappers are made from, must say
// exactly what that declaration says, for every registered op. Links the implementation
// statically so the registry the test reads is the one mxc_ serves.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "mxc/mxc.h"
#include "ndarray/op.h"

namespace {

void Ok(mxc_status* s, const std::string& what) {
  ASSERT_EQ(s, nullptr) << what << ": " << mxc_status_message(s);
}

std::string Str(const char* s) { return s ? s : "<null>"; }

TEST(OpSchema, CApiMetadataIsTheDeclaration) {
  const auto ops = mxnet::OpRegistry::List();
  size_t count = 0;
  Ok(mxc_op_count(&count), "mxc_op_count");
  EXPECT_EQ(count, ops.size());
  int with_schema = 0, attrs_checked = 0;
  for (const mxnet::Op* op : ops) {
    SCOPED_TRACE(op->name);
    mxc_op* h = nullptr;
    Ok(mxc_op_find(op->name.c_str(), &h), "mxc_op_find");
    mxc_op_info info{};
    info.struct_size = sizeof info;
    Ok(mxc_op_get_info(h, &info), "mxc_op_get_info");
    EXPECT_EQ(Str(info.name), op->name);
    const mxnet::ParamSchema* schema = op->schema;
    ASSERT_EQ(info.num_attrs, schema ? schema->fields.size() : 0u);
    if (!schema) continue;
    ++with_schema;
    std::shared_ptr<void> dflt = schema->make_default();
    for (size_t i = 0; i < info.num_attrs; ++i) {
      const mxnet::FieldInfo& f = schema->fields[i];  // Declare's order is the ABI's order
      SCOPED_TRACE(f.name);
      mxc_op_attr a{};
      a.struct_size = sizeof a;
      Ok(mxc_op_attr_at(h, i, &a), "mxc_op_attr_at");
      EXPECT_EQ(Str(a.name), f.name);
      EXPECT_EQ(Str(a.type), f.type);
      EXPECT_EQ(a.required != 0, f.required);
      EXPECT_EQ(a.optional != 0, f.type.starts_with("optional<"));
      EXPECT_EQ(Str(a.doc), f.doc);
      ASSERT_EQ(a.num_choices, f.choices.size());
      for (size_t c = 0; c < a.num_choices; ++c) EXPECT_EQ(Str(a.choices[c]), f.choices[c]);
      if (f.required) {
        EXPECT_EQ(a.default_value, nullptr);
        continue;
      }
      // The default is the struct's member initializer, printed; it parses back to itself and
      // is one of the choices when the field has any.
      const std::string d = f.print(dflt.get());
      EXPECT_EQ(Str(a.default_value), d);
      std::shared_ptr<void> obj = schema->make_default();
      EXPECT_TRUE(f.parse(obj.get(), d)) << d;
      EXPECT_TRUE(f.equal(obj.get(), dflt.get())) << d;
      if (!f.choices.empty()) {
        EXPECT_NE(std::find(f.choices.begin(), f.choices.end(), d), f.choices.end()) << d;
      }
      ++attrs_checked;
    }
  }
  // Most ops have attributes (MXNet 1.9.1's ~600 ops, their aliases and helpers).
  EXPECT_GT(with_schema, 300);
  EXPECT_GT(attrs_checked, 1000);
}

}  // namespace
