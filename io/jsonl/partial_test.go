package jsonl

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/schema"
)

// readmeSchema is the example of the README's Schema section.
const readmeSchema = `{"id": "string", "text": "string", "meta": {"source": "string", "year": "int"}, "tags": ["string"], "extra": "json"}`

// partialRow is what one row became: the struct column meta alone, the
// _extra text ("" for null), and the JSONL the encoder writes back.
type partialRow struct {
	meta, extra, back string
}

// decodePartial decodes lines with the schema text and returns each row,
// and the bad lines.
func decodePartial(t *testing.T, schemaText string, strict bool, lines ...string) ([]partialRow, []BadLine) {
	t.Helper()
	typ, err := schema.Parse([]byte(schemaText))
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dec := NewDecoder(mem, DecodeOptions{Schema: typ, WithExtra: !strict, Strict: strict})
	defer dec.Release()
	res := dec.Decode(chunkOf(lines...))
	defer res.Batch.Release()
	if len(lines) != int(res.Batch.NumRows())+len(res.Bad) {
		t.Fatalf("%d lines in, %d rows and %d bad lines out", len(lines), res.Batch.NumRows(), len(res.Bad))
	}
	s := res.Batch.Schema()
	lines = splitLines(NewEncoder(s).AppendBatch(nil, res.Batch))
	mi := s.FieldIndices("meta")[0]
	alone := arrow.NewSchema([]arrow.Field{s.Field(mi)}, nil)
	metaRec := array.NewRecordBatch(alone, []arrow.Array{res.Batch.Column(mi)}, res.Batch.NumRows())
	defer metaRec.Release()
	metas := splitLines(NewEncoder(alone).AppendBatch(nil, metaRec))
	rows := make([]partialRow, res.Batch.NumRows())
	for i := range rows {
		rows[i].back = lines[i]
		rows[i].meta = strings.TrimSuffix(strings.TrimPrefix(metas[i], `{"meta":`), "}")
		if idx := s.FieldIndices(schema.ExtraField); len(idx) > 0 {
			if ex := res.Batch.Column(idx[0]).(*array.String); ex.IsValid(i) {
				rows[i].extra = ex.Value(i)
			}
		}
	}
	return rows, res.Bad
}

func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// TestPartialSchemaKeepsNamedNestedMembers: with the README's schema, a
// row whose meta has a member more than the schema names keeps meta's
// named members in the meta column and only the other one in _extra,
// under its path; a member of another type goes to _extra alone too, and
// missing members are nulls. Written back as JSONL, every member is in its
// place again.
func TestPartialSchemaKeepsNamedNestedMembers(t *testing.T) {
	lines := []string{
		`{"id":"a","text":"x","meta":{"source":"web","year":2020,"lang":"en"},"tags":["t"],"extra":{"k":1}}`,
		`{"id":"b","text":"y","meta":{"source":"web"}}`,
		`{"id":"c","text":"z","meta":{"year":"2021","source":"books"},"tags":[]}`,
		`{"id":"d","meta":{"lang":"fr","source":"web","source":"forum","year":1}}`,
		`{"id":"e","meta":"not an object","tags":[1]}`,
		`{"id":"f","meta":null}`,
	}
	want := []partialRow{
		{`{"source":"web","year":2020}`, `{"meta.lang":"en"}`,
			`{"id":"a","text":"x","meta":{"source":"web","year":2020,"lang":"en"},"tags":["t"],"extra":{"k":1}}`},
		{`{"source":"web","year":null}`, ``,
			`{"id":"b","text":"y","meta":{"source":"web","year":null},"tags":null,"extra":null}`},
		{`{"source":"books","year":null}`, `{"meta.year":"2021"}`,
			`{"id":"c","text":"z","meta":{"source":"books","year":"2021"},"tags":[],"extra":null}`},
		{`{"source":"web","year":1}`, `{"meta.lang":"fr","meta.source":"forum"}`,
			`{"id":"d","text":null,"meta":{"source":"web","year":1,"lang":"fr","source":"forum"},"tags":null,"extra":null}`},
		{`null`, `{"meta":"not an object","tags":[1]}`,
			`{"id":"e","text":null,"extra":null,"meta":"not an object","tags":[1]}`},
		{`null`, ``, `{"id":"f","text":null,"meta":null,"tags":null,"extra":null}`},
	}
	got, bad := decodePartial(t, readmeSchema, false, lines...)
	if len(bad) != 0 {
		t.Fatalf("bad lines: %v", bad)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %s:\n got meta %s, _extra %s, back %s\nwant meta %s, _extra %s, back %s",
				lines[i], got[i].meta, got[i].extra, got[i].back, want[i].meta, want[i].extra, want[i].back)
		}
	}
}

// TestPartialSchemaNestedStructs: members of structs within structs go to
// _extra under their whole path; a list of structs whose elements carry
// other members goes to _extra whole, as lists are kept or moved whole.
func TestPartialSchemaNestedStructs(t *testing.T) {
	const s = `{"id": "string", "meta": {"src": {"name": "string"}, "spans": [{"start": "int"}]}}`
	lines := []string{
		`{"id":"a","meta":{"src":{"name":"w","url":"u"},"n":1,"spans":[{"start":0}]}}`,
		`{"id":"b","meta":{"src":{"url":"u"},"spans":[{"start":0,"end":3}]}}`,
	}
	want := []partialRow{
		{`{"src":{"name":"w"},"spans":[{"start":0}]}`, `{"meta.src.url":"u","meta.n":1}`,
			`{"id":"a","meta":{"src":{"name":"w","url":"u"},"spans":[{"start":0}],"n":1}}`},
		{`{"src":{"name":null},"spans":null}`, `{"meta.src.url":"u","meta.spans":[{"start":0,"end":3}]}`,
			`{"id":"b","meta":{"src":{"name":null,"url":"u"},"spans":[{"start":0,"end":3}]}}`},
	}
	got, bad := decodePartial(t, s, false, lines...)
	if len(bad) != 0 {
		t.Fatalf("bad lines: %v", bad)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %s:\n got meta %s, _extra %s, back %s\nwant meta %s, _extra %s, back %s",
				lines[i], got[i].meta, got[i].extra, got[i].back, want[i].meta, want[i].extra, want[i].back)
		}
	}
}

// TestPartialSchemaKeysThatLookLikePaths: a top-level member whose own name
// has a dot ("meta.lang") next to a struct column meta, or a member "src.x"
// of meta next to its struct member src, would be put back in the wrong
// object from its _extra key; the struct column it would be read into goes
// to _extra whole instead, and the row comes back as it went in.
func TestPartialSchemaKeysThatLookLikePaths(t *testing.T) {
	const s = `{"id": "string", "meta": {"source": "string", "src": {"name": "string"}}}`
	lines := []string{
		`{"id":"a","meta":{"source":"web"},"meta.lang":"en"}`,
		`{"id":"b","meta":{"src":{"name":"w"},"src.x":1}}`,
		`{"id":"c","meta.lang":"en"}`,
		`{"id":"d","meta":{"source":"web","lang.x":"y"}}`,
	}
	want := []partialRow{
		{`null`, `{"meta":{"source":"web"},"meta.lang":"en"}`, `{"id":"a","meta":{"source":"web"},"meta.lang":"en"}`},
		{`null`, `{"meta":{"src":{"name":"w"},"src.x":1}}`, `{"id":"b","meta":{"src":{"name":"w"},"src.x":1}}`},
		{`null`, `{"meta.lang":"en"}`, `{"id":"c","meta":null,"meta.lang":"en"}`},
		{`{"source":"web","src":null}`, `{"meta.lang.x":"y"}`, `{"id":"d","meta":{"source":"web","src":null,"lang.x":"y"}}`},
	}
	got, bad := decodePartial(t, s, false, lines...)
	if len(bad) != 0 {
		t.Fatalf("bad lines: %v", bad)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %s:\n got meta %s, _extra %s, back %s\nwant meta %s, _extra %s, back %s",
				lines[i], got[i].meta, got[i].extra, got[i].back, want[i].meta, want[i].extra, want[i].back)
		}
	}
}

// TestPartialSchemaStrictQuarantinesByPath: with --strict, a nested member
// the schema does not name, one of another type, or one named twice
// quarantines the row, the error naming the member's path and the line.
func TestPartialSchemaStrictQuarantinesByPath(t *testing.T) {
	lines := []string{
		`{"id":"a","meta":{"source":"web","year":2020}}`,
		`{"id":"b","meta":{"source":"web","lang":"en"}}`,
		`{"id":"c","meta":{"source":"web","year":"2021"}}`,
		`{"id":"d","meta":{"source":"web"}}`,
		`{"id":"e","meta":{"source":"web","source":"forum"}}`,
	}
	got, bad := decodePartial(t, readmeSchema, true, lines...)
	if len(got) != 2 || got[0].meta != `{"source":"web","year":2020}` || got[1].meta != `{"source":"web","year":null}` {
		t.Errorf("rows kept: %+v, want a and d", got)
	}
	want := []struct {
		line int64
		err  string
	}{
		{2, `field "meta.lang" is not in the schema`},
		{3, `field "meta.year": value "2021" is not a int`},
		{5, `field "meta.source" appears twice`},
	}
	if len(bad) != len(want) {
		t.Fatalf("bad lines %v, want %d", bad, len(want))
	}
	for i, w := range want {
		if bad[i].Ref.Line != w.line || !strings.Contains(bad[i].Err.Error(), w.err) || string(bad[i].Raw) != lines[w.line-1] {
			t.Errorf("bad line %d: line %d, %v, raw %s; want line %d, %q", i, bad[i].Ref.Line, bad[i].Err, bad[i].Raw, w.line, w.err)
		}
	}
}
