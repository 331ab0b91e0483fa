// Package limit holds the ranges that every number sluice takes from a
// flag or a pipeline file goes through, so that a NaN, an infinity, a
// negative or an absurd value is refused, naming the flag or key and the
// range it may take, before any work starts.
//
// A Range is an interval with finite ends. Its methods check a float
// (which must also be finite), a signed or an unsigned integer, or the
// length of a list, and Size reads a byte size with its unit (16MiB,
// 1.5GB) into one. Every refusal is an *Error, which callers can tell
// from other failures with errors.As.
//
// Ranges are declared once, where the values are defined: the command
// line keeps a table of them by flag name and checks every numeric flag
// of its command tree against it; the options that pipeline files decode
// carry them as struct tags, `limit:"[0,1]"`, which Struct checks by
// reflection (see Struct for the rules of fields without one).
package limit

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Range is an interval of numbers: Lo to Hi, each end included unless
// marked open. Both ends are finite, so a range never holds an infinity.
type Range struct {
	Lo, Hi         float64
	LoOpen, HiOpen bool
}

// Closed is the range [lo, hi].
func Closed(lo, hi float64) Range { return Range{Lo: lo, Hi: hi} }

// Positive is the range (0, hi].
func Positive(hi float64) Range { return Range{Lo: 0, Hi: hi, LoOpen: true} }

// Fraction is the range [0, 1].
var Fraction = Closed(0, 1)

// Parse reads a range written as an interval: "[0,1]", "(0,1]",
// "[1,1e6]". Both ends must be finite numbers with lo <= hi.
func Parse(s string) (Range, error) {
	t := strings.TrimSpace(s)
	if len(t) < 5 || !strings.ContainsRune("[(", rune(t[0])) || !strings.ContainsRune("])", rune(t[len(t)-1])) {
		return Range{}, fmt.Errorf("limit: range %q is not an interval such as [0,1] or (0,1e6]", s)
	}
	lo, hi, ok := strings.Cut(t[1:len(t)-1], ",")
	if !ok {
		return Range{}, fmt.Errorf("limit: range %q has no comma", s)
	}
	r := Range{LoOpen: t[0] == '(', HiOpen: t[len(t)-1] == ')'}
	var err1, err2 error
	r.Lo, err1 = strconv.ParseFloat(strings.TrimSpace(lo), 64)
	r.Hi, err2 = strconv.ParseFloat(strings.TrimSpace(hi), 64)
	if err1 != nil || err2 != nil || !finite(r.Lo) || !finite(r.Hi) || r.Lo > r.Hi {
		return Range{}, fmt.Errorf("limit: range %q needs two finite ends, the first not above the second", s)
	}
	return r, nil
}

// MustParse is Parse for ranges written in the code; it panics on a
// malformed one.
func MustParse(s string) Range {
	r, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return r
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Contains reports whether v lies in the range; never for NaN or an
// infinity.
func (r Range) Contains(v float64) bool {
	if !finite(v) {
		return false
	}
	above := v > r.Lo || (!r.LoOpen && v == r.Lo)
	below := v < r.Hi || (!r.HiOpen && v == r.Hi)
	return above && below
}

// String writes the range as an interval, e.g. "[0, 1]" or "(0, 1e+06]".
func (r Range) String() string {
	open, shut := "[", "]"
	if r.LoOpen {
		open = "("
	}
	if r.HiOpen {
		shut = ")"
	}
	return open + number(r.Lo) + ", " + number(r.Hi) + shut
}

// number writes a range's end: integers in full up to a million, larger
// and fractional values in the shortest form that reads back.
func number(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e6 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// Error is a value refused: Name is the flag (--lang-min-score) or the
// key (min_score) it came from, Value the value as given or read, Want
// what it must be.
type Error struct {
	Name, Value, Want string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s is %s; want %s", e.Name, e.Value, e.Want)
}

// Float checks a float: finite and in the range.
func (r Range) Float(name string, v float64) error {
	if r.Contains(v) {
		return nil
	}
	return &Error{Name: name, Value: strconv.FormatFloat(v, 'g', -1, 64), Want: "a finite number in " + r.String()}
}

// Int checks a signed integer.
func (r Range) Int(name string, v int64) error {
	if r.Contains(float64(v)) {
		return nil
	}
	return &Error{Name: name, Value: strconv.FormatInt(v, 10), Want: "an integer in " + r.String()}
}

// Uint checks an unsigned integer.
func (r Range) Uint(name string, v uint64) error {
	if r.Contains(float64(v)) {
		return nil
	}
	return &Error{Name: name, Value: strconv.FormatUint(v, 10), Want: "an integer in " + r.String()}
}

// Len checks the length of a list: how many items it may hold.
func (r Range) Len(name string, n int) error {
	if r.Contains(float64(n)) {
		return nil
	}
	return &Error{Name: name, Value: fmt.Sprintf("a list of %d items", n), Want: "between " + number(r.Lo) + " and " + number(r.Hi) + " items"}
}

// Check is Float for a value computed from the inputs rather than given:
// the error says it was computed, so that the user looks at what it came
// from.
func (r Range) Check(name string, v float64) error {
	if r.Contains(v) {
		return nil
	}
	return &Error{Name: name, Value: strconv.FormatFloat(v, 'g', -1, 64), Want: "a finite number in " + r.String() + ", and it is computed from the values given: give smaller ones"}
}
