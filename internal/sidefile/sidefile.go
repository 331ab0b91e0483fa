// Package sidefile reads the files a command loads besides its inputs —
// pipeline and mixture files, schemas, tokenizers, fastText models, block
// lists, evaluation sets, counts — with one rule for all: a side file is a
// regular file no larger than the limit of its kind. A FIFO, a device or
// a directory is refused before it is opened (reading one would block or
// never end), and so is a file over its limit; a file that grows past the
// limit while it is read fails when it does. Each refusal is an *Error
// naming the file, its size and the limit.
package sidefile

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/sluice-data/sluice/internal/limit"
	"github.com/sluice-data/sluice/io/input"
)

// Kind is a kind of side file and the most bytes one may hold.
type Kind struct {
	Name string
	Max  int64
}

// The kinds of side file and their limits: far above any real file of
// the kind, far below what would exhaust memory.
var (
	Pipeline  = Kind{"pipeline file", 16 << 20}
	Mixture   = Kind{"mixture file", 16 << 20}
	Schema    = Kind{"schema file", 16 << 20}
	Counts    = Kind{"counts file", 256 << 20}
	Tokenizer = Kind{"tokenizer file", 512 << 20}
	BlockList = Kind{"block list", 1 << 30}
	EvalSet   = Kind{"evaluation set", 4 << 30}
	TestSet   = Kind{"memorization test file", 4 << 30}
	Model     = Kind{"model", 16 << 30}
)

// Error is a side file refused: too large, or not a regular file.
type Error struct {
	Path string
	Kind Kind
	Size int64  // bytes found, when it is too large
	What string // what it is, when it is not a regular file
}

func (e *Error) Error() string {
	if e.What != "" {
		return fmt.Sprintf("%s %s is %s, not a regular file; give a file", e.Kind.Name, e.Path, e.What)
	}
	return fmt.Sprintf("%s %s holds %s or more; the limit is %s", e.Kind.Name, e.Path, limit.Bytes(e.Size), limit.Bytes(e.Kind.Max))
}

// Check refuses a path that is not a regular file or is larger than the
// kind's limit, and returns its size.
func Check(path string, k Kind) (int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	if what := notRegular(st.Mode()); what != "" {
		return 0, &Error{Path: path, Kind: k, What: what}
	}
	if st.Size() > k.Max {
		return 0, &Error{Path: path, Kind: k, Size: st.Size()}
	}
	return st.Size(), nil
}

// Input refuses a side file read through the input layer (so that it may
// be compressed or a URL) that is a stream — standard input or a FIFO,
// which cannot be checked before it is read — or whose size is over the
// kind's limit.
func Input(f input.File, k Kind) error {
	switch {
	case f.IsStream():
		return &Error{Path: f.Label(), Kind: k, What: "a stream"}
	case f.Size > k.Max:
		return &Error{Path: f.Label(), Kind: k, Size: f.Size}
	}
	return nil
}

// notRegular names what a file that is not a regular file is.
func notRegular(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return ""
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&(fs.ModeDevice|fs.ModeCharDevice) != 0:
		return "a device"
	}
	return "not a file"
}

// File is an open side file; reading past the kind's limit fails.
type File struct {
	f    *os.File
	r    io.Reader
	path string
	kind Kind
	size int64
	read int64
}

// Open opens a side file after Check.
func Open(path string, k Kind) (*File, error) {
	size, err := Check(path, k)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &File{f: f, r: io.LimitReader(f, k.Max+1), path: path, kind: k, size: size}, nil
}

// Read reads from the file; a file that grew past its limit since it
// was opened is an *Error.
func (f *File) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	f.read += int64(n)
	if f.read > f.kind.Max {
		return n, &Error{Path: f.path, Kind: f.kind, Size: f.read}
	}
	return n, err
}

// Size is the file's size when it was opened.
func (f *File) Size() int64 { return f.size }

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// ReadFile reads a whole side file of kind k.
func ReadFile(path string, k Kind) ([]byte, error) {
	f, err := Open(path, k)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(f); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
