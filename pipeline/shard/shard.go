// Package shard is what the sharded phases of a global stage work with
// when a pipeline runs as array tasks (see pipeline.Sharded): the
// workspace that names each task's folder, and Parquet intermediates —
// written whole, row by row, or split by hash range, and read back in
// order or for one shard. Every intermediate is written under a temporary
// name and renamed into place when complete, so a killed task never leaves
// a file that looks whole.
package shard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/pqio"
)

// Workspace is where the phases of one global stage keep their files. A
// task writes only in its own folder, Dir(its phase, its index); it reads
// the folders of the stage's earlier phases.
type Workspace interface {
	Context() context.Context
	Mem() memory.Allocator
	// Shards is the number of shards the input is split into.
	Shards() int
	// Tasks is the number of tasks of the stage's phase named phase.
	Tasks(phase string) int
	// Dir is the folder of task i of the stage's phase named phase.
	Dir(phase string, i int) string
}

// options encode intermediates: uncompressed (they are read once or twice,
// soon), no dictionaries for mostly distinct values.
var options = pqio.Options{Codec: pqio.Uncompressed, NoDictionary: []string{"id", "sig", "bands", "feature", "kept_id"}}

// Writer writes one Parquet intermediate batch by batch, under a temporary
// name until Commit.
type Writer struct {
	path string
	mem  memory.Allocator
	f    *os.File
	st   *pqio.Stitcher
	rows int64
}

// Create starts the intermediate at path, of schema s.
func Create(mem memory.Allocator, path string, s *arrow.Schema) (*Writer, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	tmpl, err := pqio.EncodeEmpty(mem, s, options)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	st, err := pqio.NewStitcher(f, tmpl)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &Writer{path: path, mem: mem, f: f, st: st}, nil
}

// Encode turns rec into a piece for Add; it may run on any goroutine.
func (w *Writer) Encode(rec arrow.RecordBatch) ([]byte, error) {
	return pqio.EncodePiece(w.mem, rec, options, nil)
}

// Add appends an encoded piece of rows rows; calls are in file order.
func (w *Writer) Add(piece []byte, rows int) error {
	if rows == 0 {
		return nil
	}
	w.rows += int64(rows)
	return w.st.Add(piece)
}

// Write encodes and appends rec.
func (w *Writer) Write(rec arrow.RecordBatch) error {
	piece, err := w.Encode(rec)
	if err != nil {
		return err
	}
	return w.Add(piece, int(rec.NumRows()))
}

// Commit finishes the file and renames it into place.
func (w *Writer) Commit() error {
	if err := w.st.Close(); err != nil {
		w.Abort()
		return err
	}
	if err := w.f.Close(); err != nil {
		os.Remove(w.f.Name())
		return err
	}
	return os.Rename(w.f.Name(), w.path)
}

// Abort removes the unfinished file.
func (w *Writer) Abort() {
	w.f.Close()
	os.Remove(w.f.Name())
}

// WriteOne writes an intermediate of one batch.
func WriteOne(mem memory.Allocator, path string, s *arrow.Schema, rec arrow.RecordBatch) error {
	w, err := Create(mem, path, s)
	if err != nil {
		return err
	}
	if err := w.Write(rec); err != nil {
		w.Abort()
		return err
	}
	return w.Commit()
}

// Read calls fn with every batch of the Parquet file at path, in order,
// projected to columns when set; fn must not keep the batch.
func Read(mem memory.Allocator, path string, columns []string, fn func(rec arrow.RecordBatch) error) error {
	r, err := pqio.Open(mem, path, 64<<10)
	if err != nil {
		return err
	}
	defer r.Close()
	if columns != nil {
		if err := r.Project(columns); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	for {
		rec, err := r.Next(context.Background())
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if rec == nil {
			return nil
		}
		err = fn(rec)
		rec.Release()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
}

// Rows returns the number of rows of the Parquet file at path.
func Rows(mem memory.Allocator, path string) (int64, error) {
	r, err := pqio.Open(mem, path, 1)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	return r.NumRows(), nil
}

// WriteByRange writes one intermediate of schema s per hash range: fill
// appends each row to the builder of its range, then builder r goes to
// path(r).
func WriteByRange(mem memory.Allocator, s *arrow.Schema, parts int, path func(part int) string, fill func(ranges []*array.RecordBuilder) error) error {
	builders := make([]*array.RecordBuilder, parts)
	for r := range builders {
		builders[r] = array.NewRecordBuilder(mem, s)
		defer builders[r].Release()
	}
	if err := fill(builders); err != nil {
		return err
	}
	for r, b := range builders {
		rec := b.NewRecordBatch()
		err := WriteOne(mem, path(r), s, rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// RowWriter builds an intermediate row by row and writes it in batches.
type RowWriter struct {
	w *Writer
	b *array.RecordBuilder
}

// NewRowWriter starts the intermediate at path, of schema s.
func NewRowWriter(mem memory.Allocator, path string, s *arrow.Schema) (*RowWriter, error) {
	w, err := Create(mem, path, s)
	if err != nil {
		return nil, err
	}
	return &RowWriter{w: w, b: array.NewRecordBuilder(mem, s)}, nil
}

// Field returns the builder of column i of the row being added.
func (rw *RowWriter) Field(i int) array.Builder { return rw.b.Field(i) }

// RowDone writes the rows built so far once they make a batch.
func (rw *RowWriter) RowDone() error {
	if rw.b.Field(0).Len() < 64<<10 {
		return nil
	}
	return rw.flush()
}

func (rw *RowWriter) flush() error {
	rec := rw.b.NewRecordBatch()
	defer rec.Release()
	return rw.w.Write(rec)
}

// Finish writes the last rows and commits the file, or, when err is set,
// removes it and returns err.
func (rw *RowWriter) Finish(err error) error {
	defer rw.b.Release()
	if err == nil {
		err = rw.flush()
	}
	if err != nil {
		rw.w.Abort()
		return err
	}
	return rw.w.Commit()
}

// EachRowOfShard calls fn for the rows of the files at paths (made by a
// reduce phase, their first column the shard) that belong to shard s.
func EachRowOfShard(mem memory.Allocator, paths []string, s int, fn func(rec arrow.RecordBatch, i int)) error {
	for _, path := range paths {
		err := Read(mem, path, nil, func(rec arrow.RecordBatch) error {
			shard := rec.Column(0).(*array.Int32)
			for i := 0; i < int(rec.NumRows()); i++ {
				if int(shard.Value(i)) == s {
					fn(rec, i)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// AppendID appends an id, null when empty.
func AppendID(b *array.StringBuilder, id string) {
	if id == "" {
		b.AppendNull()
	} else {
		b.Append(id)
	}
}

// IDAt returns the id at row i, "" when null.
func IDAt(ids *array.String, i int) string {
	if ids.IsNull(i) {
		return ""
	}
	return ids.Value(i)
}
