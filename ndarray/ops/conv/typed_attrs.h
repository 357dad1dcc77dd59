// Typed attributes checked like parsed ones. OpAttrs::From (ndarray/op.h) takes a parameter
// struct as is and runs only its Validate(); ParamSchema::Parse (ndarray/params.h) also rejects
// a value outside a field's declared choices. CheckedAttrs applies that rule to a struct too, so
// a C++ caller (nd:: functions, Gluon layers) is refused exactly what the string form is, with
// the same message, and the op's parameters stay declared once, in the struct's Declare.
//
//   OpAttrs a = CheckedAttrs(MX_ND_OP(Activation), ops::ActivationParam{.act_type = "relu"});
//
// Not conv-specific: the check belongs in OpAttrs::From and moves there the next time
// ndarray/op.h changes (every op package depends on that header, so it waits for a change that
// rebuilds them anyway); until then it lives here, where only the conv family's dependents see it.
#pragma once

#include <string_view>
#include <utility>

#include "ndarray/op.h"
#include "ndarray/params.h"

namespace mxnet {

// Throws mxnet::Error(kInvalidArgument) "<op>: attribute <key>='<value>' is not one of {...}"
// for the first field of `obj` (a struct `schema` describes) whose printed value is not one of
// the field's choices; fields without choices are not checked.
void CheckChoices(std::string_view op, const ParamSchema& schema, const void* obj);

// OpAttrs::From(op, param) after CheckChoices. Errors: kInvalidArgument naming the op and the
// attribute (choices, then the struct's Validate()); kInternal when P is not the op's struct.
template <typename P>
OpAttrs CheckedAttrs(const Op& op, P param) {
  CheckChoices(op.name, SchemaOf<P>(), &param);
  return OpAttrs::From(op, std::move(param));
}

}  // namespace mxnet
