package pqio_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/sluice-data/sluice/io/jsonl"
	"github.com/sluice-data/sluice/io/pqio"
	"github.com/sluice-data/sluice/schema"
)

// TestDuckDBTypesComeBackAsJSONValues reads a Parquet file written by
// DuckDB's COPY TO (made by interop/duckdb's TestForeignParquetToJSONL)
// and writes it as JSONL: JSON columns, at the top level, in a struct and
// in a list, come back as the JSON values they hold; integers of every
// width and sign and decimals as numbers; dates, timestamps and UUIDs as
// ISO 8601 and canonical text; binary as base64.
func TestDuckDBTypesComeBackAsJSONValues(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", "duckdb_types.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "duckdb_types.parquet")
	for _, byGroup := range []bool{false, true} {
		mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
		r, err := pqio.Open(mem, path, 2)
		if err != nil {
			t.Fatal(err)
		}
		s, err := r.Schema()
		if err != nil {
			t.Fatal(err)
		}
		paths := schema.JSONPaths(s)
		for _, p := range []string{"j", "s.j", "lj[]"} {
			if !paths[p] {
				t.Errorf("%s is not listed as a JSON column: %v", p, paths)
			}
		}
		if f, _ := s.FieldsByName("j"); len(f) != 1 || f[0].Type.ID() != arrow.STRING {
			t.Errorf("column j: %v, want a string column", f)
		}
		enc := jsonl.NewEncoder(s)
		var got []byte
		if byGroup {
			for g := range r.RowGroupRows() {
				rec, err := r.ReadRowGroup(context.Background(), g)
				if err != nil {
					t.Fatal(err)
				}
				if !rec.Schema().Equal(s) {
					t.Fatalf("row group %d has schema\n%v\nwant\n%v", g, rec.Schema(), s)
				}
				got = enc.AppendBatch(got, rec)
				rec.Release()
			}
		} else {
			for {
				rec, err := r.Next(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if rec == nil {
					break
				}
				if !rec.Schema().Equal(s) {
					t.Fatalf("batch has schema\n%v\nwant\n%v", rec.Schema(), s)
				}
				got = enc.AppendBatch(got, rec)
				rec.Release()
			}
		}
		r.Close()
		if string(got) != string(want) {
			t.Errorf("by row group %v: got\n%s\nwant\n%s", byGroup, got, want)
		}
		mem.AssertSize(t, 0)
	}
}

// TestArrowJSONColumnsComeBackAsJSONValues: a column of Arrow's arrow.json
// extension type, read with the Arrow schema stored in the file (as the
// extension) or without it (as the Parquet JSON logical type over binary),
// is a JSON column; bytes that are not UTF-8 become U+FFFD.
func TestArrowJSONColumnsComeBackAsJSONValues(t *testing.T) {
	for _, stored := range []bool{true, false} {
		mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
		jt, err := extensions.NewJSONType(arrow.BinaryTypes.String)
		if err != nil {
			t.Fatal(err)
		}
		s := arrow.NewSchema([]arrow.Field{{Name: "doc", Type: jt, Nullable: true}}, nil)
		b := array.NewRecordBuilder(mem, s)
		sb := b.Field(0).(*array.ExtensionBuilder).StorageBuilder().(*array.StringBuilder)
		sb.Append("{\n  \"a\": [1, 2]\n}")
		sb.Append("\"caf\xe9\"")
		sb.AppendNull()
		rec := b.NewRecordBatch()
		b.Release()
		var buf bytes.Buffer
		props := pqarrow.DefaultWriterProps()
		if stored {
			props = pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema())
		}
		w, err := pqarrow.NewFileWriter(s, &buf, parquet.NewWriterProperties(parquet.WithAllocator(mem)), props)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "j.parquet")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := pqio.Open(mem, path, 10)
		if err != nil {
			t.Fatal(err)
		}
		rs, _ := r.Schema()
		got, err := r.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		out := string(jsonl.NewEncoder(rs).AppendBatch(nil, got))
		got.Release()
		r.Close()
		want := "{\"doc\":{\"a\":[1,2]}}\n{\"doc\":\"caf\uFFFD\"}\n{\"doc\":null}\n"
		if out != want {
			t.Errorf("stored schema %v: got\n%s\nwant\n%s", stored, out, want)
		}
		mem.AssertSize(t, 0)
	}
}
