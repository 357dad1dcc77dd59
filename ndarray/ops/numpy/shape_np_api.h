// Parameters of MXNet 1.9.1's NumPy-interface shape ops registered in shape_np.cc (mx.np /
// mx.npx: _np_reshape, _npx_reshape, _np_squeeze, _np_transpose, _np_moveaxis, _np_roll,
// _npi_flip, _npi_rot90, _np_copy, _np_atleast_1d/2d/3d, _npi_broadcast_to; shape_np_join.cc:
// _npi_concatenate, _npi_stack, _npi_vstack, _npi_hstack, _npi_dstack, _npi_column_stack). No nd::
// wrappers: call them by name (mxnet::Invoke("_np_reshape", {x}, {{"newshape", "(2, -1)"}})).
// Source: src/operator/numpy/np_matrix_op-inl.h, np_broadcast_reduce_op_value.cc (MXNet 1.9.1).
#pragma once

#include <optional>
#include <string>

#include "ndarray/params.h"

namespace mxnet::ops {

// _np_reshape: NumPy reshape; newshape entries >= 0, at most one -1 (inferred).
struct NpReshapeParam {
  Shape newshape;
  std::string order = "C";
  template <class D>
  static void Declare(D& d) {
    d.field("newshape", &NpReshapeParam::newshape)
        .required()
        .describe("The new shape (entries >= 0, one -1 may be inferred).");
    d.field("order", &NpReshapeParam::order)
        .describe("Element order (ignored, as in MXNet: always C).");
  }
};

// _npx_reshape (_npi_reshape): newshape with MXNet's npx codes -1 infer, -2 copy this dim,
// -3 skip a size-1 dim, -4 copy all remaining dims, -5 merge two dims, -6 split one dim into the
// next two values (one may be -1); reverse applies them right to left (no -6 then).
struct NpxReshapeParam {
  Shape newshape;
  bool reverse = false;
  std::string order = "C";
  template <class D>
  static void Declare(D& d) {
    d.field("newshape", &NpxReshapeParam::newshape)
        .required()
        .describe("The new shape (npx codes -1..-6).");
    d.field("reverse", &NpxReshapeParam::reverse).describe("Apply the codes right to left.");
    d.field("order", &NpxReshapeParam::order)
        .describe("Element order (ignored, as in MXNet: always C).");
  }
};

// _np_transpose: axes a permutation (negative allowed); None reverses the axes.
struct NpTransposeParam {
  std::optional<Shape> axes;
  template <class D>
  static void Declare(D& d) {
    d.field("axes", &NpTransposeParam::axes).describe("Target axis order (None: reversed).");
  }
};

// _np_moveaxis: axes `source` move to `destination` (same length, no repeats).
struct NpMoveaxisParam {
  Shape source, destination;
  template <class D>
  static void Declare(D& d) {
    d.field("source", &NpMoveaxisParam::source).required().describe("Axes to move.");
    d.field("destination", &NpMoveaxisParam::destination)
        .required()
        .describe("Their new positions.");
  }
};

// _np_roll: shift (required in practice); axis None rolls the flattened array by one shift.
struct NpRollParam {
  std::optional<Shape> shift, axis;
  template <class D>
  static void Declare(D& d) {
    d.field("shift", &NpRollParam::shift).describe("Places to shift (one, or one per axis).");
    d.field("axis", &NpRollParam::axis).describe("Axes to roll (None: the flattened array).");
  }
};

// _npi_flip: axes in [0, ndim) (an axis listed twice flips twice).
struct NpFlipParam {
  Shape axis;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &NpFlipParam::axis).required().describe("Axes to reverse.");
  }
};

// _npi_rot90: rotate by k * 90 degrees in the plane of the two `axes` (required in practice).
struct NpRot90Param {
  int k = 1;
  std::optional<Shape> axes;
  template <class D>
  static void Declare(D& d) {
    d.field("k", &NpRot90Param::k).describe("Number of 90-degree rotations (any int).");
    d.field("axes", &NpRot90Param::axes).describe("The two axes of the rotation plane.");
  }
};

// _np_atleast_1d / _2d / _3d: num_args inputs, each viewed with at least 1/2/3 dims.
struct NpAtleastParam {
  int num_args = 1;
  template <class D>
  static void Declare(D& d) {
    d.field("num_args", &NpAtleastParam::num_args).required().describe("Number of inputs.");
  }
};

// _npi_broadcast_to: target shape (no -1); the input's dims align to the right.
struct NpBroadcastToParam {
  Shape shape;
  template <class D>
  static void Declare(D& d) {
    d.field("shape", &NpBroadcastToParam::shape).describe("The target shape.");
  }
};

// _npi_concatenate: num_args inputs joined along axis (negative allowed; None: all inputs
// flattened and joined). MXNet 1.9.1's registry documents the attribute as `dim` but parses
// only `axis`.
struct NpConcatenateParam {
  int num_args = 1;
  std::optional<int> axis = 0;
  template <class D>
  static void Declare(D& d) {
    d.field("num_args", &NpConcatenateParam::num_args).required().describe("Number of inputs.");
    d.field("axis", &NpConcatenateParam::axis)
        .describe("The axis to join along (None: flatten the inputs first).");
  }
};

// _npi_vstack, _npi_column_stack: num_args inputs (MXNet's NumpyVstackParam /
// NumpyColumnStackParam).
struct NpVstackParam {
  int num_args = 1;
  template <class D>
  static void Declare(D& d) {
    d.field("num_args", &NpVstackParam::num_args).required().describe("Number of inputs.");
  }
};

// _npi_hstack, _npi_dstack: MXNet reuses Concat's parameters; `dim` is accepted and ignored
// (hstack joins along axis 0 for 1-D inputs, else 1; dstack along axis 2).
struct NpHDStackParam {
  int num_args = 1;
  int dim = 1;
  template <class D>
  static void Declare(D& d) {
    d.field("num_args", &NpHDStackParam::num_args).required().describe("Number of inputs.");
    d.field("dim", &NpHDStackParam::dim).describe("Ignored (as in MXNet).");
  }
};

// _np_diag, _np_diagflat, _npi_tril: diagonal k (> 0 above the main one, < 0 below).
struct NpDiagKParam {
  int k = 0;
  template <class D>
  static void Declare(D& d) {
    d.field("k", &NpDiagKParam::k).describe("Diagonal offset: > 0 above the main one, < 0 below.");
  }
};

// _np_diagonal: diagonal `offset` of the (axis1, axis2) planes, appended as the last axis.
struct NpDiagonalParam {
  int offset = 0;
  int axis1 = 0;
  int axis2 = 1;
  template <class D>
  static void Declare(D& d) {
    d.field("offset", &NpDiagonalParam::offset)
        .describe("Diagonal offset: > 0 above the main one, < 0 below.");
    d.field("axis1", &NpDiagonalParam::axis1).describe("First axis of the 2-D planes.");
    d.field("axis2", &NpDiagonalParam::axis2).describe("Second axis of the 2-D planes.");
  }
};

}  // namespace mxnet::ops
