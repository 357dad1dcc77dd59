#include "gluon/nested.h"

#include <string_view>

#include "base/error.h"
#include "base/strings.h"

namespace mxnet::gluon {
namespace {

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

const char* KindName(const Nested& n) {
  return n.is_none() ? "None" : n.is_array() ? "an array" : "a list";
}

void FlattenInto(const Nested& n, NDArrayVec* flat, std::string* fmt) {
  if (n.is_none()) {
    *fmt += "-1";
  } else if (n.is_array()) {
    flat->push_back(n.array());
    *fmt += "0";
  } else {
    *fmt += "[";
    const auto& items = n.list();
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) *fmt += ", ";
      FlattenInto(items[i], flat, fmt);
    }
    *fmt += "]";
  }
}

// A recursive-descent reader of the format grammar: item := "0" | "-1" | "[" [item {"," item}] "]".
class Reader {
 public:
  Reader(const NDArrayVec& flat, std::string_view fmt) : flat_(flat), fmt_(fmt) {}

  Nested Read() {
    Nested n = Item();
    Skip();
    if (pos_ != fmt_.size()) Fail("unexpected text");
    if (next_ != flat_.size())
      MX_THROW(kInvalid, "Regroup: format ", fmt_, " holds ", next_, " arrays but ", flat_.size(),
               " were given");
    return n;
  }

 private:
  void Skip() {
    while (pos_ < fmt_.size() && fmt_[pos_] == ' ') ++pos_;
  }
  [[noreturn]] void Fail(std::string_view what) {
    MX_THROW(kInvalid, "Regroup: malformed format '", fmt_, "': ", what, " at character ", pos_);
  }
  Nested Item() {
    Skip();
    if (pos_ >= fmt_.size()) Fail("unexpected end");
    if (fmt_.substr(pos_, 2) == "-1") {
      pos_ += 2;
      return Nested();
    }
    if (fmt_[pos_] == '0') {
      ++pos_;
      if (next_ >= flat_.size())
        MX_THROW(kInvalid, "Regroup: format ", fmt_, " holds more arrays than the ", flat_.size(),
                 " given");
      return Nested(flat_[next_++]);
    }
    if (fmt_[pos_] != '[') Fail("expected 0, -1 or [");
    ++pos_;
    std::vector<Nested> items;
    Skip();
    if (pos_ < fmt_.size() && fmt_[pos_] == ']') {
      ++pos_;
      return Nested::List(std::move(items));
    }
    while (true) {
      items.push_back(Item());
      Skip();
      if (pos_ < fmt_.size() && fmt_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < fmt_.size() && fmt_[pos_] == ']') {
        ++pos_;
        return Nested::List(std::move(items));
      }
      Fail("expected , or ]");
    }
  }

  const NDArrayVec& flat_;
  std::string_view fmt_;
  size_t pos_ = 0;
  size_t next_ = 0;
};

}  // namespace

Nested::Nested(NDArray a) : kind_(Kind::kArray), array_(std::move(a)) {}

Nested Nested::List(std::vector<Nested> items) {
  Nested n;
  n.kind_ = Kind::kList;
  n.items_ = std::move(items);
  return n;
}

const NDArray& Nested::array() const {
  if (!is_array()) MX_THROW(kInvalid, "Nested::array: the value is ", KindName(*this));
  return array_;
}

const std::vector<Nested>& Nested::list() const {
  if (!is_list()) MX_THROW(kInvalid, "Nested::list: the value is ", KindName(*this));
  return items_;
}

const Nested& Nested::operator[](size_t i) const {
  const auto& items = list();
  if (i >= items.size())
    MX_THROW(absl::StatusCode::kOutOfRange, "Nested: index ", i, " of a list of ", items.size());
  return items[i];
}

std::string Nested::format() const {
  NDArrayVec flat;
  std::string fmt;
  FlattenInto(*this, &flat, &fmt);
  return fmt;
}

std::pair<NDArrayVec, std::string> Flatten(const std::vector<Nested>& args) {
  NDArrayVec flat;
  std::string fmt;
  FlattenInto(Nested::List(args), &flat, &fmt);
  return {std::move(flat), std::move(fmt)};
}

Nested Regroup(const NDArrayVec& flat, const std::string& format) {
  return Reader(flat, format).Read();
}

}  // namespace mxnet::gluon
