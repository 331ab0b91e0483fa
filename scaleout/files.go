package scaleout

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/pqio"
)

// writeFileAtomic writes data to path under a temporary name and renames
// it into place.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}

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
