// Package input finds a command's input files (paths, globs, directories),
// tells their format from name and magic bytes, and opens them as streams of
// decompressed bytes while hashing and counting the raw bytes read.
package input

import (
	"bufio"
	"bytes"
	"context"
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
	"github.com/sluice-data/sluice/io/blob"
	"github.com/sluice-data/sluice/io/layout"
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
	// Span, when set, is the part of an uncompressed JSONL file to read:
	// the lines that start in a byte range (sharded runs cut large files
	// at line boundaries so); zero for the whole file.
	Span Span
	// pipe is set for a stream input (standard input, a pipe): the
	// stream Stat peeked at, which Open reads from its start.
	pipe *pipe
}

// Span is the part [Lo, Hi) of a file's bytes that a split of it reads,
// from a line boundary to a line boundary; FirstLine is the number of its
// first line in the file (from 1).
type Span struct {
	Lo, Hi    int64
	FirstLine int64
}

// IsZero reports whether s is the whole file.
func (s Span) IsZero() bool { return s == Span{} }

// IsStream reports whether f is standard input, a pipe or a FIFO: read
// once, from start to end, with no size known in advance.
func (f File) IsStream() bool { return f.pipe != nil }

// Label returns the name the file goes by in manifests and quarantines.
func (f File) Label() string {
	if f.Name != "" {
		return f.Name
	}
	return f.Path
}

// ErrNoInput is returned when the arguments name no file.
var ErrNoInput = errors.New("no input files")

// ErrReadOnce is the cause of the error of a stream input (standard input,
// a pipe, a FIFO) given to a command that reads its input more than once:
// a stream can be read once.
var ErrReadOnce = errors.New("a stream can be read only once")

// RefuseStreams returns an error wrapping ErrReadOnce for the first stream
// among files, which what (a stage or an option, say) would read twice.
func RefuseStreams(files []File, what string) error {
	for _, f := range files {
		if f.IsStream() {
			return fmt.Errorf("%s: %s reads the input twice, and %w (standard input, a pipe or a FIFO); write it to a file first",
				f.Label(), what, ErrReadOnce)
		}
	}
	return nil
}

// Stdin is the argument that names standard input.
const Stdin = "-"

// scanSuffixes are the names a directory scan takes as input; a file named
// on the command line is read whatever its name.
var scanSuffixes = []string{".jsonl", ".jsonl.gz", ".jsonl.zst", ".ndjson", ".ndjson.gz", ".ndjson.zst",
	".parquet", ".warc", ".warc.gz", ".wet", ".wet.gz"}

// ScanOptions tune how Scan treats what it finds.
type ScanOptions struct {
	// AllowIncomplete reads a dataset directory that has part files but no
	// manifest (a run killed before it finished) instead of refusing it.
	AllowIncomplete bool
}

// Set is what a command's input arguments name.
type Set struct {
	Files []File
	// Dirs are the directories scanned for input, cleaned: an output
	// inside one of them would be read back by the next run.
	Dirs []string
	// Links are the symbolic links to folders that the scan of a directory
	// followed, in the order found; they are among Dirs too.
	Links []string
}

// Expand turns command arguments into a sorted, de-duplicated list of
// files; see Scan.
func Expand(args []string) ([]File, error) {
	s, err := Scan(args, ScanOptions{})
	return s.Files, err
}

// Scan turns command arguments into input files. An argument is a file, a
// glob, a directory, or "-" for standard input; an argument that names an
// existing file or folder is that file or folder, even when its name has
// glob characters in it ("[a].jsonl"). A directory is searched
// recursively for files with a data suffix (.jsonl, .parquet, .warc ...,
// compressed or not), skipping hidden files and folders and sluice's side
// outputs; symbolic links to folders are followed (Set.Links), and a link
// to a folder that holds it (a loop) is an error. Of a sluice dataset only
// the data/ folder is read, and a
// dataset without its manifest is refused unless opts.AllowIncomplete.
// The same file named twice (by two paths, say) is read once. An
// object-store URL (s3://, gs://, az://) names an object, a glob of
// objects, or a prefix read like a directory (see scanURL); URLs of other
// schemes are refused.
func Scan(args []string, opts ScanOptions) (Set, error) {
	var set Set
	seen := map[string]bool{}
	var paths []string
	add := func(p string) {
		key := p
		if p != Stdin {
			key = Canonical(p)
		}
		if !seen[key] {
			seen[key] = true
			paths = append(paths, p)
		}
	}
	for _, arg := range args {
		if blob.IsURL(arg) {
			if err := scanURL(arg, opts, add, &set); err != nil {
				return set, err
			}
			continue
		}
		if err := CheckLocal(arg); err != nil {
			return set, err
		}
		if arg == Stdin {
			add(Stdin)
			continue
		}
		matches := []string{arg}
		if _, err := os.Lstat(arg); err != nil && strings.ContainsAny(arg, "*?[") {
			m, err := filepath.Glob(arg)
			if err != nil {
				return set, fmt.Errorf("%s: bad pattern: %w", arg, err)
			}
			if len(m) == 0 {
				return set, fmt.Errorf("%s: no file matches", arg)
			}
			matches = m
		}
		for _, p := range matches {
			st, err := os.Stat(p)
			if err != nil {
				return set, err
			}
			if !st.IsDir() {
				add(p)
				continue
			}
			set.Dirs = append(set.Dirs, filepath.Clean(p))
			ds := dirScan{opts: opts, open: map[string]bool{}}
			if err := ds.scan(p, true); err != nil {
				return set, err
			}
			if len(ds.found) == 0 {
				return set, fmt.Errorf("%s: directory holds no .jsonl, .jsonl.gz, .jsonl.zst, .parquet or .warc[.gz] file", p)
			}
			set.Links = append(set.Links, ds.links...)
			set.Dirs = append(set.Dirs, ds.links...) // scanned too: an output there would be read back
			sort.Strings(ds.found)
			for _, f := range ds.found {
				add(f)
			}
		}
	}
	if len(paths) == 0 {
		return set, ErrNoInput
	}
	set.Files = make([]File, 0, len(paths))
	for _, p := range paths {
		f, err := Stat(p)
		if err != nil {
			return set, err
		}
		set.Files = append(set.Files, f)
	}
	return set, nil
}

// dirScan is the search of one directory argument for input files.
type dirScan struct {
	opts  ScanOptions
	found []string
	links []string        // the links to folders followed
	open  map[string]bool // the folders being searched, resolved: a link to one is a loop
}

// scan appends the input files under dir to s.found. A sluice dataset
// gives its data/ folder only.
func (s *dirScan) scan(dir string, top bool) error {
	given := Canonical(dir)
	s.open[given] = true
	defer delete(s.open, given)
	switch layout.DirKind(dir) {
	case layout.Dataset:
		dir = filepath.Join(dir, layout.DataDir)
	case layout.Incomplete:
		if !s.opts.AllowIncomplete {
			return fmt.Errorf("%s: an incomplete sluice dataset (part files but no %s: a run that did not finish?); "+
				"read it anyway with --allow-incomplete", dir, layout.ManifestName)
		}
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) && !top {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		if layout.IsHidden(name) {
			continue
		}
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			if st, err := os.Stat(path); err == nil && st.IsDir() {
				if err := s.follow(path); err != nil {
					return err
				}
				continue
			}
		}
		if isDir {
			if err := s.scan(path, false); err != nil {
				return err
			}
			continue
		}
		if hasScanSuffix(name) && !layout.IsSideFile(name) {
			s.found = append(s.found, path)
		}
	}
	return nil
}

// follow searches the folder the symbolic link at path points to, unless
// it is one of the folders being searched: following it would never end.
func (s *dirScan) follow(path string) error {
	target := Canonical(path)
	if s.open[target] {
		return fmt.Errorf("%s: a symbolic link to %s, which holds the link: a loop; remove the link or name the folders to read", path, target)
	}
	s.links = append(s.links, path)
	return s.scan(path, false)
}

func hasScanSuffix(p string) bool {
	for _, s := range scanSuffixes {
		if strings.HasSuffix(p, s) {
			return true
		}
	}
	return false
}

// Canonical returns the absolute path of p with symbolic links resolved,
// for the part of it that exists, so that two names of one file (or of one
// path still to be created) compare equal.
func Canonical(p string) string {
	if blob.IsURL(p) {
		return blob.Clean(p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	var rest []string
	for d := abs; ; d = filepath.Dir(d) {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		if filepath.Dir(d) == d {
			return abs
		}
		rest = append([]string{filepath.Base(d)}, rest...)
	}
}

// CheckLocal refuses a URL (of an object store, a web server ...) where
// only a local path will do.
func CheckLocal(path string) error {
	if blob.IsAnyURL(path) {
		scheme, _, _ := strings.Cut(path, "://")
		if blob.IsURL(path) {
			return fmt.Errorf("%s: only a local path can be read here, not an %s:// URL; copy it to a local path first", path, scheme)
		}
		return fmt.Errorf("%s: %s:// URLs are not supported (sluice reads local paths and %s:// URLs); copy the data to a local path first", path, scheme, strings.Join(blob.Schemes, "://, "))
	}
	return nil
}

// CheckPath refuses a URL that is neither a local path nor an object
// store's (s3://, gs://, az://).
func CheckPath(path string) error {
	if blob.IsURL(path) {
		_, _, err := blob.Parse(path)
		return err
	}
	return CheckLocal(path)
}

// headBytes is how much of a file Stat reads to tell its format.
const headBytes = 64 << 10

// Stat describes the file at path ("-" for standard input), telling its
// format by content: gzip, zstd and Parquet magic numbers, "WARC/" (after
// decompression), else JSONL. The name decides only when the content is
// too short or damaged to tell; content that contradicts a .parquet or
// .warc name without being JSON is an error, not JSONL. Standard input, a
// pipe or a FIFO is peeked at without consuming it: Open then reads it
// from its first byte, once.
func Stat(path string) (File, error) {
	if blob.IsURL(path) {
		return statURL(path)
	}
	if err := CheckLocal(path); err != nil {
		return File{}, err
	}
	var fh *os.File
	if path == Stdin {
		fh = os.Stdin
	} else {
		var err error
		if fh, err = os.Open(path); err != nil {
			return File{}, err
		}
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return File{}, err
	}
	if st.IsDir() {
		fh.Close()
		return File{}, fmt.Errorf("%s: is a directory", path)
	}
	file := File{Path: path}
	var head []byte
	if st.Mode().IsRegular() && path != Stdin {
		defer fh.Close()
		file.Size = st.Size()
		head = make([]byte, headBytes)
		n, _ := io.ReadFull(fh, head)
		head = head[:n]
	} else {
		// A stream: keep it open and peek, so no byte is lost.
		p := &pipe{f: fh, r: bufio.NewReaderSize(fh, 1<<20)}
		head, _ = p.r.Peek(headBytes)
		file.pipe = p
		if path == Stdin {
			file.Name = "stdin"
		}
	}
	if err := file.detect(head); err != nil {
		return File{}, err
	}
	if file.pipe != nil && file.Format == Parquet {
		return File{}, fmt.Errorf("%s: Parquet cannot be read from a pipe (it is read from its end); write it to a file first", file.Label())
	}
	return file, nil
}

// detect sets the format and compression of f from its first bytes.
func (f *File) detect(head []byte) error {
	name := f.Path
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		f.Compression = Gzip
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		f.Compression = Zstd
	case len(head) < 4 && strings.HasSuffix(name, ".gz"):
		f.Compression = Gzip
	case len(head) < 4 && strings.HasSuffix(name, ".zst"):
		f.Compression = Zstd
	}
	inner, told := head, true
	if f.Compression != None {
		inner, told = decompressHead(head, f.Compression)
	}
	byName := formatByName(name)
	switch {
	case told && bytes.HasPrefix(inner, []byte("PAR1")) && f.Compression == None:
		f.Format = Parquet
	case told && bytes.HasPrefix(inner, []byte("WARC/")):
		f.Format = WARC
	case !told || len(inner) < 5:
		f.Format = byName // too short or damaged to tell: the name decides, the reader reports
	case byName != JSONL && !looksLikeJSON(inner):
		return fmt.Errorf("%s: named like %s but is not (it starts with %q)", f.Label(), byName, printable(inner))
	default:
		f.Format = JSONL
	}
	return nil
}

// formatByName is the format a file name claims.
func formatByName(name string) Format {
	base := strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".zst")
	switch {
	case strings.HasSuffix(base, ".parquet"):
		return Parquet
	case strings.HasSuffix(base, ".warc"), strings.HasSuffix(base, ".wet"):
		return WARC
	}
	return JSONL
}

// looksLikeJSON reports whether text starts, after a byte order mark and
// white space, like a JSON object.
func looksLikeJSON(text []byte) bool {
	text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
	text = bytes.TrimLeft(text, " \t\r\n")
	return len(text) == 0 || text[0] == '{'
}

// printable returns the first bytes of b, for an error message (which
// quotes them).
func printable(b []byte) string {
	if len(b) > 16 {
		b = b[:16]
	}
	return string(b)
}

// decompressHead returns the first decompressed bytes of a compressed
// head; told is false when nothing could be decompressed (damage, or a
// first block longer than the head).
func decompressHead(head []byte, c Compression) ([]byte, bool) {
	var r io.Reader
	switch c {
	case Gzip:
		zr, err := gzip.NewReader(bytes.NewReader(head))
		if err != nil {
			return nil, false
		}
		r = zr
	case Zstd:
		zr, err := zstd.NewReader(bytes.NewReader(head), zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, false
		}
		defer zr.Close()
		r = zr
	}
	buf := make([]byte, 512)
	n, _ := io.ReadFull(r, buf)
	return buf[:n], n > 0
}

// pipe is a stream input (standard input, a pipe, a FIFO) that Stat
// opened and peeked at; Open takes it over.
type pipe struct {
	f     *os.File
	r     *bufio.Reader
	taken bool
}

// Stream is an open input: decompressed bytes from Read, with the raw bytes
// consumed so far counted and hashed.
type Stream struct {
	io.Reader
	file    io.Closer
	counter *HashingReader
	dec     io.Closer
}

// Open opens f for reading its decompressed bytes. A stream input (see
// Stat) can be opened once. A local file is checked at the end of its
// reading: when fewer or more bytes were read than it had when it was
// opened, or its size or modification time changed since, the read fails
// with an error wrapping ErrChanged instead of ending.
func Open(f File) (*Stream, error) {
	var raw io.Reader
	var fh io.Closer
	if blob.IsURL(f.Path) {
		rc, err := openURL(f)
		if err != nil {
			return nil, err
		}
		fh, raw = rc, rc
	} else if f.pipe != nil {
		if f.pipe.taken {
			return nil, fmt.Errorf("%s: %w", f.Label(), ErrReadOnce)
		}
		f.pipe.taken = true
		fh, raw = f.pipe.f, f.pipe.r
	} else {
		lf, err := os.Open(f.Path)
		if err != nil {
			return nil, err
		}
		fh, raw = lf, lf
		if !f.Span.IsZero() {
			if f.Compression != None || f.Span.Lo < 0 || f.Span.Hi < f.Span.Lo || f.Span.FirstLine < 1 {
				fh.Close()
				return nil, fmt.Errorf("%s: cannot read bytes %d to %d (line %d on) of a %s file", f.Label(), f.Span.Lo, f.Span.Hi, f.Span.FirstLine, f.Compression)
			}
			if _, err := lf.Seek(f.Span.Lo, io.SeekStart); err != nil {
				fh.Close()
				return nil, err
			}
			raw = io.LimitReader(lf, f.Span.Hi-f.Span.Lo)
		}
		st, err := lf.Stat()
		if err != nil {
			fh.Close()
			return nil, err
		}
		g := &guard{r: raw, fh: lf, file: f, stamp: stampOf(st), want: st.Size()}
		if !f.Span.IsZero() {
			g.want = f.Span.Hi - f.Span.Lo
		}
		raw = g
	}
	cr := NewHashingReader(raw)
	s := &Stream{file: fh, counter: cr}
	buffered := bufio.NewReaderSize(cr, 256<<10)
	switch f.Compression {
	case Gzip:
		zr, err := gzip.NewReader(buffered)
		if err != nil {
			fh.Close()
			return nil, fmt.Errorf("%s: gzip: %w", f.Label(), err)
		}
		s.Reader, s.dec = zr, zr
	case Zstd:
		zr, err := zstd.NewReader(buffered, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(1<<30))
		if err != nil {
			fh.Close()
			return nil, fmt.Errorf("%s: zstd: %w", f.Label(), err)
		}
		s.Reader, s.dec = zr, zstdCloser{zr}
	default:
		s.Reader = buffered
	}
	return s, nil
}

// RawBytes returns how many bytes of the file have been read so far.
func (s *Stream) RawBytes() int64 { return s.counter.Bytes() }

// Hash returns the xxhash64 of the file's bytes (of its span, for a split),
// once the stream has been drained with Drain.
func (s *Stream) Hash() uint64 { return s.counter.Sum64() }

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

// HashingReader counts and hashes (xxhash64) the bytes read through it.
type HashingReader struct {
	r io.Reader
	h *xxhash.Digest
	n int64
}

// NewHashingReader reads r, counting and hashing its bytes.
func NewHashingReader(r io.Reader) *HashingReader {
	return &HashingReader{r: r, h: xxhash.New()}
}

func (c *HashingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	c.h.Write(p[:n])
	return n, err
}

// Bytes returns the number of bytes read so far.
func (c *HashingReader) Bytes() int64 { return c.n }

// Sum64 returns the xxhash64 of the bytes read so far.
func (c *HashingReader) Sum64() uint64 { return c.h.Sum64() }

type zstdCloser struct{ d *zstd.Decoder }

func (z zstdCloser) Close() error { z.d.Close(); return nil }

// HashFile returns the xxhash64 of the whole file at path.
func HashFile(path string) (uint64, error) { return HashHead(path, -1) }

// HashHead returns the xxhash64 of the first n bytes of the file or
// object at path (all of it for n < 0): what a run that stopped reading
// early (--limit) recorded of an input.
func HashHead(path string, n int64) (uint64, error) {
	var f io.ReadCloser
	var err error
	if blob.IsURL(path) {
		f, err = blob.NewReader(context.Background(), path, 0, n)
	} else {
		f, err = os.Open(path)
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var r io.Reader = f
	if n >= 0 {
		r = io.LimitReader(f, n)
	}
	h := xxhash.New()
	if _, err := io.Copy(h, r); err != nil {
		return 0, err
	}
	return h.Sum64(), nil
}
