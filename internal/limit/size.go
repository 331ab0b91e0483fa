package limit

import (
	"math"
	"strconv"
	"strings"
)

var sizeUnits = []struct {
	suffix string
	mult   float64
}{
	{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"TIB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1},
}

// Size reads a byte size such as 16MiB, 1.5GB, 4096 or 64k (K, M, G, T
// alone are powers of 1024) and checks it against the range, in bytes.
func (r Range) Size(name, s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := 1.0
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	want := "a size (e.g. 16MiB, 1GB, 65536) in " + bytesRange(r)
	if err != nil || !finite(f) {
		return 0, &Error{Name: name, Value: strconv.Quote(s), Want: want}
	}
	n := math.Round(f * mult)
	if !r.Contains(n) {
		return 0, &Error{Name: name, Value: strconv.Quote(s), Want: want}
	}
	return int64(n), nil
}

// bytesRange writes a range of bytes with binary units where they are
// whole: [1 KiB, 1 GiB].
func bytesRange(r Range) string {
	open, shut := "[", "]"
	if r.LoOpen {
		open = "("
	}
	if r.HiOpen {
		shut = ")"
	}
	return open + Bytes(int64(r.Lo)) + ", " + Bytes(int64(r.Hi)) + shut
}

// Bytes writes n bytes in the largest binary unit it reaches, whole when
// it divides evenly (16 MiB) and to a tenth otherwise (17.3 MiB).
func Bytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	f, u := float64(n), 0
	for u < len(units)-1 && math.Abs(f) >= 1024 {
		f /= 1024
		u++
	}
	if f == math.Trunc(f) {
		return strconv.FormatFloat(f, 'f', 0, 64) + " " + units[u]
	}
	return strconv.FormatFloat(f, 'f', 1, 64) + " " + units[u]
}
