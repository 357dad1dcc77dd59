#include "ndarray/testing/ref_json.h"

#include <fstream>
#include <limits>

#include "base/strings.h"
#include "ndarray/grad.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {

using json = nlohmann::json;

json LoadRefJson(const std::string& path) {
  std::ifstream f(path);
  if (!f.good()) {
    ADD_FAILURE() << "cannot open reference file " << path;
    return json{{"cases", json::array()}};
  }
  return json::parse(f);
}

double RefNumber(const json& x) {
  if (!x.is_string()) return x.get<double>();
  const std::string t = x.get<std::string>();
  if (t == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (t == "inf") return std::numeric_limits<double>::infinity();
  if (t == "-inf") return -std::numeric_limits<double>::infinity();
  return std::stod(t);
}

NDArray RefArray(const json& a, DType dtype) {
  Shape s(a["shape"].get<std::vector<int64_t>>());
  const json& data = a.contains("data") ? a["data"] : a["values"];
  std::vector<double> v;
  v.reserve(data.size());
  for (const json& x : data) v.push_back(RefNumber(x));
  return NDArray::FromVector(v, s, cpu(), dtype);
}

NDArray RefArray(const json& a) {
  return RefArray(a, ValueOrThrow(DTypeFromName(a["dtype"].get<std::string>())));
}

AttrDict RefAttrs(const json& c) {
  AttrDict d;
  for (const auto& [k, v] : c["attrs"].items()) d[k] = v.get<std::string>();
  return d;
}

std::vector<NDArray> RefInputs(const json& c) {
  std::vector<NDArray> in;
  for (const json& x : c["inputs"]) in.push_back(RefArray(x));
  return in;
}

std::vector<NDArray> RefHeadGrads(const json& c, const NDArrayVec& outs, int visible) {
  std::vector<NDArray> og;
  for (size_t k = 0; k < outs.size(); ++k)
    og.push_back(static_cast<int>(k) < visible
                     ? RefArray(c["head_grads"][k])
                     : NDArray::Full(outs[k].shape(), 0, cpu(), outs[k].dtype()));
  return og;
}

::testing::AssertionResult SameDTypeAllClose(const NDArray& got, const NDArray& want, double rtol,
                                             double atol) {
  if (got.dtype() != want.dtype())
    return ::testing::AssertionFailure()
           << "dtype " << DTypeName(got.dtype()) << " vs MXNet " << DTypeName(want.dtype());
  return AllClose(got, want, rtol, atol);
}

void CheckRefCase(const json& c, const RefMatcher& match, int* n, int* with_grads,
                  std::set<std::string>* ops) {
  const std::string name = c["name"], opname = c["op"];
  SCOPED_TRACE(name);
  const Op& op = OpRegistry::Get(opname);
  if (ops) ops->insert(op.name);
  OpAttrs a = OpAttrs::Parse(op, RefAttrs(c));
  std::vector<NDArray> in = RefInputs(c);
  NDArrayVec out = Invoke(op, a, in);
  ASSERT_EQ(op.NumVisibleOutputs(a), static_cast<int>(c["outputs"].size())) << name;
  for (size_t k = 0; k < c["outputs"].size(); ++k) {
    NDArray want = RefArray(c["outputs"][k]);
    ASSERT_EQ(out[k].shape(), want.shape()) << name << " output " << k;
    EXPECT_TRUE(match(out[k], want)) << name << " output " << k;
  }
  ++*n;
  if (!c.contains("grads")) return;
  std::vector<NDArray> outs(out.begin(), out.end()), og;
  for (size_t k = 0; k < outs.size(); ++k)
    og.push_back(k < c["head_grads"].size()
                     ? RefArray(c["head_grads"][k]).astype(outs[k].dtype())
                     : NDArray::Full(outs[k].shape(), 0, cpu(), outs[k].dtype()));
  std::vector<NDArray> g = EagerGradBuilder::Run(op, a, in, outs, og);
  for (size_t i = 0; i < c["grads"].size(); ++i) {
    if (c["grads"][i].is_null()) continue;
    ASSERT_FALSE(g[i].is_none()) << name << " gradient " << i;
    EXPECT_TRUE(match(g[i], RefArray(c["grads"][i]))) << name << " gradient " << i;
  }
  ++*with_grads;
}

RefMatcher DTypeTolerance(double rtol32, double atol32) {
  return [rtol32, atol32](const NDArray& got, const NDArray& want) {
    if (want.dtype() == DType::kFloat32) return SameDTypeAllClose(got, want, rtol32, atol32);
    if (want.dtype() == DType::kFloat64) return SameDTypeAllClose(got, want, 1e-12, 1e-13);
    return SameDTypeAllClose(got, want, 0, 0);
  };
}

RefFileCounts CheckRefFile(const json& doc, const RefMatcher& match) {
  RefFileCounts r;
  EXPECT_EQ(doc.value("mxnet_version", ""), "1.9.1");
  if (doc.contains("cases"))
    for (const auto& c : doc["cases"]) CheckRefCase(c, match, &r.cases, &r.with_grads, &r.ops);
  return r;
}

size_t CheckRefErrors(const json& doc) {
  if (!doc.contains("errors")) return 0;
  for (const auto& c : doc["errors"]) {
    std::vector<NDArray> in = RefInputs(c);
    std::string op = c["op"];
    SCOPED_TRACE(c.value("name", op));
    ExpectInvalidArgument([&] { Invoke(op, in, RefAttrs(c)); }, {op});
  }
  return doc["errors"].size();
}

namespace {
// "'abc'" -> "abc".
std::string Unquote(std::string s) {
  if (s.size() >= 2 && s.front() == '\'') s = s.substr(1, s.size() - 2);
  return s;
}
}  // namespace

void CheckRegistryEntry(const std::string& name, const json& info, const AttrDict& required) {
  SCOPED_TRACE(name);
  const Op* op = OpRegistry::Find(name);
  ASSERT_NE(op, nullptr) << name;
  EXPECT_EQ(op->name, name);
  for (const auto& n : info["names"]) {
    const Op* alias = OpRegistry::Find(n.get<std::string>());
    EXPECT_EQ(alias, op) << "MXNet name " << n << " of " << name;
  }
  OpAttrs defaults = OpAttrs::Parse(*op, required);
  EXPECT_EQ(op->InputNames(defaults), info["inputs"].get<std::vector<std::string>>());
  std::set<std::string> ours, theirs;
  if (op->schema)
    for (const auto& f : op->schema->fields) ours.insert(f.name);
  for (const auto& at : info["attrs"]) {
    std::string an = at[0], type = at[1];
    theirs.insert(an);
    ASSERT_TRUE(op->schema) << name;
    const FieldInfo* f = op->schema->Find(an);
    ASSERT_NE(f, nullptr) << name << "." << an;
    if (type.find("required") != std::string::npos) {
      EXPECT_TRUE(f->required) << name << "." << an;
      continue;
    }
    size_t d = type.find("default=");
    ASSERT_NE(d, std::string::npos) << type;
    std::string def = Unquote(type.substr(d + 8));
    // MXNet's default parses to our default.
    AttrDict with = required;
    with[an] = def;
    EXPECT_TRUE(OpAttrs::Parse(*op, with) == defaults)
        << name << "." << an << " default '" << def << "'";
    // Enumerations: the same choices.
    if (type.front() == '{') {
      std::string inner = type.substr(1, type.find('}') - 1);
      std::set<std::string> want;
      for (std::string_view p : StrSplit(inner, ','))
        want.insert(Unquote(std::string(StripWhitespace(p))));
      EXPECT_EQ(std::set<std::string>(f->choices.begin(), f->choices.end()), want)
          << name << "." << an;
    }
  }
  EXPECT_EQ(ours, theirs) << name;
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void ExpectInvalidArgument(const std::function<void()>& f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one mentioning " << StrJoin(parts, " / ");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument) << e.what();
    for (const auto& p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what() << " lacks " << p;
  }
}

std::vector<NDArray> CopyAll(const std::vector<NDArray>& in) {
  std::vector<NDArray> out;
  for (const auto& a : in) out.push_back(a.copy());
  return out;
}

}  // namespace mxnet::testing
