/* Prints sizeof / offsetof of every public struct (compared with abi/layout.txt by
 * //c_api:layout_test). A new struct or field must be added here. */
#include <stddef.h>
#include <stdio.h>

#include "mxc/mxc.h"

#define S(T) printf("%s size %lu\n", #T, (unsigned long)sizeof(T))
#define F(T, f)                                                                \
  printf("%s.%s offset %lu size %lu\n", #T, #f, (unsigned long)offsetof(T, f), \
         (unsigned long)sizeof(((T*)0)->f))

int main(void) {
  S(mxc_device);
  F(mxc_device, type);
  F(mxc_device, id);
  S(mxc_handle_stats);
  F(mxc_handle_stats, struct_size);
  F(mxc_handle_stats, live);
  F(mxc_handle_stats, bad_frees);
  S(mxc_ctx_options);
  F(mxc_ctx_options, struct_size);
  F(mxc_ctx_options, device);
  F(mxc_ctx_options, has_seed);
  F(mxc_ctx_options, seed);
  S(mxc_ndarray_load_options);
  F(mxc_ndarray_load_options, struct_size);
  F(mxc_ndarray_load_options, device);
  F(mxc_ndarray_load_options, reject_trailing_bytes);
  F(mxc_ndarray_load_options, keep_sparse);
  F(mxc_ndarray_load_options, max_densified_bytes);
  S(mxc_ndarray_save_options);
  F(mxc_ndarray_save_options, struct_size);
  F(mxc_ndarray_save_options, format);
  F(mxc_ndarray_save_options, version);
  F(mxc_ndarray_save_options, no_fsync);
  S(mxc_op_info);
  F(mxc_op_info, struct_size);
  F(mxc_op_info, name);
  F(mxc_op_info, doc);
  F(mxc_op_info, num_inputs);
  F(mxc_op_info, num_outputs);
  F(mxc_op_info, num_input_names);
  F(mxc_op_info, input_names);
  F(mxc_op_info, num_aliases);
  F(mxc_op_info, aliases);
  F(mxc_op_info, num_attrs);
  F(mxc_op_info, variadic_attr);
  F(mxc_op_info, differentiable);
  F(mxc_op_info, is_creation);
  S(mxc_op_attr);
  F(mxc_op_attr, struct_size);
  F(mxc_op_attr, name);
  F(mxc_op_attr, type);
  F(mxc_op_attr, kind);
  F(mxc_op_attr, optional);
  F(mxc_op_attr, required);
  F(mxc_op_attr, default_value);
  F(mxc_op_attr, doc);
  F(mxc_op_attr, num_choices);
  F(mxc_op_attr, choices);
  S(mxc_model_options);
  F(mxc_model_options, struct_size);
  F(mxc_model_options, classes);
  F(mxc_model_options, pretrained);
  F(mxc_model_options, root);
  F(mxc_model_options, device);
  S(mxc_hybridize_options);
  F(mxc_hybridize_options, struct_size);
  F(mxc_hybridize_options, deactivate);
  F(mxc_hybridize_options, static_alloc);
  F(mxc_hybridize_options, static_shape);
  F(mxc_hybridize_options, backend);
  S(mxc_load_parameters_options);
  F(mxc_load_parameters_options, struct_size);
  F(mxc_load_parameters_options, device);
  F(mxc_load_parameters_options, allow_missing);
  F(mxc_load_parameters_options, ignore_extra);
  F(mxc_load_parameters_options, cast_dtype);
  S(mxc_dataloader_options);
  F(mxc_dataloader_options, struct_size);
  F(mxc_dataloader_options, batch_size);
  F(mxc_dataloader_options, shuffle);
  F(mxc_dataloader_options, last_batch);
  F(mxc_dataloader_options, num_workers);
  F(mxc_dataloader_options, prefetch);
  S(mxc_custom_op_def);
  F(mxc_custom_op_def, struct_size);
  F(mxc_custom_op_def, arguments);
  F(mxc_custom_op_def, num_arguments);
  F(mxc_custom_op_def, outputs);
  F(mxc_custom_op_def, num_outputs);
  F(mxc_custom_op_def, aux_states);
  F(mxc_custom_op_def, num_aux_states);
  F(mxc_custom_op_def, no_top_grad);
  F(mxc_custom_op_def, forward);
  F(mxc_custom_op_def, backward);
  F(mxc_custom_op_def, infer_shape);
  F(mxc_custom_op_def, infer_type);
  S(mxc_onnx_export_options);
  F(mxc_onnx_export_options, struct_size);
  F(mxc_onnx_export_options, opset);
  F(mxc_onnx_export_options, static_batch);
  return 0;
}
