package pqio

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// zstdFrames returns, for each zstd frame found in data, whether its
// header says it carries a content checksum.
func zstdFrames(data []byte) []bool {
	var frames []bool
	magic := binary.LittleEndian.AppendUint32(nil, 0xFD2FB528)
	for i := 0; ; {
		j := bytes.Index(data[i:], magic)
		if j < 0 || i+j+4 >= len(data) {
			return frames
		}
		i += j + 4
		frames = append(frames, data[i]&0x04 != 0) // Frame_Header_Descriptor: Content_Checksum_flag
	}
}

func textBatch(mem memory.Allocator, n int) arrow.RecordBatch {
	s := arrow.NewSchema([]arrow.Field{{Name: "text", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(mem, s)
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("document %d says something about rivers and boats", i))
	}
	return b.NewRecordBatch()
}

// Pages are written without zstd checksums unless Options ask for them,
// and writers outside pqio write what arrow-go writes: the codec pqio
// registers changes only the pages of the writers that ask.
func TestZstdChecksumsAreAWriterOption(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	rec := textBatch(mem, 1000)
	defer rec.Release()

	check := func(name string, data []byte, want bool) {
		t.Helper()
		frames := zstdFrames(data)
		if len(frames) == 0 {
			t.Fatalf("%s: no zstd frame found", name)
		}
		for i, sum := range frames {
			if sum != want {
				t.Fatalf("%s: frame %d has checksum %v, want %v", name, i, sum, want)
			}
		}
		path := filepath.Join(t.TempDir(), "p.parquet")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(mem, path, 4096)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		got, err := r.Next(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		defer got.Release()
		if got.NumRows() != rec.NumRows() || got.Column(0).(*array.String).Value(999) != rec.Column(0).(*array.String).Value(999) {
			t.Fatalf("%s: read back %d rows, last %q", name, got.NumRows(), got.Column(0).(*array.String).Value(int(got.NumRows()-1)))
		}
	}

	for _, level := range []int{0, 3, 9} {
		plain, err := EncodePiece(mem, rec, Options{Level: level}, nil)
		if err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("level %d", level), plain, false)
		summed, err := EncodePiece(mem, rec, Options{Level: level, ZstdChecksums: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("level %d with checksums", level), summed, true)
	}

	var direct bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithAllocator(mem), parquet.WithCompression(compress.Codecs.Zstd))
	fw, err := pqarrow.NewFileWriter(rec.Schema(), &direct, props, pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(mem)))
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	check("arrow-go's writer", direct.Bytes(), true)
}
