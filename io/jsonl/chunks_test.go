package jsonl

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/schema"
)

const bom = "\xEF\xBB\xBF"

func TestLineReaderStripsLeadingBOM(t *testing.T) {
	cases := []struct {
		in    string
		lines []string
		offs  []int64
	}{
		{bom + "{\"a\":1}\n{\"a\":2}\n", []string{`{"a":1}`, `{"a":2}`}, []int64{0, 11}},
		{bom + "{\"a\":1}", []string{`{"a":1}`}, []int64{0}},
		{bom + "\n{\"a\":2}\r\n", []string{``, `{"a":2}`}, []int64{0, 4}},
		{bom, nil, nil},
		// Only a BOM at the very start is stripped: one at the start of a
		// later line is data, as is a lone first byte of a BOM.
		{"{\"a\":1}\n" + bom + "{\"a\":2}\n", []string{`{"a":1}`, bom + `{"a":2}`}, []int64{0, 8}},
		{bom + bom + "x\n", []string{bom + "x"}, []int64{0}},
		{"\xEF\xBBx\n", []string{"\xEF\xBBx"}, []int64{0}},
		{"\xEF", []string{"\xEF"}, []int64{0}},
	}
	for _, c := range cases {
		for _, split := range []bool{false, true} {
			var r io.Reader = strings.NewReader(c.in)
			if split {
				r = io.MultiReader(strings.NewReader(c.in[:len(c.in)/2]), strings.NewReader(c.in[len(c.in)/2:]))
			}
			lr := NewLineReader(r, 0)
			var lines []string
			var offs []int64
			for n := int64(1); ; n++ {
				b, err := lr.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("%q: %v", c.in, err)
				}
				if lr.Line() != n {
					t.Errorf("%q: line %d numbered %d", c.in, n, lr.Line())
				}
				lines = append(lines, string(b))
				offs = append(offs, lr.Offset())
			}
			if strings.Join(lines, "|") != strings.Join(c.lines, "|") || len(lines) != len(c.lines) {
				t.Errorf("%q: lines %q, want %q", c.in, lines, c.lines)
			}
			for i := range min(len(offs), len(c.offs)) {
				if offs[i] != c.offs[i] {
					t.Errorf("%q: line %d at offset %d, want %d", c.in, i+1, offs[i], c.offs[i])
				}
			}
		}
	}
}

// TestChunkReaderStripsBOMOfEachFile reads a plain and a gzip file, each
// starting with a byte order mark, and decodes them: every line becomes a
// row, numbered as in the file.
func TestChunkReaderStripsBOMOfEachFile(t *testing.T) {
	dir := t.TempDir()
	body := bom + "{\"text\":\"a\"}\n{\"text\":\"b\"}\n"
	plain := filepath.Join(dir, "plain.jsonl")
	if err := os.WriteFile(plain, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(body))
	zw.Close()
	zipped := filepath.Join(dir, "zipped.jsonl.gz")
	if err := os.WriteFile(zipped, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var files []input.File
	for _, p := range []string{plain, zipped, plain} {
		f, err := input.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if files[1].Compression != input.Gzip {
		t.Fatalf("%s: compression %v, want gzip", zipped, files[1].Compression)
	}
	r := NewChunkReader(files, ChunkOptions{Rows: 3})
	typ, _ := schema.Parse([]byte(`{"text":"string"}`))
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dec := NewDecoder(mem, DecodeOptions{Schema: typ, Strict: true})
	defer dec.Release()
	var refs []LineRef
	var out []byte
	for {
		c, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, c.Refs...)
		res := dec.Decode(c)
		for _, b := range res.Bad {
			t.Errorf("file %d line %d quarantined: %v (%q)", b.Ref.File, b.Ref.Line, b.Err, b.Raw)
		}
		out = NewEncoder(res.Batch.Schema()).AppendBatch(out, res.Batch)
		res.Batch.Release()
		c.Release()
	}
	if want := strings.Repeat("{\"text\":\"a\"}\n{\"text\":\"b\"}\n", 3); string(out) != want {
		t.Errorf("rows:\n%s\nwant\n%s", out, want)
	}
	if len(refs) != 6 {
		t.Fatalf("%d lines, want 6", len(refs))
	}
	for i, ref := range refs {
		line, off := int64(i%2+1), int64(i%2*16)
		if ref.File != int32(i/2) || ref.Line != line || ref.Offset != off {
			t.Errorf("line %d: file %d line %d offset %d, want file %d line %d offset %d", i, ref.File, ref.Line, ref.Offset, i/2, line, off)
		}
	}
	for i, st := range r.Stats() {
		if st.Lines != 2 || st.Err != nil {
			t.Errorf("file %d: %d lines, err %v", i, st.Lines, st.Err)
		}
	}
	if st := r.Stats()[0]; st.Bytes != int64(len(body)) {
		t.Errorf("plain file: %d bytes read, want %d (the BOM counts)", st.Bytes, len(body))
	}
}

// TestLineLimitHoldsBelowTheReadBuffer: a limit smaller than the read
// buffer still catches the lines over it, and reading goes on after them.
func TestLineLimitHoldsBelowTheReadBuffer(t *testing.T) {
	long := strings.Repeat("x", 5000)
	for _, tail := range []string{"\nlast\n", "\nlast"} {
		l := NewLineReader(strings.NewReader("short\n"+long+tail), 1024)
		if b, err := l.Next(); err != nil || string(b) != "short" {
			t.Fatalf("line 1: %q %v", b, err)
		}
		b, err := l.Next()
		if !errors.Is(err, ErrLineTooLong) || len(b) != 1024 || l.Line() != 2 {
			t.Fatalf("line 2 (5000 bytes, limit 1024): %d bytes, %v", len(b), err)
		}
		if b, err := l.Next(); err != nil || string(b) != "last" || l.Line() != 3 {
			t.Fatalf("line 3: %q %v", b, err)
		}
	}
	// A last line without a newline is held to the limit too.
	l := NewLineReader(strings.NewReader(long), 1024)
	if _, err := l.Next(); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("final line over the limit: %v", err)
	}
}
