package budget

import (
	"math"
	"strconv"
	"strings"
)

// Count renders a count of tokens, documents or parameters for people:
// 800, 125M, 2.4B, 1.0B, 20.0B, 1.5T; beyond 1000T in scientific notation.
func Count(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	if math.Abs(x) < 1000 {
		return Number(x)
	}
	units := []struct {
		suffix string
		scale  float64
	}{{"K", 1e3}, {"M", 1e6}, {"B", 1e9}, {"T", 1e12}}
	for i, u := range units {
		v := x / u.scale
		prec := 1
		if math.Abs(v) >= 99.95 {
			prec = 0
		}
		s := strconv.FormatFloat(v, 'f', prec, 64)
		if r, _ := strconv.ParseFloat(s, 64); math.Abs(r) >= 1000 && i < len(units)-1 {
			continue // 999.96M is 1.0B
		} else if math.Abs(r) >= 1000 {
			break
		}
		return s + u.suffix
	}
	return Scientific(x)
}

// Scientific renders x with three significant digits and a plain exponent:
// 1.44e19, 1.2e20, 6e18.
func Scientific(x float64) string {
	s := strconv.FormatFloat(x, 'e', 2, 64)
	mant, exp, ok := strings.Cut(s, "e")
	if !ok {
		return s
	}
	if strings.Contains(mant, ".") {
		mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
	}
	exp = strings.TrimPrefix(exp, "+")
	if strings.HasPrefix(exp, "-") {
		exp = "-" + strings.TrimLeft(exp[1:], "0")
	} else {
		exp = strings.TrimLeft(exp, "0")
	}
	if exp == "" || exp == "-" {
		return mant
	}
	return mant + "e" + exp
}

// Number renders a small quantity such as epochs or a percentage with at
// most two decimals and no trailing zeros: 3, 2.5, 0.31, 1.11.
func Number(x float64) string {
	if x != 0 && math.Abs(x) < 0.01 {
		return strconv.FormatFloat(x, 'g', 2, 64)
	}
	s := strconv.FormatFloat(x, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}
