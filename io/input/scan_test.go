package input

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/sluice-data/sluice/io/layout"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func rels(t *testing.T, dir string, files []File) []string {
	var got []string
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f.Path)
		got = append(got, rel)
	}
	return got
}

func TestScanSkipsHiddenSideFilesAndPlainJSON(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"a.jsonl":                      "{}\n",
		".hidden.jsonl":                "{}\n",
		".sluice-tmp-1/data/x.parquet": "PAR1",
		"out.manifest.json":            "{}",
		"out.quarantine.jsonl":         "{}\n",
		"out.removed.parquet":          "PAR1",
		"quarantine-00001.jsonl":       "{}\n",
		"config.json":                  "{}",
		"sub/b.ndjson":                 "{}\n",
	})
	set, err := Scan([]string{dir}, ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rels(t, dir, set.Files), ","); got != "a.jsonl,sub/b.ndjson" {
		t.Errorf("scan found %s, want a.jsonl,sub/b.ndjson", got)
	}
	if len(set.Dirs) != 1 || set.Dirs[0] != filepath.Clean(dir) {
		t.Errorf("scanned dirs %v", set.Dirs)
	}
}

func TestScanRefusesAnIncompleteDatasetUnlessAllowed(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"ds/data/part-00000.parquet": "PAR1xxxxPAR1"})
	_, err := Scan([]string{filepath.Join(dir, "ds")}, ScanOptions{})
	if err == nil || !strings.Contains(err.Error(), "incomplete") || !strings.Contains(err.Error(), "--allow-incomplete") {
		t.Fatalf("incomplete dataset: err %v", err)
	}
	// Nested inside a scanned directory too.
	if _, err := Scan([]string{dir}, ScanOptions{}); err == nil {
		t.Fatal("an incomplete dataset inside a scanned directory was read")
	}
	set, err := Scan([]string{dir}, ScanOptions{AllowIncomplete: true})
	if err != nil || len(set.Files) != 1 {
		t.Fatalf("with AllowIncomplete: %v, %v", set.Files, err)
	}
	// A complete one nested in a scanned directory gives its data/ only.
	write(t, dir, map[string]string{"ds/manifest.json": `{"format":"` + layout.Format + `"}`, "ds/removed/part-00000.parquet": "PAR1xxxxPAR1"})
	set, err = Scan([]string{dir}, ScanOptions{})
	if err != nil || len(set.Files) != 1 || !strings.HasSuffix(set.Files[0].Path, "ds/data/part-00000.parquet") {
		t.Fatalf("nested dataset: %v, %v", set.Files, err)
	}
}

func TestScanReadsOneFileOnceWhateverItsName(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"a.jsonl": "{}\n"})
	os.Symlink(filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "link.jsonl"))
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(dir)
	set, err := Scan([]string{"a.jsonl", "./a.jsonl", filepath.Join(dir, "a.jsonl"), "link.jsonl"}, ScanOptions{})
	if err != nil || len(set.Files) != 1 {
		t.Fatalf("the same file named four ways: %d files, %v", len(set.Files), err)
	}
}

func TestOtherURLsAreRefused(t *testing.T) {
	for _, u := range []string{"https://example.com/x.jsonl", "hdfs://nn/x.jsonl", "s3:///x.jsonl"} {
		_, err := Scan([]string{u}, ScanOptions{})
		if err == nil || !(strings.Contains(err.Error(), "not supported") || strings.Contains(err.Error(), "names no bucket")) || !strings.Contains(err.Error(), u) {
			t.Errorf("%s: %v", u, err)
		}
	}
	if err := CheckLocal("dir/with:colon/x.jsonl"); err != nil {
		t.Errorf("a local path with a colon: %v", err)
	}
}

func TestContentThatContradictsTheNameIsAnError(t *testing.T) {
	dir := t.TempDir()
	random := string([]byte{0x00, 0x9c, 0xfe, 0x13, 0x37, 0x42, 0x00, 0x01, 0x02})
	write(t, dir, map[string]string{
		"random.warc":    random,
		"random.parquet": random,
		"json.warc":      `{"text":"a jsonl file named .warc"}` + "\n",
		"random.jsonl":   random, // a JSONL name: read, and its lines quarantined
		"empty.parquet":  "",
	})
	for name, wantErr := range map[string]bool{"random.warc": true, "random.parquet": true, "json.warc": false, "random.jsonl": false} {
		f, err := Stat(filepath.Join(dir, name))
		if (err != nil) != wantErr {
			t.Errorf("%s: err %v, want error %v", name, err, wantErr)
		}
		if err == nil && f.Format != JSONL {
			t.Errorf("%s: format %s", name, f.Format)
		}
	}
	if f, err := Stat(filepath.Join(dir, "empty.parquet")); err != nil || f.Format != Parquet {
		t.Errorf("an empty .parquet goes by its name (the reader reports it): %v %v", f.Format, err)
	}
}

// TestAPipeIsPeekedNotConsumed reads JSONL, gzip JSONL and WARC through a
// pipe: sniffing the format must not eat the first bytes.
func TestAPipeIsPeekedNotConsumed(t *testing.T) {
	payload := []byte(`{"text":"first"}` + "\n" + `{"text":"second"}` + "\n")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(payload)
	zw.Close()
	warc := []byte("WARC/1.0\r\nWARC-Type: warcinfo\r\nContent-Length: 0\r\n\r\n\r\n\r\n")
	for _, c := range []struct {
		name string
		raw  []byte
		want []byte
		f    Format
		comp Compression
	}{
		{"plain", payload, payload, JSONL, None},
		{"gzip", gz.Bytes(), payload, JSONL, Gzip},
		{"warc", warc, warc, WARC, None},
	} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() { w.Write(c.raw); w.Close() }()
		f, err := Stat("/dev/fd/" + strconv.Itoa(int(r.Fd())))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !f.IsStream() || f.Format != c.f || f.Compression != c.comp {
			t.Fatalf("%s: stream %v format %s compression %s", c.name, f.IsStream(), f.Format, f.Compression)
		}
		s, err := Open(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(s)
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("%s: read %q, %v", c.name, got, err)
		}
		if s.RawBytes() != int64(len(c.raw)) {
			t.Errorf("%s: %d raw bytes counted, want %d", c.name, s.RawBytes(), len(c.raw))
		}
		s.Close()
		r.Close()
		if _, err := Open(f); err == nil {
			t.Errorf("%s: a stream opened twice", c.name)
		}
	}
}
