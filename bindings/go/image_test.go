package mxnet_test

// Image decode through the image operators (_cvimdecode, _image_to_tensor, _image_normalize);
// the C ABI's image family is tested against this path in data_test.go. The decoded photo is
// compared with Go's own image/jpeg decoder (an independent implementation; IDCT rounding
// differs by a few levels).

import (
	"bytes"
	"image"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"testing"

	"mxnet.local/mxnet"
	"mxnet.local/mxnet/nd"
)

func TestImageDecodeThroughOperators(t *testing.T) {
	begin(t)
	shared := sharedDir()
	if shared == "" {
		t.Skip("../shared (MXNET_SHARED_DIR) is absent")
	}
	raw := must(os.ReadFile(filepath.Join(shared, "data/images/cat.jpg")))
	ref := must(jpeg.Decode(bytes.NewReader(raw)))
	bounds := ref.Bounds()
	h, w := bounds.Dy(), bounds.Dx()

	buf := must(mxnet.FromSlice(raw))
	defer buf.Close()
	img := must(nd.Cvimdecode(nil, buf)) // (H, W, 3) uint8 RGB
	defer img.Close()
	shapeIs(t, img, int64(h), int64(w), 3)
	pix := must(mxnet.ToSlice[uint8](img))
	var sumDiff float64
	maxDiff := 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r, g, b, _ := ref.At(x+bounds.Min.X, y+bounds.Min.Y).RGBA()
			for c, v := range []uint32{r >> 8, g >> 8, b >> 8} {
				d := int(pix[(y*w+x)*3+c]) - int(v)
				if d < 0 {
					d = -d
				}
				sumDiff += float64(d)
				if d > maxDiff {
					maxDiff = d
				}
			}
		}
	}
	mean := sumDiff / float64(h*w*3)
	if mean > 2 || maxDiff > 64 {
		t.Fatalf("decoded pixels differ from image/jpeg's: mean |diff| %.3f, max %d", mean, maxDiff)
	}
	_ = image.Rect

	// to_tensor: (H, W, 3) uint8 -> (3, H, W) float32 / 255; normalize: (x - mean) / std.
	tt := must(nd.ImageToTensor(nil, img))
	defer tt.Close()
	shapeIs(t, tt, 3, int64(h), int64(w))
	norm := must(nd.ImageNormalize(nil, tt, nd.ImageNormalizeMean(0.5, 0.5, 0.5), nd.ImageNormalizeStd(0.25, 0.25, 0.25)))
	defer norm.Close()
	nv := must(norm.Float32s())
	for _, i := range []int{0, 17, w*h + 5, 2*w*h + w + 3} {
		c, rest := i/(w*h), i%(w*h)
		want := (float64(pix[rest*3+c])/255 - 0.5) / 0.25
		if math.Abs(float64(nv[i])-want) > 1e-5 {
			t.Fatalf("normalized[%d] = %v, want %v", i, nv[i], want)
		}
	}
	// Not an image: an error, not a crash.
	junk := must(mxnet.FromSlice([]uint8{1, 2, 3, 4}))
	defer junk.Close()
	_, err := nd.Cvimdecode(nil, junk)
	if err == nil {
		t.Fatal("decoding junk succeeded")
	}
}
