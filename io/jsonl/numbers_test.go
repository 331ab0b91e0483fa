package jsonl

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/schema"
)

// chunkOf makes a chunk of the given lines, numbered from 1, as the chunk
// reader would.
func chunkOf(lines ...string) *Chunk {
	c := &Chunk{}
	var off int64
	for i, l := range lines {
		c.Data = append(c.Data, l...)
		c.Ends = append(c.Ends, len(c.Data))
		c.Refs = append(c.Refs, LineRef{Line: int64(i + 1), Offset: off})
		off += int64(len(l)) + 1
	}
	return c
}

// inferLines infers the schema of lines as the pipeline does: the merge of
// every row's type, finalized.
func inferLines(t *testing.T, lines ...string) *schema.Type {
	t.Helper()
	var d Doc
	typ := &schema.Type{Kind: schema.Struct}
	for _, l := range lines {
		root, err := d.Parse([]byte(l))
		if err != nil {
			t.Fatalf("Parse(%s): %v", l, err)
		}
		typ = schema.Merge(typ, d.Infer(root))
	}
	return schema.Finalize(typ)
}

// decodeLines decodes lines with typ and returns the JSONL the encoder
// writes back, the bad lines and the number of rows in the batch.
func decodeLines(t *testing.T, typ *schema.Type, withExtra, strict bool, lines ...string) (out []string, bad []BadLine) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dec := NewDecoder(mem, DecodeOptions{Schema: typ, WithExtra: withExtra, Strict: strict, RepairUTF8: true})
	defer dec.Release()
	res := dec.Decode(chunkOf(lines...))
	defer res.Batch.Release()
	text := string(NewEncoder(res.Batch.Schema()).AppendBatch(nil, res.Batch))
	if text != "" {
		out = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	}
	if int(res.Batch.NumRows()) != len(out) {
		t.Fatalf("batch has %d rows, the encoder wrote %d lines", res.Batch.NumRows(), len(out))
	}
	if len(out)+len(res.Bad) != len(lines) {
		t.Errorf("%d lines in, %d rows + %d bad lines out: a line must end in exactly one place", len(lines), len(out), len(res.Bad))
	}
	return out, res.Bad
}

// numberText returns the raw text of the number member name of the JSON
// object line; of two members with that name (a null column and the value
// merged back from _extra) the last, as JSON readers take it.
func numberText(t *testing.T, line, name string) string {
	t.Helper()
	var d Doc
	root, err := d.Parse([]byte(line))
	if err != nil {
		t.Fatalf("Parse(%s): %v", line, err)
	}
	member := int32(-1)
	for _, c := range d.Children(root) {
		if string(d.Key(c)) == name {
			member = c
		}
	}
	if member < 0 || d.Node(member).Kind != KindNumber {
		t.Fatalf("member %q of %s is not a number", name, line)
	}
	return string(d.Bytes(member))
}

func TestInferNumberKinds(t *testing.T) {
	cases := []struct {
		values []string
		want   string
	}{
		{[]string{"1", "9223372036854775807", "-9223372036854775808"}, "int"},
		{[]string{"9007199254740993", "2"}, "int"},
		{[]string{"1", "9223372036854775808"}, "json"},
		{[]string{"-9223372036854775809"}, "json"},
		{[]string{"1", "0.5"}, "float"},
		{[]string{"9007199254740992", "0.5"}, "float"}, // 2^53 is exact as a float
		{[]string{"-9007199254740992", "0.5"}, "float"},
		{[]string{"9007199254740993", "0.5"}, "json"},
		{[]string{"0.5", "-9007199254740993"}, "json"},
		{[]string{"0.5", "1e400"}, "json"},
		{[]string{"-1e400"}, "json"},
		{[]string{"1e-400"}, "json"}, // nonzero, but a float64 holds only 0
		{[]string{"0e-400", "0.0", "-0.0"}, "float"},
		{[]string{"1.5e308"}, "float"},
	}
	for _, c := range cases {
		var lines []string
		for _, v := range c.values {
			lines = append(lines, `{"x":`+v+`}`)
		}
		typ := inferLines(t, lines...)
		if got := typ.Fields[0].Type.Kind.String(); got != c.want {
			t.Errorf("values %v: inferred %s, want %s", c.values, got, c.want)
		}
		// Inference in a list and in a nested struct agrees.
		nested := inferLines(t, `{"l":[`+strings.Join(c.values, ",")+`]}`)
		if got := nested.Fields[0].Type.Elem.Kind.String(); got != c.want {
			t.Errorf("list of %v: inferred [%s], want [%s]", c.values, got, c.want)
		}
	}
}

// TestNumbersRoundTripExactly sends numbers through schema inference, the
// decoder and the encoder, and checks that every one comes back with the
// same text, whether inference saw it or not.
func TestNumbersRoundTripExactly(t *testing.T) {
	columns := [][]string{
		{"9223372036854775807", "-9223372036854775808", "9007199254740993", "0", "-1"},
		{"9223372036854775807", "9223372036854775808", "9007199254740993"},
		{"-9223372036854775808", "-9223372036854775809"},
		{"9007199254740993", "0.5", "-9007199254740993"},
		{"1e400", "0.5"},
		{"1e400", "-1e400", "1E400"},
		{"123456789012345678901234567890", "1"},
	}
	for _, values := range columns {
		var lines []string
		for _, v := range values {
			lines = append(lines, `{"x":`+v+`}`)
		}
		// Every row seen by inference; then only the first (later rows
		// disagree with the schema and go to _extra).
		for _, prefix := range []int{len(lines), 1} {
			typ := inferLines(t, lines[:prefix]...)
			out, bad := decodeLines(t, typ, prefix < len(lines), false, lines...)
			if len(bad) > 0 {
				t.Errorf("values %v, inferred from %d rows: bad line %v", values, prefix, bad[0].Err)
				continue
			}
			for i, v := range values {
				if got := numberText(t, out[i], "x"); got != v {
					t.Errorf("values %v, inferred from %d rows (%s): %s came back as %s", values, prefix, typ, v, got)
				}
			}
		}
	}
}

// TestValuesThatDoNotFitAreNeverRounded checks the values that a column's
// type cannot hold exactly, met after inference: each goes to _extra with
// its text, or makes the row fail in strict mode, never rounded or nulled.
func TestValuesThatDoNotFitAreNeverRounded(t *testing.T) {
	cases := []struct {
		schema string
		value  string
	}{
		{`{"x":"int"}`, "9223372036854775808"},
		{`{"x":"int"}`, "-9223372036854775809"},
		{`{"x":"int"}`, "1e400"},
		{`{"x":"int"}`, "1.5"},
		{`{"x":"float"}`, "1e400"},
		{`{"x":"float"}`, "-1e400"},
		{`{"x":"float"}`, "1e-400"},
		{`{"x":"float"}`, "9007199254740993"},
		{`{"x":"float"}`, "-9007199254740993"},
		{`{"x":"float"}`, "9223372036854775807"},
		{`{"x":"float"}`, "9223372036854775808"},
		{`{"x":["float"]}`, "[1.5,9007199254740993]"},
		{`{"x":{"y":"int"}}`, `{"y":9223372036854775808}`},
	}
	for _, c := range cases {
		typ, err := schema.Parse([]byte(c.schema))
		if err != nil {
			t.Fatal(err)
		}
		line := `{"x":` + c.value + `}`
		out, bad := decodeLines(t, typ, true, false, line)
		if len(bad) != 0 || len(out) != 1 {
			t.Errorf("%s with schema %s: %d rows, %d bad lines, want one row", line, c.schema, len(out), len(bad))
			continue
		}
		// The member kept in _extra replaces its column's null: written once.
		if out[0] != `{"x":`+c.value+`}` {
			t.Errorf("%s with schema %s came back as %s, want the value from _extra, once", line, c.schema, out[0])
		}
		out, bad = decodeLines(t, typ, false, true, line)
		if len(out) != 0 || len(bad) != 1 || !errors.Is(bad[0].Err, ErrSchemaMismatch) {
			t.Errorf("%s with schema %s, strict: %d rows, bad lines %v, want the line quarantined", line, c.schema, len(out), bad)
		}
	}
	// Values that fit: integers within ±2^53 widen to float, 2^53 included.
	typ, _ := schema.Parse([]byte(`{"x":"float","i":"int"}`))
	out, bad := decodeLines(t, typ, true, false,
		`{"x":9007199254740992,"i":9223372036854775807}`, `{"x":-9007199254740992,"i":-9223372036854775808}`, `{"x":0e-400,"i":0}`)
	want := []string{
		`{"x":9.007199254740992e+15,"i":9223372036854775807}`,
		`{"x":-9.007199254740992e+15,"i":-9223372036854775808}`,
		`{"x":0.0,"i":0}`,
	}
	if len(bad) != 0 || strings.Join(out, "\n") != strings.Join(want, "\n") {
		t.Errorf("values that fit: got %q, bad %v, want %q", out, bad, want)
	}
}

// TestOverflowingFloatEndsInOnePlace decodes a line whose float overflows
// float64 with a schema inferred from every other row and no _extra column
// (as a complete inference gives): the line must be a row or a bad line,
// never both.
func TestOverflowingFloatEndsInOnePlace(t *testing.T) {
	lines := []string{`{"x":1.5,"t":"a"}`, `{"x":1e400,"t":"b"}`, `{"x":2.5,"t":"c"}`}
	typ := inferLines(t, lines[0], lines[2])
	out, bad := decodeLines(t, typ, false, false, lines...)
	if len(out) != 2 || len(bad) != 1 || bad[0].Ref.Line != 2 {
		t.Fatalf("rows %q, bad lines %v: want 2 rows and line 2 bad", out, bad)
	}
	if out[0] != `{"x":1.5,"t":"a"}` || out[1] != `{"x":2.5,"t":"c"}` {
		t.Errorf("rows %q: the bad line left a trace", out)
	}
	// With every row seen, the column holds 1e400 as JSON text.
	typ = inferLines(t, lines...)
	out, bad = decodeLines(t, typ, false, false, lines...)
	if len(bad) != 0 || strings.Join(out, "\n") != strings.Join(lines, "\n") {
		t.Errorf("inferred from every row (%s): rows %q, bad lines %v", typ, out, bad)
	}
}

// TestInt64ParsesEveryIntegerExactly checks the integer parser against the
// edges of int64.
func TestInt64ParsesEveryIntegerExactly(t *testing.T) {
	cases := []struct {
		s  string
		v  int64
		ok bool
	}{
		{"0", 0, true}, {"-0", 0, true}, {"7", 7, true}, {"-7", -7, true},
		{"999999999999999999", 999999999999999999, true},
		{"9223372036854775807", 9223372036854775807, true},
		{"-9223372036854775808", -9223372036854775808, true},
		{"9223372036854775808", 0, false},
		{"-9223372036854775809", 0, false},
		{"9999999999999999999", 0, false},
		{"18446744073709551616", 0, false},
		{"100000000000000000000", 0, false},
		{"1.0", 0, false}, {"1e3", 0, false},
	}
	var d Doc
	for _, c := range cases {
		root, err := d.Parse([]byte(c.s))
		if err != nil {
			t.Fatal(err)
		}
		v, ok := d.Int64(root)
		if v != c.v && c.ok || ok != c.ok {
			t.Errorf("Int64(%s) = %d, %v; want %d, %v", c.s, v, ok, c.v, c.ok)
		}
	}
}

// TestDecodeNumbersAllocatesNothingPerValue guards the hot path: decoding
// a number, whatever its column type, allocates nothing per value.
func TestDecodeNumbersAllocatesNothingPerValue(t *testing.T) {
	typ, _ := schema.Parse([]byte(`{"i":"int","f":"float","w":"float","j":"json"}`))
	b := NewBuilder(memory.NewGoAllocator(), typ, true, false)
	defer b.Release()
	b.Reserve(1000)
	var d Doc
	line := []byte(`{"i":-9223372036854775808,"f":1.25e-3,"w":9007199254740992,"j":12345678901234567890123}`)
	allocs := testing.AllocsPerRun(500, func() {
		root, err := d.Parse(line)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Append(&d, root); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0.1 {
		t.Errorf("%.1f allocations per row", allocs)
	}
	b.NewRecordBatch().Release()
}
