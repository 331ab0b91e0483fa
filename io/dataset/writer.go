package dataset

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/jsonl"
	"github.com/sluice-data/sluice/io/pqio"
)

// Options configure a Writer.
type Options struct {
	MaxFileRows  int64        `json:"max_file_rows"`  // directory targets: roll to a new part file after this many rows
	MaxFileBytes int64        `json:"max_file_bytes"` // directory targets: roll after this many bytes
	Parquet      pqio.Options `json:"parquet"`
}

// Piece is one encoded batch, ready to be appended to an output file.
type Piece struct {
	Data []byte
	Rows int64
}

// OutputFile describes one finished output file.
type OutputFile struct {
	Path  string `json:"path"`
	Rows  int64  `json:"rows"`
	Bytes int64  `json:"bytes"`
	Hash  string `json:"xxhash64"`
}

// Writer writes the kept rows of a target. Encode may be called from many
// goroutines at once; Write, Close and Abort from one, in batch order.
type Writer struct {
	target  Target
	opts    Options
	schema  *arrow.Schema
	tmpl    []byte // empty Parquet file with the schema, for stitching
	enc     *jsonl.Encoder
	zenc    *zstd.Encoder
	cur     *openFile
	seq     int
	outputs []OutputFile
	buffers sync.Pool // piece buffers, reused once written
}

type openFile struct {
	af   *AtomicFile
	st   *pqio.Stitcher // Parquet only
	rows int64
	dir  bool
}

// NewWriter prepares to write batches of schema s to t; t.Prepare must
// have been called.
func NewWriter(mem memory.Allocator, t Target, s *arrow.Schema, opts Options) (*Writer, error) {
	w := &Writer{target: t, opts: opts, schema: s}
	if t.Kind == Discard {
		return w, nil
	}
	if t.Kind == JSONLFile || t.Kind == Stdout {
		w.enc = jsonl.NewEncoder(s)
		if t.Compression == input.Zstd {
			z, err := zstd.NewWriter(nil)
			if err != nil {
				return nil, err
			}
			w.zenc = z
		}
		return w, nil
	}
	tmpl, err := pqio.EncodeEmpty(mem, s, opts.Parquet)
	if err != nil {
		return nil, err
	}
	w.tmpl = tmpl
	return w, nil
}

// Encode turns rec into a piece. It is safe for concurrent use and does
// not keep rec.
func (w *Writer) Encode(mem memory.Allocator, rec arrow.RecordBatch) (Piece, error) {
	p := Piece{Rows: rec.NumRows()}
	if w.target.Kind == Discard {
		return p, nil
	}
	buf, _ := w.buffers.Get().([]byte)
	if w.tmpl != nil {
		data, err := pqio.EncodePiece(mem, rec, w.opts.Parquet, buf)
		p.Data = data
		return p, err
	}
	text := w.enc.AppendBatch(nil, rec)
	switch w.target.Compression {
	case input.Gzip: // concatenated gzip members form one valid gzip stream
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(text)
		if err := zw.Close(); err != nil {
			return p, err
		}
		p.Data = buf.Bytes()
	case input.Zstd: // concatenated frames form one valid zstd stream
		p.Data = w.zenc.EncodeAll(text, buf[:0])
	default:
		p.Data = text
	}
	return p, nil
}

// Write appends p to the current output file, rolling to a new part file
// first when the directory limits say so.
func (w *Writer) Write(p Piece) error {
	if w.target.Kind == Discard {
		return nil
	}
	if w.cur != nil && w.cur.dir && w.cur.rows > 0 &&
		((w.opts.MaxFileRows > 0 && w.cur.rows+p.Rows > w.opts.MaxFileRows) ||
			(w.opts.MaxFileBytes > 0 && w.cur.af.n+int64(len(p.Data)) > w.opts.MaxFileBytes)) {
		if err := w.closeFile(); err != nil {
			return err
		}
	}
	if w.cur == nil {
		if err := w.openFile(); err != nil {
			return err
		}
	}
	w.cur.rows += p.Rows
	var err error
	if w.cur.st != nil {
		err = w.cur.st.Add(p.Data)
	} else {
		_, err = w.cur.af.Write(p.Data)
	}
	w.buffers.Put(p.Data[:0])
	return err
}

func (w *Writer) openFile() error {
	path := w.target.Path
	dir := w.target.Kind == Directory
	if dir {
		path = filepath.Join(w.target.Parts(), fmt.Sprintf("part-%05d.parquet", w.seq))
		w.seq++
	}
	var af *AtomicFile
	if w.target.Kind == Stdout {
		af = streamFile(w.target.Stream)
	} else {
		var err error
		if af, err = CreateAtomic(path); err != nil {
			return err
		}
	}
	f := &openFile{af: af, dir: dir}
	var err error
	if w.tmpl != nil {
		if f.st, err = pqio.NewStitcher(af, w.tmpl); err != nil {
			af.Abort()
			return err
		}
	}
	w.cur = f
	return nil
}

func (w *Writer) closeFile() error {
	f := w.cur
	w.cur = nil
	if f.st != nil {
		if err := f.st.Close(); err != nil {
			f.af.Abort()
			return err
		}
	}
	if err := f.af.Commit(); err != nil {
		return err
	}
	w.outputs = append(w.outputs, OutputFile{Path: f.af.path, Rows: f.rows, Bytes: f.af.Size(), Hash: fmt.Sprintf("%016x", f.af.Sum64())})
	if f.dir && w.target.upload != nil {
		w.target.upload(f.af.path) // an object-store output uploads it while the next is written
	}
	return nil
}

// Close finishes the last file and returns every file written. A target
// that received no rows still gets one (empty) file, so readers find the
// schema.
func (w *Writer) Close() ([]OutputFile, error) {
	if w.target.Kind == Discard {
		return nil, nil
	}
	if w.cur == nil && len(w.outputs) == 0 {
		if err := w.openFile(); err != nil {
			return nil, err
		}
	}
	if w.cur != nil {
		if err := w.closeFile(); err != nil {
			return nil, err
		}
	}
	if w.zenc != nil {
		w.zenc.Close()
	}
	return w.outputs, nil
}

// Abort removes the file being written.
func (w *Writer) Abort() {
	if w.cur != nil {
		w.cur.af.Abort()
		w.cur = nil
	}
}

// AtomicFile is written under a temporary name in the same directory and
// renamed into place by Commit; or, made by streamFile, written to a
// stream (standard output) that Commit flushes. It counts and hashes
// (xxhash64) what is written to it.
type AtomicFile struct {
	path string
	f    *os.File
	bw   *bufio.Writer
	h    *xxhash.Digest
	n    int64
}

// CreateAtomic starts the file at path (its directory created if
// missing); Abort removes what was written.
func CreateAtomic(path string) (*AtomicFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	return &AtomicFile{path: path, f: f, bw: bufio.NewWriterSize(f, 1<<20), h: xxhash.New()}, nil
}

// streamFile writes to w: nothing to rename or remove.
func streamFile(w io.Writer) *AtomicFile {
	return &AtomicFile{path: "-", bw: bufio.NewWriterSize(w, 1<<20), h: xxhash.New()}
}

func (a *AtomicFile) Write(p []byte) (int, error) {
	n, err := a.bw.Write(p)
	a.h.Write(p[:n])
	a.n += int64(n)
	return n, err
}

// Size returns the number of bytes written so far.
func (a *AtomicFile) Size() int64 { return a.n }

// Sum64 returns the xxhash64 of the bytes written so far.
func (a *AtomicFile) Sum64() uint64 { return a.h.Sum64() }

// Commit flushes the file and renames it into place (removes it on error).
func (a *AtomicFile) Commit() error {
	if err := a.bw.Flush(); err != nil {
		a.Abort()
		return err
	}
	if a.f == nil {
		return nil
	}
	if err := a.f.Chmod(0o644); err != nil {
		a.Abort()
		return err
	}
	if err := a.f.Close(); err != nil {
		os.Remove(a.f.Name())
		return err
	}
	return os.Rename(a.f.Name(), a.path)
}

// Abort removes the unfinished file.
func (a *AtomicFile) Abort() {
	if a.f == nil {
		a.bw.Flush() // what reached a stream cannot be taken back
		return
	}
	a.f.Close()
	os.Remove(a.f.Name())
}
