package fasttext

// The vector operations of training, each rounding as fastText's float
// loops do: every product is rounded to float32 before it is added (the
// conversions keep the compiler from fusing them into one instruction),
// and dot products add in index order.

// addTo adds y to x.
func addTo(x, y []float32) {
	y = y[:len(x)]
	i := 0
	for ; i+4 <= len(x); i += 4 {
		x[i] += y[i]
		x[i+1] += y[i+1]
		x[i+2] += y[i+2]
		x[i+3] += y[i+3]
	}
	for ; i < len(x); i++ {
		x[i] += y[i]
	}
}

// axpy adds a times y to x.
func axpy(x, y []float32, a float32) {
	y = y[:len(x)]
	i := 0
	for ; i+4 <= len(x); i += 4 {
		x[i] += float32(a * y[i])
		x[i+1] += float32(a * y[i+1])
		x[i+2] += float32(a * y[i+2])
		x[i+3] += float32(a * y[i+3])
	}
	for ; i < len(x); i++ {
		x[i] += float32(a * y[i])
	}
}

// scale multiplies x by a.
func scale(x []float32, a float32) {
	for i := range x {
		x[i] *= a
	}
}

// dot returns the dot product of x and y, summed in index order.
func dot(x, y []float32) float32 {
	y = y[:len(x)]
	var d float32
	for i, v := range x {
		d += float32(v * y[i])
	}
	return d
}
