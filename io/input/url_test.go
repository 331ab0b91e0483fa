package input_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/internal/s3test"
	"github.com/sluice-data/sluice/io/input"
)

func gz(t *testing.T, s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.String()
}

// TestScanObjectStore scans objects, globs and prefixes of a bucket as it
// scans files, globs and directories, and reads them the same.
func TestScanObjectStore(t *testing.T) {
	s := s3test.Start(t)
	dir := t.TempDir()
	files := map[string]string{
		"crawl/a.jsonl":                      "{\"text\":\"a\"}\n",
		"crawl/b.jsonl.gz":                   gz(t, "{\"text\":\"b\"}\n{\"text\":\"bb\"}\n"),
		"crawl/sub/c.jsonl":                  "{\"text\":\"c\"}\n",
		"crawl/notes.txt":                    "not data",
		"crawl/.hidden/d.jsonl":              "{}\n",
		"crawl/x.manifest.json":              "{}",
		"ds/manifest.json":                   `{"format":"sluice-dataset/1"}`,
		"ds/data/part-00000.parquet":         "PAR1",
		"ds/removed/part-00000.parquet":      "PAR1",
		"half/data/part-00000.parquet":       "PAR1",
		"half/data/part-00001.parquet":       "PAR1",
		"mixed/ds/manifest.json":             `{"format":"sluice-dataset/1"}`,
		"mixed/ds/data/part-00000.parquet":   "PAR1",
		"mixed/ds/removed/part-0.parquet":    "PAR1",
		"mixed/top.jsonl":                    "{}\n",
		"mixed/.sluice-tmp-1/data/p.parquet": "PAR1",
	}
	for k, v := range files {
		p := filepath.Join(dir, k)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s.PutDir(t, "", dir)
	urls := func(set input.Set) string {
		var out []string
		for _, f := range set.Files {
			out = append(out, strings.TrimPrefix(f.Path, "s3://"+s.Bucket+"/"))
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{s.URL("crawl")}, "crawl/a.jsonl crawl/b.jsonl.gz crawl/sub/c.jsonl"},
		{[]string{s.URL("crawl/")}, "crawl/a.jsonl crawl/b.jsonl.gz crawl/sub/c.jsonl"},
		{[]string{s.URL("crawl/*.jsonl*")}, "crawl/a.jsonl crawl/b.jsonl.gz"},
		{[]string{s.URL("crawl/notes.txt")}, "crawl/notes.txt"}, // named, read whatever its name
		{[]string{s.URL("ds")}, "ds/data/part-00000.parquet"},
		{[]string{s.URL("mixed")}, "mixed/ds/data/part-00000.parquet mixed/top.jsonl"},
		{[]string{s.URL("crawl/a.jsonl"), s.URL("crawl/a.jsonl/")[:len(s.URL("crawl/a.jsonl"))]}, "crawl/a.jsonl"},
	} {
		set, err := input.Scan(c.args, input.ScanOptions{})
		if err != nil || urls(set) != c.want {
			t.Errorf("Scan(%v) = %q, %v; want %q", c.args, urls(set), err, c.want)
		}
	}
	if _, err := input.Scan([]string{s.URL("half")}, input.ScanOptions{}); err == nil || !strings.Contains(err.Error(), "incomplete") || !strings.Contains(err.Error(), s.URL("half")) {
		t.Errorf("an incomplete dataset: %v", err)
	}
	if set, err := input.Scan([]string{s.URL("half")}, input.ScanOptions{AllowIncomplete: true}); err != nil || len(set.Files) != 2 {
		t.Errorf("an incomplete dataset read anyway: %v %v", set.Files, err)
	}
	for _, bad := range []string{s.URL("nothing"), s.URL("crawl/*.parquet"), "s3://no-such-bucket/x"} {
		if _, err := input.Scan([]string{bad}, input.ScanOptions{}); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("Scan(%s): %v", bad, err)
		}
	}

	// Read as a local file is read: the same format, size, bytes and hash.
	set, err := input.Scan([]string{s.URL("crawl")}, input.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range set.Files {
		local, err := input.Stat(filepath.Join(dir, strings.TrimPrefix(f.Path, "s3://"+s.Bucket+"/")))
		if err != nil {
			t.Fatal(err)
		}
		if f.Format != local.Format || f.Compression != local.Compression || f.Size != local.Size {
			t.Errorf("%s: %v %v %d, the local copy %v %v %d", f.Path, f.Format, f.Compression, f.Size, local.Format, local.Compression, local.Size)
		}
		got, h := readAll(t, f)
		want, lh := readAll(t, local)
		if got != want || h != lh {
			t.Errorf("%s reads %q (hash %x), the local copy %q (%x)", f.Path, got, h, want, lh)
		}
		if fh, _ := input.HashFile(f.Path); fh != h {
			t.Errorf("HashFile(%s) = %x, want %x", f.Path, fh, h)
		}
	}
	// A span of an object: the lines that start in it.
	f, err := input.Stat(s.URL("crawl/sub/c.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	f.Span = input.Span{Lo: 2, Hi: 8, FirstLine: 1}
	if got, _ := readAll(t, f); got != "text\":" {
		t.Errorf("span reads %q", got)
	}
}

func readAll(t *testing.T, f input.File) (string, uint64) {
	t.Helper()
	st, err := input.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b, err := io.ReadAll(st)
	if err != nil {
		t.Fatal(err)
	}
	st.Drain()
	return string(b), st.Hash()
}
