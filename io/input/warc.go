package input

import (
	"bytes"
	"os"
	"strings"

	"github.com/klauspost/compress/gzip"
)

var warcSuffixes = []string{".warc", ".warc.gz", ".wet", ".wet.gz"}

// isWARC tells a WARC or WET file by its first bytes ("WARC/", after gzip
// decompression for a gzip file) or, for a file too short or damaged to
// tell, by its name.
func isWARC(path string, head []byte, c Compression) bool {
	switch c {
	case None:
		if len(head) >= 4 {
			return bytes.Equal(head[:4], []byte("WARC"))
		}
	case Gzip:
		if first, ok := gzipHead(path, 5); ok {
			return bytes.Equal(first, []byte("WARC/"))
		}
	}
	for _, s := range warcSuffixes {
		if strings.HasSuffix(path, s) {
			return true
		}
	}
	return false
}

// gzipHead returns the first n decompressed bytes of the gzip file at
// path; ok is false when there are fewer.
func gzipHead(path string, n int) ([]byte, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, false
	}
	buf := make([]byte, n)
	k := 0
	for k < n {
		m, err := zr.Read(buf[k:])
		k += m
		if err != nil {
			break
		}
	}
	return buf[:k], k == n
}
