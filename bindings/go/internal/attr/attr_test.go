package attr

import (
	"math"
	"testing"
)

func TestFormats(t *testing.T) {
	cases := []struct {
		v    any
		want string
	}{
		{true, "True"}, {false, "False"}, {int32(-7), "-7"}, {uint8(200), "200"},
		{float32(0.1), "0.1"}, {0.1, "0.1"}, {float32(1e-8), "1e-08"}, {2.0, "2"},
		{math.Inf(1), "inf"}, {float32(math.Inf(-1)), "-inf"}, {math.NaN(), "nan"},
		{[]int{3, 3}, "(3, 3)"}, {[]int64{1}, "(1,)"}, {[]int32{}, "()"},
		{[]float64{0.5, 2}, "(0.5, 2)"}, {"valid", "valid"}, {nil, "None"},
	}
	for _, c := range cases {
		got, err := Any(c.v)
		if err != nil || got != c.want {
			t.Errorf("Any(%#v) = %q, %v; want %q", c.v, got, err, c.want)
		}
	}
	if _, err := Any(struct{}{}); err == nil {
		t.Error("Any(struct{}{}) succeeded")
	}
	// float32 formatting reads back exactly as float32, not as the float64 expansion.
	if got := Float32(1.1); got != "1.1" {
		t.Errorf("Float32(1.1) = %q", got)
	}
}
