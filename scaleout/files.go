package scaleout

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/pipeline/shard"
)

// The MinHash phases' names for the intermediates of pipeline/shard.

type pqWriter = shard.Writer

func createParquet(mem memory.Allocator, path string, s *arrow.Schema) (*pqWriter, error) {
	return shard.Create(mem, path, s)
}

func readParquet(mem memory.Allocator, path string, columns []string, fn func(rec arrow.RecordBatch) error) error {
	return shard.Read(mem, path, columns, fn)
}

func parquetRows(mem memory.Allocator, path string) (int64, error) { return shard.Rows(mem, path) }

func writeOne(t *task, path string, s *arrow.Schema, rec arrow.RecordBatch) error {
	return shard.WriteOne(t.mem, path, s, rec)
}

func (t *task) newRowWriter(path string, s *arrow.Schema) (*shard.RowWriter, error) {
	return shard.NewRowWriter(t.mem, path, s)
}

func appendID(b *array.StringBuilder, id string) { shard.AppendID(b, id) }

func idAt(ids *array.String, i int) string { return shard.IDAt(ids, i) }
