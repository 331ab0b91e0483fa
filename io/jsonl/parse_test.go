package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/pqio"
	"github.com/sluice-data/sluice/schema"
)

func TestParseAgreesWithEncodingJSON(t *testing.T) {
	valid := []string{
		`{}`, `[]`, `null`, `true`, `0`, `-0`, `1.5e-3`, `"x"`, ` {"a" : [1, 2.0, "3", null, true, {"b": {}}]} `,
		`{"esc": "\" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00"}`, `{"big": 123456789012345678901234567890}`,
		`{"a":1,"a":2}`, "{\"utf8\": \"é 漢字\"}",
	}
	invalid := []string{
		``, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `01`, `1.`, `.5`, `1e`, `+1`, `tru`, `nul`, `"abc`,
		`{"a":1} x`, `{'a':1}`, `{"a":"\x"}`, `{"a":"\u12"}`, "{\"a\":\"\x01\"}", `NaN`, `[1 2]`,
	}
	var d Doc
	for _, s := range valid {
		root, err := d.Parse([]byte(s))
		if err != nil {
			t.Errorf("Parse(%q): %v", s, err)
			continue
		}
		assertSameValue(t, s, d.AppendJSON(nil, root))
	}
	for _, s := range invalid {
		if _, err := d.Parse([]byte(s)); !errors.Is(err, ErrMalformedJSON) {
			t.Errorf("Parse(%q) = %v, want ErrMalformedJSON", s, err)
		}
	}
}

func TestParseRepairsInvalidUTF8AndLoneSurrogates(t *testing.T) {
	var d Doc
	root, err := d.Parse([]byte("{\"a\":\"x\xffy\",\"b\":\"\\ud800z\",\"c\":\"\\udc00\"}"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Repaired != 3 {
		t.Fatalf("Repaired = %d, want 3", d.Repaired)
	}
	want := []string{"x\uFFFDy", "\uFFFDz", "\uFFFD"}
	for i, c := range d.Children(root) {
		if got := string(d.Bytes(c)); got != want[i] {
			t.Errorf("member %d = %q, want %q", i, got, want[i])
		}
	}
}

func TestDepthLimit(t *testing.T) {
	d := Doc{MaxDepth: 3}
	if _, err := d.Parse([]byte(`[[[1]]]`)); err != nil {
		t.Fatalf("depth 3: %v", err)
	}
	if _, err := d.Parse([]byte(`[[[[1]]]]`)); !errors.Is(err, ErrTooDeep) {
		t.Fatalf("depth 4: got %v, want ErrTooDeep", err)
	}
	d.MaxDepth = 0 // default
	deep := strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000)
	if _, err := d.Parse([]byte(deep)); !errors.Is(err, ErrTooDeep) {
		t.Fatalf("a million levels: got %v, want ErrTooDeep (and no stack overflow)", err)
	}
}

// assertSameValue checks that two JSON texts hold the same value, numbers
// compared by their text.
func assertSameValue(t *testing.T, want string, got []byte) {
	t.Helper()
	a, b := decodeAny(t, []byte(want)), decodeAny(t, got)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("value changed:\n got %s\nwant %s", got, want)
	}
}

func decodeAny(t *testing.T, s []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %q: %v", s, err)
	}
	return v
}

// FuzzParse checks the parser against encoding/json: it accepts exactly
// the valid documents (within its depth limit) and keeps their values.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}],"c":"\u00e9"}`, `[1e5,-0.5,"x\"y"]`, "\"\xff\"", `{"a":"\ud800"}`,
		`{"a":9223372036854775808}`, `[-9223372036854775809,9223372036854775807,1e400,-1e-400,9007199254740993]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var d Doc
		root, err := d.Parse(data)
		if json.Valid(data) != (err == nil) && !errors.Is(err, ErrTooDeep) {
			t.Fatalf("Parse(%q) error %v, but json.Valid = %v", data, err, json.Valid(data))
		}
		if err != nil {
			return
		}
		out := d.AppendJSON(nil, root)
		if !utf8.Valid(out) {
			t.Fatalf("AppendJSON wrote invalid UTF-8 for %q", data)
		}
		if d.Repaired == 0 && utf8.Valid(data) {
			assertSameValue(t, string(data), out)
		}
	})
}

// FuzzRoundTrip sends one JSON object through schema inference, the Arrow
// builder, a Parquet file and back to JSON, and checks the value is the
// same (null members aside: Parquet cannot tell them from missing ones).
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{
		`{"id":"a","text":"t","n":9007199254740993,"f":0.1,"b":true,"m":{"x":[1,2],"y":null},"l":[{"k":"v"}]}`,
		`{"mixed":[1,"a",{"b":2}],"e":[],"o":{}}`, `{"a":1,"a":"two"}`,
		`{"i":9223372036854775807,"j":-9223372036854775808,"b":9223372036854775808,"l":[1,9007199254740993],"f":[0.5,-9007199254740993],"o":1e400,"u":1e-400}`,
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		var d Doc
		root, err := d.Parse(data)
		if err != nil || d.Node(root).Kind != KindObject || d.Repaired > 0 || !utf8.Valid(data) {
			return
		}
		typ := schema.Finalize(d.Infer(root))
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		b := NewBuilder(mem, typ, true, false)
		defer b.Release()
		if err := b.Append(&d, root); err != nil {
			t.Fatalf("Append(%s): %v", data, err)
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		if len(typ.Fields) == 0 {
			return // nothing to store
		}
		piece, err := pqio.EncodePiece(mem, rec, pqio.Options{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "x.parquet")
		if err := os.WriteFile(path, piece, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := pqio.Open(mem, path, 16)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		back, err := r.Next(t.Context())
		if err != nil || back == nil {
			t.Fatalf("read back: %v", err)
		}
		defer back.Release()
		out := NewEncoder(back.Schema()).AppendBatch(nil, back)
		want := withoutNulls(decodeAny(t, data))
		got := withoutNulls(decodeAny(t, bytes.TrimSpace(out)))
		if !sameJSON(want, got) {
			t.Fatalf("round trip changed the value:\n in  %s\n out %s\nschema %s", data, out, typ.String())
		}
	})
}

func withoutNulls(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if x == nil {
				delete(v, k)
			} else {
				v[k] = withoutNulls(x)
			}
		}
	case []any:
		for i, x := range v {
			v[i] = withoutNulls(x)
		}
	}
	return v
}

// sameJSON compares decoded values. Integers compare by their text, or,
// when one comes back as a float (an int in a float column comes back as
// 1.0), by their exact value; other numbers compare as float64, a nonzero
// never equal to zero.
func sameJSON(a, b any) bool {
	switch a := a.(type) {
	case json.Number:
		bn, ok := b.(json.Number)
		if !ok {
			return false
		}
		if a == bn {
			return true
		}
		fb, errB := bn.Float64()
		if isIntText(string(a)) {
			n, ok := new(big.Int).SetString(string(a), 10)
			return ok && !isIntText(string(bn)) && errB == nil && new(big.Float).SetInt(n).Cmp(big.NewFloat(fb)) == 0
		}
		fa, errA := a.Float64()
		if fa == 0 && !zeroMantissa([]byte(a)) {
			return false
		}
		return errA == nil && errB == nil && fa == fb
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, x := range a {
			if !sameJSON(x, bm[k]) {
				return false
			}
		}
		return true
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return false
		}
		for i := range a {
			if !sameJSON(a[i], bl[i]) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(a, b)
	}
}

func isIntText(s string) bool { return !strings.ContainsAny(s, ".eE") }

// FuzzDecodeAfterInference infers the schema from one object and decodes
// another with it, as rows after the inferred prefix are: whatever does not
// fit the schema goes to _extra, and the row written back holds the same
// values as the line that came in.
func FuzzDecodeAfterInference(f *testing.F) {
	for _, s := range [][2]string{
		{`{"x":1,"y":0.5}`, `{"x":9223372036854775808,"y":9007199254740993}`},
		{`{"x":9223372036854775807}`, `{"x":-9223372036854775809}`},
		{`{"x":[0.5],"m":{"n":1}}`, `{"x":[1e400,2],"m":{"n":1e-400}}`},
		{`{"x":1.5}`, `{"x":-9007199254740992,"z":1E400}`},
		{`{"x":"s"}`, `{"x":123456789012345678901234567890}`},
		{`{"m":{"a":1,"s":{"b":"x"}}}`, `{"m":{"a":"1","c":2,"s":{"b":"y","d":[1]},"s.d":0},"m.c":3}`},
		{`{"m":{"a":{"b":1}},"m.a":{"c":2}}`, `{"m":{"a":{"b":1,"c":2},"a.b":3},"m.a":{"b":4},"m.a.b":5}`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, first, line []byte) {
		var d Doc
		root, err := d.Parse(first)
		if err != nil || d.Node(root).Kind != KindObject {
			return
		}
		typ := schema.Finalize(d.Infer(root))
		root, err = d.Parse(line)
		if err != nil || d.Node(root).Kind != KindObject || d.Repaired > 0 || !utf8.Valid(line) || d.HasDuplicateKeys(root) {
			return
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		b := NewBuilder(mem, typ, true, false)
		defer b.Release()
		if err := b.Append(&d, root); err != nil {
			t.Fatalf("Append(%s) with schema %s: %v", line, typ, err)
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		out := NewEncoder(rec.Schema()).AppendBatch(nil, rec)
		want := withoutNulls(decodeAny(t, line))
		got := withoutNulls(decodeAny(t, bytes.TrimSpace(out)))
		if !sameJSON(want, got) {
			t.Fatalf("decoding changed the value:\n in  %s\n out %s\nschema %s", line, out, typ)
		}
	})
}
