// Package attr formats Go values as operator attributes in MXNet's string form (what mxc_invoke
// parses and -symbol.json stores): bools "True"/"False", numbers in decimal, tuples "(3, 3)" and
// "(1,)", floats in the shortest form that reads back exactly, infinities "inf"/"-inf", NaN "nan".
package attr

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Bool formats b as "True" or "False".
func Bool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// Int formats an integer in decimal.
func Int[T ~int | ~int8 | ~int16 | ~int32 | ~int64](v T) string {
	return strconv.FormatInt(int64(v), 10)
}

// Uint formats an unsigned integer in decimal.
func Uint[T ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr](v T) string {
	return strconv.FormatUint(uint64(v), 10)
}

// Float formats f with bits (32 or 64) of precision: the shortest decimal that parses back to f.
func Float(f float64, bits int) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

// Float32 formats f exactly as a float32.
func Float32(f float32) string { return Float(float64(f), 32) }

// Float64 formats f exactly as a float64.
func Float64(f float64) string { return Float(f, 64) }

// tuple formats n items as a Python tuple: "()", "(1,)", "(1, 2)".
func tuple(n int, item func(i int) string) string {
	var b strings.Builder
	b.WriteByte('(')
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(item(i))
	}
	if n == 1 {
		b.WriteByte(',')
	}
	b.WriteByte(')')
	return b.String()
}

// Ints formats integers as a tuple ("(3, 3)").
func Ints[T ~int | ~int8 | ~int16 | ~int32 | ~int64](v []T) string {
	return tuple(len(v), func(i int) string { return Int(v[i]) })
}

// Floats formats floats as a tuple of float64 values.
func Floats[T ~float32 | ~float64](v []T, bits int) string {
	return tuple(len(v), func(i int) string { return Float(float64(v[i]), bits) })
}

// Any formats v: string, bool, the integer and float types, slices of them (tuples), and any
// fmt.Stringer (DType: "float32", Device: "cpu(0)"). Other types are an error.
func Any(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return Bool(x), nil
	case int:
		return Int(x), nil
	case int8:
		return Int(x), nil
	case int16:
		return Int(x), nil
	case int32:
		return Int(x), nil
	case int64:
		return Int(x), nil
	case uint:
		return Uint(x), nil
	case uint8:
		return Uint(x), nil
	case uint16:
		return Uint(x), nil
	case uint32:
		return Uint(x), nil
	case uint64:
		return Uint(x), nil
	case float32:
		return Float32(x), nil
	case float64:
		return Float64(x), nil
	case []int:
		return Ints(x), nil
	case []int32:
		return Ints(x), nil
	case []int64:
		return Ints(x), nil
	case []float32:
		return Floats(x, 32), nil
	case []float64:
		return Floats(x, 64), nil
	case fmt.Stringer:
		return x.String(), nil
	case nil:
		return "None", nil
	}
	return "", fmt.Errorf("cannot format a %T as an attribute value", v)
}
