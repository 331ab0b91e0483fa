package jsonl

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/sluice-data/sluice/io/input"
)

// readLines reads files through a ChunkReader and returns each line read
// as "line@offset:bytes", and the reader's per-file stats.
func readLines(t *testing.T, files []input.File) ([]string, []FileStat) {
	t.Helper()
	r := NewChunkReader(files, ChunkOptions{Rows: 7, MaxLineBytes: 1 << 20})
	var out []string
	for {
		c, err := r.Next()
		if err == io.EOF {
			return out, r.Stats()
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, ref := range c.Refs {
			out = append(out, fmt.Sprintf("%d@%d:%s", ref.Line, ref.Offset, c.Line(i)))
		}
		c.Release()
	}
}

// The parts of a split file give every line of the file once, with the
// line numbers and offsets of reading it whole, whatever the number of
// parts; blank lines, CRLF, a byte order mark, a long line and a last line
// without a newline included.
func TestSplitReadsEveryLineOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	b.Write([]byte{0xEF, 0xBB, 0xBF})
	for i := 0; i < 300; i++ {
		switch {
		case i%37 == 5:
			b.WriteString("\n")
		case i%41 == 7:
			fmt.Fprintf(&b, "{\"id\":%d,\"text\":%q}\r\n", i, strings.Repeat("long ", 2000))
		default:
			fmt.Fprintf(&b, "{\"id\":%d,\"text\":%q}\n", i, strings.Repeat("w", rng.IntN(200)))
		}
	}
	b.WriteString(`{"id":"last","text":"no newline"}`)
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	whole := input.File{Path: path, Size: int64(b.Len()), Format: input.JSONL}
	want, wantStats := readLines(t, []input.File{whole})
	if len(want) < 290 {
		t.Fatalf("read %d lines of the whole file", len(want))
	}
	for _, n := range []int{1, 2, 3, 7, 64, 1000} {
		parts, hash, err := Split(whole, n)
		if err != nil {
			t.Fatal(err)
		}
		if n > 1 && hash != xxhash.Sum64(b.Bytes()) {
			t.Errorf("%d parts: hash %x, the file's is %x", n, hash, xxhash.Sum64(b.Bytes()))
		}
		if len(parts) > n || (n > 1 && n <= 7 && len(parts) != n) {
			t.Errorf("%d parts asked: got %d", n, len(parts))
		}
		var size int64
		for _, p := range parts {
			size += p.Size
		}
		if size != whole.Size {
			t.Errorf("%d parts: sizes add up to %d, the file has %d bytes", n, size, whole.Size)
		}
		got, stats := readLines(t, parts)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%d parts: %d lines read, want %d; first difference:\n%s", n, len(got), len(want), firstDiff(got, want))
		}
		var lines, blank int64
		for _, s := range stats {
			lines += s.Lines
			blank += s.BlankLines
		}
		if lines != wantStats[0].Lines || blank != wantStats[0].BlankLines {
			t.Errorf("%d parts: %d lines and %d blank, want %d and %d", n, lines, blank, wantStats[0].Lines, wantStats[0].BlankLines)
		}
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("got  %.80s\nwant %.80s", a[i], b[i])
		}
	}
	return "one is a prefix of the other"
}

// Compressed files, streams and files of one line are not split.
func TestSplitLeavesWholeWhatItCannotCut(t *testing.T) {
	dir := t.TempDir()
	one := filepath.Join(dir, "one.jsonl")
	os.WriteFile(one, []byte(`{"text":"only line"}`+"\n"), 0o644)
	parts, _, err := Split(input.File{Path: one, Size: 21, Format: input.JSONL}, 4)
	if err != nil || len(parts) != 1 || !parts[0].Span.IsZero() {
		t.Fatalf("one line in 4 parts: %+v, %v", parts, err)
	}
	parts, _, err = Split(input.File{Path: one, Size: 21, Format: input.JSONL, Compression: input.Gzip}, 4)
	if err != nil || len(parts) != 1 {
		t.Fatalf("gzip in 4 parts: %+v, %v", parts, err)
	}
	if _, err := input.Open(input.File{Path: one, Compression: input.Zstd, Span: input.Span{Lo: 1, Hi: 5, FirstLine: 2}}); err == nil {
		t.Fatal("a span of a zstd file opened")
	}
}
