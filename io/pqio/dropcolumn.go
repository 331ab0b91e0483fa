package pqio

import (
	"encoding/binary"
	"fmt"
	"os"
	"slices"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// A column that is null in every row of a file can be left out of it
// without rewriting a byte of its data: the footer stops listing its
// column chunks, which stay in the file, unreferenced, as the few bytes
// that an all-null chunk is. ColumnEmpty tells whether a column is such a
// column, DropColumn drops it.

// ColumnEmpty reports whether the top-level primitive column name of the
// Parquet file at path is null in every row, by the null counts of its
// footer (false when a row group has no count for it). ok is false when
// the file has no such column.
func ColumnEmpty(path, name string) (empty, ok bool, err error) {
	meta, _, err := readFooter(path)
	if err != nil {
		return false, false, err
	}
	for _, rg := range meta.RowGroups {
		i := chunkIndex(rg, name)
		if i < 0 {
			return false, false, nil
		}
		md := rg.Columns[i].MetaData
		if md.Statistics.NullCount != md.NumValues || md.NumValues != rg.NumRows {
			return false, true, nil
		}
	}
	return true, isTopLevelLeaf(meta.Schema, name), nil
}

// DropColumn rewrites the footer of the Parquet file at path without the
// top-level primitive column name, which must be null in every row (see
// ColumnEmpty). template is an empty Parquet file of the schema without
// the column (EncodeEmpty): the file takes its schema, column orders and
// key-value metadata (the Arrow schema among them). It returns the size
// of the file after.
func DropColumn(path, name string, template []byte) (int64, error) {
	if empty, ok, err := ColumnEmpty(path, name); err != nil || !ok || !empty {
		if err == nil {
			err = fmt.Errorf("parquet: %s: column %s is not an empty column of the file", path, name)
		}
		return 0, err
	}
	meta, start, err := readFooter(path)
	if err != nil {
		return 0, err
	}
	want, _, err := footer(template)
	if err != nil {
		return 0, err
	}
	for g := range meta.RowGroups {
		dropChunk(&meta.RowGroups[g], chunkIndex(meta.RowGroups[g], name))
		if n := len(meta.RowGroups[g].Columns); n != leaves(want.Schema) {
			return 0, fmt.Errorf("parquet: %s: %d columns left, the template has %d", path, n, leaves(want.Schema))
		}
	}
	meta.Schema, meta.ColumnOrders, meta.KeyValueMetadata = want.Schema, want.ColumnOrders, want.KeyValueMetadata
	b, err := thrift.Marshal(new(thrift.CompactProtocol), &meta)
	if err != nil {
		return 0, fmt.Errorf("parquet: %s: footer: %w", path, err)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(b)))
	b = append(b, magic...)
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return 0, err
	}
	if err := f.Truncate(start); err != nil {
		f.Close()
		return 0, err
	}
	if _, err := f.WriteAt(b, start); err != nil {
		f.Close()
		return 0, err
	}
	return start + int64(len(b)), f.Close()
}

// dropChunk removes column chunk i of a row group and its sizes.
func dropChunk(rg *format.RowGroup, i int) {
	md := rg.Columns[i].MetaData
	rg.TotalByteSize -= md.TotalUncompressedSize
	rg.TotalCompressedSize -= md.TotalCompressedSize
	rg.Columns = slices.Delete(rg.Columns, i, i+1)
	if i == 0 && len(rg.Columns) > 0 && rg.FileOffset != 0 {
		first := rg.Columns[0].MetaData
		rg.FileOffset = first.DataPageOffset
		if first.DictionaryPageOffset != 0 {
			rg.FileOffset = first.DictionaryPageOffset
		}
	}
}

// chunkIndex is the index of the chunk of the top-level primitive column
// name in a row group, or -1.
func chunkIndex(rg format.RowGroup, name string) int {
	return slices.IndexFunc(rg.Columns, func(c format.ColumnChunk) bool {
		return len(c.MetaData.PathInSchema) == 1 && c.MetaData.PathInSchema[0] == name
	})
}

// isTopLevelLeaf reports whether a flattened schema (its root first) has
// a top-level primitive column name.
func isTopLevelLeaf(s []format.SchemaElement, name string) bool {
	if len(s) == 0 {
		return false
	}
	j := 1
	for range children(s[0]) {
		if j >= len(s) {
			return false
		}
		if s[j].Name == name {
			return children(s[j]) == 0
		}
		j = skipSubtree(s, j)
	}
	return false
}

// skipSubtree returns the index after element j and all its descendants.
func skipSubtree(s []format.SchemaElement, j int) int {
	n := children(s[j])
	j++
	for range n {
		if j >= len(s) {
			return j
		}
		j = skipSubtree(s, j)
	}
	return j
}

// leaves counts the primitive columns of a flattened schema.
func leaves(s []format.SchemaElement) int {
	n := 0
	for i := 1; i < len(s); i++ {
		if children(s[i]) == 0 {
			n++
		}
	}
	return n
}

// children is the number of children of a schema element (0: a leaf).
func children(e format.SchemaElement) int {
	n, _ := e.NumChildren.Get()
	return int(n)
}

// readFooter reads the file metadata of the Parquet file at path and
// where its footer starts.
func readFooter(path string) (format.FileMetaData, int64, error) {
	var meta format.FileMetaData
	f, err := os.Open(path)
	if err != nil {
		return meta, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return meta, 0, err
	}
	var tail [8]byte
	if st.Size() < 12 {
		return meta, 0, fmt.Errorf("%s: %w", path, ErrNotParquet)
	}
	if _, err := f.ReadAt(tail[:], st.Size()-8); err != nil {
		return meta, 0, err
	}
	size := int64(binary.LittleEndian.Uint32(tail[:4]))
	start := st.Size() - 8 - size
	if string(tail[4:]) != string(magic) || size <= 0 || start < 4 {
		return meta, 0, fmt.Errorf("%s: %w", path, ErrNotParquet)
	}
	b := make([]byte, size)
	if _, err := f.ReadAt(b, start); err != nil {
		return meta, 0, err
	}
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), b, &meta); err != nil {
		return meta, 0, fmt.Errorf("%s: footer: %w", path, err)
	}
	return meta, start, nil
}
