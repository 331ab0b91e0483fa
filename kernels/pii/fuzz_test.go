package pii

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// fuzzMaskers holds one Masker per non-empty subset of kinds.
var fuzzMaskers = func() (ms [8]*Masker) {
	for set := 1; set < 8; set++ {
		var kinds []Kind
		for k := range Kind(numKinds) {
			if set&(1<<k) != 0 {
				kinds = append(kinds, k)
			}
		}
		m, err := NewMasker(Options{Kinds: kinds})
		if err != nil {
			panic(err)
		}
		ms[set] = m
	}
	return ms
}()

type span struct {
	kind       Kind
	start, end int
}

// spans lists the matches of m in src.
func spans(m *Masker, src []byte) []span {
	var out []span
	var f finder
	for {
		k, start, end := m.next(&f, src)
		if start < 0 {
			return out
		}
		out = append(out, span{k, start, end})
		f.last, f.i = end, end
	}
}

// FuzzMask checks, for any text and any set of kinds, that masking keeps
// valid UTF-8 valid, is idempotent, leaves a text without matches
// unchanged byte for byte, and otherwise copies the text between matches
// and replaces only ordered, disjoint spans shaped like their kind.
func FuzzMask(f *testing.F) {
	sample, err := os.ReadFile(filepath.Join("testdata", "sample.txt"))
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		string(sample), prose, digitHeavy[:600],
		"john@example.com", "(283) 182-3829", "+44 (0)20 7946 0958", "1-800-555-0199",
		"192.168.0.1:8080", "fe80::1ff:fe23:4567:890a", "::ffff:192.0.2.128", "ip:fe80::1",
		"1.2.3.4.5", "2021-03-04 12:30:45", "aa:bb:cc:dd:ee:ff", "a@b.com@c.com",
		"|||PHONE_NUMBER|||2831823829", "1:2:3:4:5:6:7:8:1.2.3.4", "电话2831823829",
	} {
		f.Add(s, uint8(7))
	}
	f.Fuzz(func(t *testing.T, s string, set uint8) {
		m := fuzzMaskers[1+set%7]
		src := []byte(s)
		out, n := m.AppendMasked(nil, src)
		if utf8.Valid(src) && !utf8.Valid(out) {
			t.Fatalf("valid input %q gave invalid output %q", s, out)
		}
		if n == [3]int{} && !bytes.Equal(out, src) {
			t.Fatalf("no matches, but %q became %q", s, out)
		}
		if again, n2 := m.AppendMasked(nil, out); !bytes.Equal(again, out) || n2 != [3]int{} {
			t.Fatalf("not idempotent:\n  in    %q\n  once  %q\n  twice %q", s, out, again)
		}
		var want []byte
		var count [3]int
		last := 0
		for _, sp := range spans(m, src) {
			if sp.start < last || sp.end <= sp.start || !m.on[sp.kind] || !shaped(sp.kind, src[sp.start:sp.end]) {
				t.Fatalf("%q: bad span %s %d:%d %q after %d", s, sp.kind, sp.start, sp.end, src[sp.start:min(sp.end, len(src))], last)
			}
			want = append(append(want, src[last:sp.start]...), m.repl[sp.kind]...)
			count[sp.kind]++
			last = sp.end
		}
		want = append(want, src[last:]...)
		if !bytes.Equal(out, want) || n != count {
			t.Fatalf("%q: output %q %v, want %q %v", s, out, n, want, count)
		}
	})
}

// shaped reports whether span is made only of the bytes its kind uses,
// starts and ends as its kind does.
func shaped(k Kind, span []byte) bool {
	var allowed string
	first, last := span[0], span[len(span)-1]
	switch k {
	case Email:
		if bytes.Count(span, []byte("@")) != 1 || !isWord(last) || first == '.' {
			return false
		}
		allowed = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._%+-@"
	case Phone:
		if !isDigit(last) || !(isDigit(first) || first == '+' || first == '(') {
			return false
		}
		allowed = "0123456789+()-. "
	case IP:
		if !bytes.ContainsAny(span, ".:") {
			return false
		}
		allowed = "0123456789abcdefABCDEF:."
	}
	for _, b := range span {
		if bytes.IndexByte([]byte(allowed), b) < 0 {
			return false
		}
	}
	return true
}

// TestAdjacent masks every pair of matches and near misses joined by
// every connector, and checks idempotence and the shape of the spans:
// the boundary rules must give the same verdict from both sides.
func TestAdjacent(t *testing.T) {
	pieces := []string{
		"john@example.com", "x@y.cc", "2831823829", "(283) 182-3829", "+1 283 182 3829",
		"1-800-555-0199", "+44 20 7946 0958", "+442079460958", "10.0.0.1", "1.2.3.4",
		"::1", "fe80::", "fe80::1", "2001:db8::1", "::ffff:1.2.3.4", "1:2:3:4:5:6:7:8",
		"12:30", "1.2.3", "2021", "abc", "a", "7", "", "|||PHONE_NUMBER|||", "é", "電",
	}
	joins := []string{"", ".", "-", ":", "::", "@", "+", " ", "/", "%", "_", "(", ")", ".5", "a", "1"}
	m := fuzzMaskers[7]
	for _, a := range pieces {
		for _, j := range joins {
			for _, b := range pieces {
				s := a + j + b
				out, n := m.AppendMasked(nil, []byte(s))
				if again, n2 := m.AppendMasked(nil, out); string(again) != string(out) || n2 != [3]int{} {
					t.Errorf("not idempotent:\n  in    %q\n  once  %q\n  twice %q", s, out, again)
				}
				var count [3]int
				for _, sp := range spans(m, []byte(s)) {
					if !shaped(sp.kind, []byte(s[sp.start:sp.end])) {
						t.Errorf("%q: %s span %q", s, sp.kind, s[sp.start:sp.end])
					}
					count[sp.kind]++
				}
				if count != n {
					t.Errorf("%q: counts %v, spans %v", s, n, count)
				}
			}
		}
	}
}
