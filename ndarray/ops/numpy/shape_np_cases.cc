// Test cases (//ndarray:all_ops_test) of shape_np.cc's NumPy-interface shape ops.
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {

MX_OP_TEST_CASE({.op = "_np_reshape", .attrs = {{"newshape", "(4, -1)"}}, .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "_np_reshape", .attrs = {{"newshape", "()"}}, .shapes = {{1, 1}}});
MX_OP_TEST_CASE({.op = "_npx_reshape",
                 .attrs = {{"newshape", "(-6, 1, 2, -4)"}},
                 .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "_npx_reshape",
                 .attrs = {{"newshape", "(-1, -2)"}, {"reverse", "True"}},
                 .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "_npx_reshape",
                 .attrs = {{"newshape", "(-2, -3, -5)"}},
                 .shapes = {{2, 1, 3, 2}}});
MX_OP_TEST_CASE({.op = "_np_squeeze", .shapes = {{1, 3, 1}}});
MX_OP_TEST_CASE({.op = "_np_squeeze", .attrs = {{"axis", "(-1,)"}}, .shapes = {{2, 3, 1}}});
MX_OP_TEST_CASE({.op = "_np_copy", .shapes = {{2, 3}}});
MX_OP_TEST_CASE({.op = "_np_atleast_1d", .attrs = {{"num_args", "2"}}, .shapes = {{}, {2, 3}}});
MX_OP_TEST_CASE({.op = "_np_atleast_2d", .attrs = {{"num_args", "2"}}, .shapes = {{}, {3}}});
MX_OP_TEST_CASE({.op = "_np_atleast_3d",
                 .attrs = {{"num_args", "3"}},
                 .shapes = {{}, {3}, {2, 3}}});
MX_OP_TEST_CASE({.op = "_np_transpose", .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "_np_transpose", .attrs = {{"axes", "(-1, 0, 1)"}}, .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "_np_moveaxis",
                 .attrs = {{"source", "(0, 1)"}, {"destination", "(2, 0)"}},
                 .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "_np_roll", .attrs = {{"shift", "(5,)"}}, .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "_np_roll",
                 .attrs = {{"shift", "(1, -1)"}, {"axis", "(0, 2)"}},
                 .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "_npi_flip", .attrs = {{"axis", "(0, 2)"}}, .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "_npi_rot90", .attrs = {{"axes", "(0, 1)"}}, .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "_npi_rot90",
                 .attrs = {{"k", "2"}, {"axes", "(1, 2)"}},
                 .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "_npi_rot90",
                 .attrs = {{"k", "-1"}, {"axes", "(-1, 0)"}},
                 .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "_npi_broadcast_to", .attrs = {{"shape", "(2, 3, 4)"}}, .shapes = {{3, 1}}});

// shape_np_join.cc
MX_OP_TEST_CASE({.op = "_npi_concatenate",
                 .attrs = {{"num_args", "2"}},
                 .shapes = {{2, 3}, {1, 3}}});
MX_OP_TEST_CASE({.op = "_npi_concatenate",
                 .attrs = {{"num_args", "2"}, {"axis", "-1"}},
                 .shapes = {{2, 3}, {2, 1}}});
MX_OP_TEST_CASE({.op = "_npi_concatenate",
                 .attrs = {{"num_args", "2"}, {"axis", "None"}},
                 .shapes = {{2, 2}, {3}}});
MX_OP_TEST_CASE({.op = "_npi_stack",
                 .attrs = {{"num_args", "2"}, {"axis", "-1"}},
                 .shapes = {{2, 3}, {2, 3}}});
MX_OP_TEST_CASE({.op = "_npi_vstack", .attrs = {{"num_args", "2"}}, .shapes = {{3}, {2, 3}}});
MX_OP_TEST_CASE({.op = "_npi_hstack", .attrs = {{"num_args", "2"}}, .shapes = {{3}, {}}});
MX_OP_TEST_CASE({.op = "_npi_hstack", .attrs = {{"num_args", "2"}}, .shapes = {{2, 1}, {2, 3}}});
MX_OP_TEST_CASE({.op = "_npi_dstack", .attrs = {{"num_args", "2"}}, .shapes = {{3}, {1, 3, 2}}});
MX_OP_TEST_CASE({.op = "_npi_column_stack", .attrs = {{"num_args", "2"}}, .shapes = {{2}, {2, 3}}});

MX_OP_TEST_CASE({.op = "_npi_hsplit",
                 .attrs = {{"indices", "()"}, {"sections", "3"}},
                 .shapes = {{2, 5, 2}}});
MX_OP_TEST_CASE({.op = "_npi_hsplit", .attrs = {{"indices", "(0, 2)"}}, .shapes = {{5}}});
MX_OP_TEST_CASE({.op = "_npi_hsplit",
                 .attrs = {{"indices", "()"}, {"sections", "3"}, {"squeeze_axis", "True"}},
                 .shapes = {{2, 3, 2}}});
MX_OP_TEST_CASE({.op = "_npi_dsplit", .attrs = {{"indices", "(0, 1, 3)"}}, .shapes = {{2, 1, 4}}});
MX_OP_TEST_CASE({.op = "_npi_dsplit",
                 .attrs = {{"indices", "()"}, {"sections", "2"}, {"squeeze_axis", "True"}},
                 .shapes = {{2, 3, 2}}});

// shape_np_diag.cc
MX_OP_TEST_CASE({.op = "_np_diag", .shapes = {{3, 4}}});
MX_OP_TEST_CASE({.op = "_np_diag", .attrs = {{"k", "-1"}}, .shapes = {{3}}});
MX_OP_TEST_CASE({.op = "_np_diagonal",
                 .attrs = {{"offset", "1"}, {"axis1", "-1"}, {"axis2", "0"}},
                 .shapes = {{3, 2, 4}}});
MX_OP_TEST_CASE({.op = "_np_diagflat", .attrs = {{"k", "1"}}, .shapes = {{2, 2}}});
MX_OP_TEST_CASE({.op = "_npi_tril", .attrs = {{"k", "1"}}, .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "_npi_tril", .attrs = {{"k", "-1"}}, .shapes = {{3}}});
MX_OP_TEST_CASE({.op = "_npi_diag_indices_from", .shapes = {{3, 3, 3}}, .check_grad = false});
MX_OP_TEST_CASE({.op = "_npi_share_memory", .shapes = {{2}, {3}}, .check_grad = false});

}  // namespace mxnet::testing
