package input

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/sluice-data/sluice/io/layout"
)

func TestFormatIsToldByMagicBytesFirst(t *testing.T) {
	dir := t.TempDir()
	payload := []byte(`{"text":"hello"}` + "\n")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(payload)
	zw.Close()
	enc, _ := zstd.NewWriter(nil)
	files := map[string][]byte{
		"plain.jsonl":         payload,
		"gzip-no-suffix.data": gz.Bytes(),
		"zstd.jsonl":          enc.EncodeAll(payload, nil), // misnamed: still zstd
		"x.parquet":           []byte("PAR1....PAR1"),
	}
	want := map[string]struct {
		f Format
		c Compression
	}{
		"plain.jsonl": {JSONL, None}, "gzip-no-suffix.data": {JSONL, Gzip}, "zstd.jsonl": {JSONL, Zstd}, "x.parquet": {Parquet, None},
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		os.WriteFile(p, data, 0o644)
		f, err := Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if f.Format != want[name].f || f.Compression != want[name].c {
			t.Errorf("%s: format %s compression %s, want %s %s", name, f.Format, f.Compression, want[name].f, want[name].c)
		}
		if f.Format == JSONL {
			s, err := Open(f)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(s)
			if err != nil || !bytes.Equal(got, payload) {
				t.Errorf("%s: read %q, %v", name, got, err)
			}
			s.Drain()
			if s.RawBytes() != int64(len(data)) || s.Hash() != xxhash.Sum64(data) {
				t.Errorf("%s: counted %d raw bytes (want %d) or wrong hash", name, s.RawBytes(), len(data))
			}
			s.Close()
		}
	}
}

func TestExpandGlobsAndDirectories(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b.jsonl", "a.jsonl.gz", "sub/c.parquet", "notes.txt"} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("{}\n"), 0o644)
	}
	files, err := Expand([]string{dir, filepath.Join(dir, "*.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f.Path)
		got = append(got, rel)
	}
	want := []string{"a.jsonl.gz", "b.jsonl", "sub/c.parquet"} // sorted, each once, no .txt
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	if _, err := Expand([]string{filepath.Join(dir, "nothing-*.jsonl")}); err == nil {
		t.Error("a glob that matches nothing is an error")
	}
	if _, err := Expand([]string{filepath.Join(dir, "missing.jsonl")}); err == nil {
		t.Error("a missing file is an error")
	}
}

func TestExpandReadsOnlyTheDataOfADataset(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"data/part-00000.jsonl":    `{"text":"kept"}` + "\n",
		"removed/part-00000.jsonl": `{"text":"gone","_stage":"x","_reason":"y"}` + "\n",
		"quarantine.jsonl":         `{"file":"in.jsonl","line":3}` + "\n",
		"manifest.json":            `{"format":"` + layout.Format + `"}`,
	} {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(body), 0o644)
	}
	files, err := Expand([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != filepath.Join(dir, "data", "part-00000.jsonl") {
		t.Fatalf("Expand(dataset) = %+v, want only data/part-00000.jsonl", files)
	}
	// Without a sluice manifest it is an ordinary directory, searched whole
	// but for side outputs (the quarantine).
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{}`), 0o644)
	if files, err = Expand([]string{dir}); err != nil || len(files) != 2 {
		t.Fatalf("Expand(plain directory) = %d files, %v; want 2", len(files), err)
	}
}
