package pqio

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Codec is an output compression.
type Codec uint8

// The supported Parquet compressions.
const (
	Zstd Codec = iota
	Snappy
	Uncompressed
)

// ParseCodec maps a flag value onto a Codec.
func ParseCodec(s string) (Codec, error) {
	switch strings.ToLower(s) {
	case "zstd", "":
		return Zstd, nil
	case "snappy":
		return Snappy, nil
	case "none", "uncompressed":
		return Uncompressed, nil
	}
	return 0, fmt.Errorf("unknown compression %q (want zstd, snappy or none)", s)
}

func (c Codec) String() string { return [...]string{"zstd", "snappy", "none"}[c] }

// MarshalText writes the codec's name, as in manifests.
func (c Codec) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a codec's name, as MarshalText writes it.
func (c *Codec) UnmarshalText(b []byte) error {
	v, err := ParseCodec(string(b))
	*c = v
	return err
}

// Options configure encoding.
type Options struct {
	Codec Codec `json:"compression"`
	Level int   `json:"compression_level,omitempty"` // 0 means the codec's default
	// NoDictionary lists top-level string columns written without dictionary
	// encoding: long, mostly distinct texts gain nothing from a dictionary
	// and pay for building it.
	NoDictionary []string `json:"no_dictionary,omitempty"`
	// PageBytes is the target size of a data page; 0 means 1 MiB.
	PageBytes int64 `json:"page_bytes,omitempty"`
	// ZstdChecksums writes zstd pages with arrow-go's own codec, whose
	// frames carry a checksum of their content. By default the frames carry
	// none: the file's structure already frames every page, and hashing
	// every byte a second time costs a few percent of the write.
	ZstdChecksums bool `json:"zstd_checksums,omitempty"`
}

func (o Options) writerProps(mem memory.Allocator) *parquet.WriterProperties {
	codec := compress.Codecs.Zstd
	switch o.Codec {
	case Snappy:
		codec = compress.Codecs.Snappy
	case Uncompressed:
		codec = compress.Codecs.Uncompressed
	}
	props := []parquet.WriterProperty{
		parquet.WithAllocator(mem),
		parquet.WithCompression(codec),
		parquet.WithCreatedBy("sluice"),
		parquet.WithPageIndexEnabled(false),
		parquet.WithMaxRowGroupLength(1 << 40),
		parquet.WithStats(true),
		parquet.WithMaxStatsSize(4096),
	}
	if o.PageBytes > 0 {
		props = append(props, parquet.WithDataPageSize(o.PageBytes))
	}
	level := o.Level
	if level == 0 {
		level = compress.DefaultCompressionLevel
	}
	if o.Codec == Zstd && !o.ZstdChecksums && pageCodecRegistered() {
		level = withoutChecksums(level)
	}
	if level != compress.DefaultCompressionLevel {
		props = append(props, parquet.WithCompressionLevel(level))
	}
	for _, name := range o.NoDictionary {
		props = append(props, parquet.WithDictionaryFor(name, false))
	}
	return parquet.NewWriterProperties(props...)
}

// EncodePiece encodes rec as a complete Parquet file with one row group
// (none when rec has no rows), appended to dst[:0], and returns its bytes.
// Pass a buffer from an earlier piece as dst to spare the allocation.
func EncodePiece(mem memory.Allocator, rec arrow.RecordBatch, o Options, dst []byte) ([]byte, error) {
	return encode(mem, rec.Schema(), rec, o, dst)
}

// EncodeEmpty encodes a Parquet file with schema s and no rows.
func EncodeEmpty(mem memory.Allocator, s *arrow.Schema, o Options) ([]byte, error) {
	return encode(mem, s, nil, o, nil)
}

func encode(mem memory.Allocator, s *arrow.Schema, rec arrow.RecordBatch, o Options, dst []byte) (out []byte, err error) {
	defer func() {
		// The Parquet library panics on some inputs; turn that into an error.
		if r := recover(); r != nil {
			err = fmt.Errorf("parquet: encoding failed: %v", r)
		}
	}()
	buf := bytes.NewBuffer(dst[:0])
	if rec != nil {
		buf.Grow(int(estimateSize(rec)/2) + 4096)
	}
	fw, err := pqarrow.NewFileWriter(s, buf, o.writerProps(mem),
		pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(mem), pqarrow.WithStoreSchema()))
	if err != nil {
		return nil, fmt.Errorf("parquet: %w", err)
	}
	if rec != nil && rec.NumRows() > 0 {
		if err := fw.Write(rec); err != nil {
			return nil, fmt.Errorf("parquet: %w", err)
		}
	}
	if err := fw.Close(); err != nil {
		return nil, fmt.Errorf("parquet: %w", err)
	}
	return buf.Bytes(), nil
}

func estimateSize(rec arrow.RecordBatch) int64 {
	var n int64
	for _, c := range rec.Columns() {
		for _, b := range c.Data().Buffers() {
			if b != nil {
				n += int64(b.Len())
			}
		}
	}
	return n
}
