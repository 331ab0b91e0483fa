package input

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/gzip"
)

func TestWARCIsToldByContentThenName(t *testing.T) {
	dir := t.TempDir()
	rec := []byte("WARC/1.0\r\nWARC-Type: warcinfo\r\nContent-Length: 0\r\n\r\n\r\n\r\n")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(rec)
	zw.Close()
	var jsonGz bytes.Buffer
	zw = gzip.NewWriter(&jsonGz)
	zw.Write([]byte(`{"text":"x"}` + "\n"))
	zw.Close()
	cases := []struct {
		name string
		data []byte
		want Format
	}{
		{"crawl.warc", rec, WARC},
		{"crawl.warc.gz", gz.Bytes(), WARC},
		{"CC-MAIN-1.warc.wet.gz", gz.Bytes(), WARC},
		{"no-suffix.bin", gz.Bytes(), WARC},         // told by the decompressed magic
		{"plain-no-suffix", rec, WARC},              // told by the magic
		{"data.warc.gz", jsonGz.Bytes(), JSONL},     // content wins over the name
		{"empty.warc.gz", nil, WARC},                // too short to tell: the name decides
		{"truncated.warc.gz", gz.Bytes()[:8], WARC}, // likewise
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.name)
		os.WriteFile(p, c.data, 0o644)
		f, err := Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if f.Format != c.want {
			t.Errorf("%s: format %s, want %s", c.name, f.Format, c.want)
		}
	}
	files, err := Expand([]string{dir})
	if err != nil || len(files) != 6 {
		t.Fatalf("directory expansion found %d files (%v): %v", len(files), files, err)
	}
}
