package opgen

import "testing"

func TestNames(t *testing.T) {
	for in, want := range map[string]string{
		"relu": "Relu", "broadcast_add": "BroadcastAdd", "_plus_scalar": "PlusScalar",
		"_contrib_ROIAlign": "ContribROIAlign", "Convolution_v1": "ConvolutionV1",
		"_np_atleast_1d": "NpAtleast1d", "SoftmaxOutput": "SoftmaxOutput",
	} {
		if got := ExportName(in); got != want {
			t.Errorf("ExportName(%q) = %q, want %q", in, got, want)
		}
	}
	ops := map[string]bool{"MakeLoss": true, "make_loss": true}
	if got := funcName("make_loss", ops); got != "Make_loss" {
		t.Errorf("funcName(make_loss) = %q", got)
	}
	if got := funcName("MakeLoss", ops); got != "MakeLoss" {
		t.Errorf("funcName(MakeLoss) = %q", got)
	}
	taken := map[string]bool{}
	if a, b, c := paramName("type", taken), paramName("num_filter", taken), paramName("num_filter", taken); a != "typeArg" || b != "numFilter" || c != "numFilterArg" {
		t.Errorf("paramName: %q %q %q", a, b, c)
	}
	if !Skipped("_backward_Convolution_data") || Skipped("Convolution") {
		t.Error("Skipped")
	}
}
