// Package input finds a command's input files (paths, globs, directories),
// tells their format from name and magic bytes, and opens them as streams of
// decompressed bytes while hashing and counting the raw bytes read.
package input

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Format is the container format of an input file.
type Format uint8

// The input formats.
const (
	JSONL Format = iota
	Parquet
	WARC // WARC and WET files, plain or gzip
)

func (f Format) String() string {
	return [...]string{"jsonl", "parquet", "warc"}[f]
}

// Compression is the stream compression of a JSONL input.
type Compression uint8

// The compressions a JSONL input may have.
const (
	None Compression = iota
	Gzip
	Zstd
)

func (c Compression) String() string {
	return [...]string{"none", "gzip", "zstd"}[c]
}

// File is one input file.
type File struct {
	Path        string
	Name        string // how manifests and quarantines name the file; Path when empty
	Size        int64
	Format      Format
	Compression Compression
	// RowGroups, when set, are the row groups [lo, hi) of a Parquet file
	// to read, a slice of it (sharded runs split large files so); zero
	// for the whole file.
	RowGroups [2]int
}

// Label returns the name the file goes by in manifests and quarantines.
func (f File) Label() string {
	if f.Name != "" {
		return f.Name
	}
	return f.Path
}

// ErrNoInput is returned when the arguments name no file.
var ErrNoInput = errors.New("no input files")

var dataSuffixes = []string{".jsonl", ".jsonl.gz", ".jsonl.zst", ".ndjson", ".ndjson.gz", ".ndjson.zst",
	".json", ".json.gz", ".json.zst", ".parquet", ".warc", ".warc.gz", ".wet", ".wet.gz"}

// Expand turns command arguments into a sorted, de-duplicated list of files.
// An argument is a file, a glob, or a directory (searched recursively for
// files with a known data suffix; of a sluice dataset directory, only its
// data/ folder).
func Expand(args []string) ([]File, error) {
	seen := map[string]bool{}
	var paths []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	for _, arg := range args {
		matches := []string{arg}
		if strings.ContainsAny(arg, "*?[") {
			m, err := filepath.Glob(arg)
			if err != nil {
				return nil, fmt.Errorf("%s: bad pattern: %w", arg, err)
			}
			if len(m) == 0 {
				return nil, fmt.Errorf("%s: no file matches", arg)
			}
			matches = m
		}
		for _, p := range matches {
			st, err := os.Stat(p)
			if err != nil {
				return nil, err
			}
			if !st.IsDir() {
				add(p)
				continue
			}
			var found []string
			err = filepath.WalkDir(datasetData(p), func(path string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if !d.IsDir() && hasDataSuffix(path) {
					found = append(found, path)
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			if len(found) == 0 {
				return nil, fmt.Errorf("%s: directory holds no .jsonl, .jsonl.gz, .jsonl.zst, .parquet or .warc[.gz] file", p)
			}
			sort.Strings(found)
			for _, f := range found {
				add(f)
			}
		}
	}
	if len(paths) == 0 {
		return nil, ErrNoInput
	}
	files := make([]File, 0, len(paths))
	for _, p := range paths {
		f, err := Stat(p)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

func hasDataSuffix(p string) bool {
	for _, s := range dataSuffixes {
		if strings.HasSuffix(p, s) {
			return true
		}
	}
	return false
}

// Stat describes the file at path, detecting its format from its first
// bytes (gzip, zstd and Parquet magic numbers) and falling back to its name.
func Stat(path string) (File, error) {
	f, err := os.Open(path)
	if err != nil {
		return File{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return File{}, err
	}
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	file := File{Path: path, Size: st.Size()}
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		file.Compression = Gzip
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		file.Compression = Zstd
	case bytes.Equal(head, []byte("PAR1")):
		file.Format = Parquet
	case strings.HasSuffix(path, ".parquet"):
		file.Format = Parquet // too short to hold the magic; the reader reports it
	case strings.HasSuffix(path, ".gz"):
		file.Compression = Gzip
	case strings.HasSuffix(path, ".zst"):
		file.Compression = Zstd
	}
	if file.Format == JSONL && isWARC(path, head, file.Compression) {
		file.Format = WARC
	}
	return file, nil
}

// Stream is an open input: decompressed bytes from Read, with the raw bytes
// consumed so far counted and hashed.
type Stream struct {
	io.Reader
	file    *os.File
	counter *countingReader
	dec     io.Closer
}

// Open opens f for reading its decompressed bytes.
func Open(f File) (*Stream, error) {
	fh, err := os.Open(f.Path)
	if err != nil {
		return nil, err
	}
	cr := &countingReader{r: fh, h: xxhash.New()}
	s := &Stream{file: fh, counter: cr}
	buffered := bufio.NewReaderSize(cr, 256<<10)
	switch f.Compression {
	case Gzip:
		zr, err := gzip.NewReader(buffered)
		if err != nil {
			fh.Close()
			return nil, fmt.Errorf("%s: gzip: %w", f.Path, err)
		}
		s.Reader, s.dec = zr, zr
	case Zstd:
		zr, err := zstd.NewReader(buffered, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(1<<30))
		if err != nil {
			fh.Close()
			return nil, fmt.Errorf("%s: zstd: %w", f.Path, err)
		}
		s.Reader, s.dec = zr, zstdCloser{zr}
	default:
		s.Reader = buffered
	}
	return s, nil
}

// RawBytes returns how many bytes of the file have been read so far.
func (s *Stream) RawBytes() int64 { return s.counter.n }

// Hash returns the xxhash64 of the file's bytes, once the stream has been
// drained with Drain.
func (s *Stream) Hash() uint64 { return s.counter.h.Sum64() }

// Drain reads the rest of the raw file into the hash, so that Hash covers
// every byte even when decompression stopped early.
func (s *Stream) Drain() error {
	_, err := io.Copy(io.Discard, s.counter)
	return err
}

// Close closes the decompressor and the file.
func (s *Stream) Close() error {
	if s.dec != nil {
		s.dec.Close()
	}
	return s.file.Close()
}

type countingReader struct {
	r io.Reader
	h *xxhash.Digest
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	c.h.Write(p[:n])
	return n, err
}

type zstdCloser struct{ d *zstd.Decoder }

func (z zstdCloser) Close() error { z.d.Close(); return nil }

// HashFile returns the xxhash64 of the whole file at path.
func HashFile(path string) (uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	h := xxhash.New()
	if _, err := io.Copy(h, f); err != nil {
		return 0, err
	}
	return h.Sum64(), nil
}

// datasetData returns the data/ folder of a sluice dataset directory (one
// with a manifest.json and a data/ folder), whose removed/ rows and
// quarantine are not input, and dir itself for any other directory.
func datasetData(dir string) string {
	data := filepath.Join(dir, "data")
	if st, err := os.Stat(data); err == nil && st.IsDir() {
		if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err == nil {
			return data
		}
	}
	return dir
}
