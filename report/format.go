package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// compact writes a count short: 950, 1.2k, 38.6k, 1.2M, 3.4B.
func compact(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return trimZero(fmt.Sprintf("%.1f", v/1e9)) + "B"
	case a >= 1e6:
		return trimZero(fmt.Sprintf("%.1f", v/1e6)) + "M"
	case a >= 1e4:
		return trimZero(fmt.Sprintf("%.1f", v/1e3)) + "k"
	case a == math.Trunc(a):
		return strconv.FormatFloat(v, 'f', 0, 64)
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}

func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }

// thousands writes n with thin groups: 1,234,567.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// percent writes part/whole as a percentage with one decimal ("" when
// whole is 0).
func percent(part, whole int64) string {
	if whole == 0 {
		return ""
	}
	return fmt.Sprintf("%.1f%%", 100*float64(part)/float64(whole))
}

// number writes a float for tables and titles: integers as such, others
// with 4 significant digits.
func number(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return thousands(int64(v))
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// humanBytes writes a size in binary units.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// bidiControls are the Unicode controls that open an embedding, override
// or isolate whose direction runs on past the text that holds them
// (U+202A-U+202E, U+2066-U+2069): a file name or a text with an unclosed
// one would reverse what the page writes after it.
var bidiControls = func() *strings.Replacer {
	var pairs []string
	for _, r := range []rune{0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069} {
		pairs = append(pairs, string(r), fmt.Sprintf("[U+%04X]", r))
	}
	return strings.NewReplacer(pairs...)
}()

// neutralizeBidi writes every bidi control of s as its code point,
// visible and without effect.
func neutralizeBidi(s string) string { return bidiControls.Replace(s) }
