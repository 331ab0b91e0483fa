package limit

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestRangeRefusesNonFiniteAndOutside(t *testing.T) {
	r := MustParse("(0, 1]")
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, -1, 1.0000001, 1e300} {
		if r.Contains(v) {
			t.Errorf("(0, 1] contains %v", v)
		}
	}
	for _, v := range []float64{1e-300, 0.5, 1} {
		if !r.Contains(v) {
			t.Errorf("(0, 1] lacks %v", v)
		}
	}
	err := r.Float("--split", math.NaN())
	var le *Error
	if !errors.As(err, &le) || err.Error() != "--split is NaN; want a finite number in (0, 1]" {
		t.Errorf("got %v", err)
	}
	if err := Closed(1, 22).Int("--compression-level", 99); err == nil || err.Error() != "--compression-level is 99; want an integer in [1, 22]" {
		t.Errorf("got %v", err)
	}
	if err := Closed(0, math.MaxUint64).Uint("--seed", math.MaxUint64); err != nil {
		t.Errorf("every seed is in [0, 2^64]: %v", err)
	}
}

func TestParseNeedsFiniteOrderedEnds(t *testing.T) {
	for _, s := range []string{"", "[0,1", "0,1]", "[1,0]", "[0,inf]", "[nan,1]", "[0;1]"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) took it", s)
		}
	}
	r, err := Parse("[1, 1e6)")
	if err != nil || r != (Range{Lo: 1, Hi: 1e6, HiOpen: true}) || r.String() != "[1, 1e+06)" {
		t.Errorf("Parse: %+v, %v, %s", r, err, r)
	}
}

func TestSize(t *testing.T) {
	r := Closed(1<<10, 1<<30)
	for s, want := range map[string]int64{"16MiB": 16 << 20, "1.5k": 1536, "4096": 4096, "2GB": -1, "1 GiB": 1 << 30, " 2m ": 2 << 20} {
		n, err := r.Size("--page-bytes", s)
		if want < 0 {
			if err == nil {
				t.Errorf("%q: %d taken, want an error", s, n)
			}
			continue
		}
		if err != nil || n != want {
			t.Errorf("%q: %d, %v; want %d", s, n, err, want)
		}
	}
	for _, s := range []string{"NaN", "Inf", "-1", "1e300", "99999999999999999999TiB", "lots", "0"} {
		if _, err := r.Size("--page-bytes", s); err == nil || !strings.Contains(err.Error(), "--page-bytes is") || !strings.Contains(err.Error(), "[1 KiB, 1 GiB]") {
			t.Errorf("%q: %v", s, err)
		}
	}
	if got := Bytes(17825847); got != "17.0 MiB" {
		t.Errorf("Bytes: %s", got)
	}
}

type Inner struct {
	Ratio float64 `yaml:"ratio" limit:"[0,1]"`
}

type options struct {
	Inner     `yaml:",inline"`
	Count     int      `yaml:"count" limit:"[1,10]"`
	Score     *float64 `yaml:"score" limit:"[0,1]"`
	Seed      uint64   `yaml:"seed" limit:"any"`
	Words     []string `yaml:"words" limit:"[0,2]"`
	Loose     int64    `yaml:"loose"`
	Nested    Inner    `yaml:"nested"`
	Computed  int      `yaml:"-"`
	CamelCase float32
}

func TestStructNamesEveryFieldOutOfRange(t *testing.T) {
	nan := math.NaN()
	o := options{Inner: Inner{Ratio: 2}, Count: 0, Score: &nan, Seed: math.MaxUint64, Words: []string{"a", "b", "c"},
		Loose: -1, Nested: Inner{Ratio: math.Inf(1)}, Computed: -5, CamelCase: float32(math.Inf(-1))}
	var got []string
	for _, p := range Struct(&o) {
		got = append(got, p.Err.Error())
	}
	want := []string{
		"ratio is 2; want a finite number in [0, 1]",
		"count is 0; want an integer in [1, 10]",
		"score is NaN; want a finite number in [0, 1]",
		"words is a list of 3 items; want between 0 and 2 items",
		"loose is -1; want an integer in [0, 1e+15]",
		"nested.ratio is +Inf; want a finite number in [0, 1]",
		"camelcase is -Inf; want a finite number in [0, 1e+15]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if u := Untagged(reflect.TypeOf(o)); strings.Join(u, ",") != "loose,camelcase" {
		t.Errorf("Untagged: %v", u)
	}
	if fs := Fields(reflect.TypeOf(o)); len(fs) != 7 || !fs[3].Any || fs[0].Range != Fraction {
		t.Errorf("Fields: %+v", fs)
	}
}
