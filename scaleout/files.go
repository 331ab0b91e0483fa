package scaleout

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

// intermediateOptions encode intermediates: uncompressed (they are read
// once or twice, soon), no dictionaries for mostly distinct values.
var intermediateOptions = pqio.Options{Codec: pqio.Uncompressed, NoDictionary: []string{"id", "sig", "bands", "feature", "kept_id"}}

// pqWriter writes one Parquet intermediate, batch by batch, under a
// temporary name until commit.
type pqWriter struct {
	path string
	mem  memory.Allocator
	f    *os.File
	st   *pqio.Stitcher
	rows int64
}

func createParquet(mem memory.Allocator, path string, s *arrow.Schema) (*pqWriter, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	tmpl, err := pqio.EncodeEmpty(mem, s, intermediateOptions)
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
	return &pqWriter{path: path, mem: mem, f: f, st: st}, nil
}

// encode turns rec into a piece for add; it may run on any goroutine.
func (w *pqWriter) encode(rec arrow.RecordBatch) ([]byte, error) {
	return pqio.EncodePiece(w.mem, rec, intermediateOptions, nil)
}

// add appends an encoded piece; calls are in file order.
func (w *pqWriter) add(piece []byte, rows int) error {
	if rows == 0 {
		return nil
	}
	w.rows += int64(rows)
	return w.st.Add(piece)
}

// write encodes and appends rec.
func (w *pqWriter) write(rec arrow.RecordBatch) error {
	piece, err := w.encode(rec)
	if err != nil {
		return err
	}
	return w.add(piece, int(rec.NumRows()))
}

func (w *pqWriter) commit() error {
	if err := w.st.Close(); err != nil {
		w.abort()
		return err
	}
	if err := w.f.Close(); err != nil {
		os.Remove(w.f.Name())
		return err
	}
	return os.Rename(w.f.Name(), w.path)
}

func (w *pqWriter) abort() {
	w.f.Close()
	os.Remove(w.f.Name())
}

// readParquet calls fn with every batch of the Parquet file at path, read
// in order; fn must not keep the batch.
func readParquet(mem memory.Allocator, path string, columns []string, fn func(rec arrow.RecordBatch) error) error {
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

// parquetRows returns the number of rows of the Parquet file at path.
func parquetRows(mem memory.Allocator, path string) (int64, error) {
	r, err := pqio.Open(mem, path, 1)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	return r.NumRows(), nil
}

// writeByRange writes one Parquet intermediate of schema s per hash
// range: fill appends each row to the builder of its range, then
// builder r goes to path(r).
func (t *task) writeByRange(s *arrow.Schema, parts int, path func(part int) string, fill func(ranges []*array.RecordBuilder) error) error {
	builders := make([]*array.RecordBuilder, parts)
	for r := range builders {
		builders[r] = array.NewRecordBuilder(t.mem, s)
		defer builders[r].Release()
	}
	if err := fill(builders); err != nil {
		return err
	}
	for r, b := range builders {
		rec := b.NewRecordBatch()
		err := writeOne(t, path(r), s, rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// rowWriter builds an intermediate row by row and writes it in batches.
type rowWriter struct {
	w *pqWriter
	b *array.RecordBuilder
}

func (t *task) newRowWriter(path string, s *arrow.Schema) (*rowWriter, error) {
	w, err := createParquet(t.mem, path, s)
	if err != nil {
		return nil, err
	}
	return &rowWriter{w: w, b: array.NewRecordBuilder(t.mem, s)}, nil
}

// field returns the builder of column i of the row being added.
func (rw *rowWriter) field(i int) array.Builder { return rw.b.Field(i) }

// rowDone writes the rows built so far once they make a batch.
func (rw *rowWriter) rowDone() error {
	if rw.b.Field(0).Len() < 64<<10 {
		return nil
	}
	return rw.flush()
}

func (rw *rowWriter) flush() error {
	rec := rw.b.NewRecordBatch()
	defer rec.Release()
	return rw.w.write(rec)
}

// finish writes the last rows and commits the file, or, when err is set,
// removes it and returns err.
func (rw *rowWriter) finish(err error) error {
	defer rw.b.Release()
	if err == nil {
		err = rw.flush()
	}
	if err != nil {
		rw.w.abort()
		return err
	}
	return rw.w.commit()
}

// eachRowOfShard calls fn for the rows of the files at paths (made by a
// reduce phase, their first column the shard) that belong to shard s.
func (t *task) eachRowOfShard(paths []string, s int, fn func(rec arrow.RecordBatch, i int)) error {
	for _, path := range paths {
		err := readParquet(t.mem, path, nil, func(rec arrow.RecordBatch) error {
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

// writeOne writes a Parquet intermediate of one batch.
func writeOne(t *task, path string, s *arrow.Schema, rec arrow.RecordBatch) error {
	w, err := createParquet(t.mem, path, s)
	if err != nil {
		return err
	}
	if err := w.write(rec); err != nil {
		w.abort()
		return err
	}
	return w.commit()
}
