package pqio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

var magic = []byte("PAR1")

// ErrNotParquet is returned for bytes that are not a Parquet file.
var ErrNotParquet = errors.New("not a Parquet file")

// Stitcher writes one Parquet file out of pieces: complete Parquet files of
// the same schema, typically one row group each. It copies each piece's
// column chunks as they are, shifts their offsets, and writes a footer that
// lists every row group, so pieces encoded in parallel become one file
// without decoding or recompressing anything.
type Stitcher struct {
	w       io.Writer
	pos     int64
	meta    format.FileMetaData
	rows    int64
	started bool
}

// NewStitcher returns a stitcher that writes to w. template is a Parquet
// file (its rows are ignored) whose schema and key-value metadata the
// output takes; EncodeEmpty makes one.
func NewStitcher(w io.Writer, template []byte) (*Stitcher, error) {
	meta, _, err := footer(template)
	if err != nil {
		return nil, err
	}
	meta.RowGroups = nil
	meta.NumRows = 0
	return &Stitcher{w: w, meta: meta}, nil
}

// Rows returns the number of rows added so far.
func (s *Stitcher) Rows() int64 { return s.rows }

// Bytes returns the number of bytes written so far.
func (s *Stitcher) Bytes() int64 { return s.pos }

// Add appends the row groups of piece.
func (s *Stitcher) Add(piece []byte) error {
	if err := s.start(); err != nil {
		return err
	}
	meta, footerStart, err := footer(piece)
	if err != nil {
		return err
	}
	if len(meta.Schema) != len(s.meta.Schema) {
		return fmt.Errorf("parquet: stitch: piece has %d schema elements, file has %d", len(meta.Schema), len(s.meta.Schema))
	}
	for i := range meta.Schema {
		if meta.Schema[i].Name != s.meta.Schema[i].Name || meta.Schema[i].Type != s.meta.Schema[i].Type {
			return fmt.Errorf("parquet: stitch: piece schema differs at %q", meta.Schema[i].Name)
		}
	}
	if len(meta.RowGroups) == 0 {
		return nil
	}
	body := piece[len(magic):footerStart]
	shift := s.pos - int64(len(magic))
	if err := s.write(body); err != nil {
		return err
	}
	for _, rg := range meta.RowGroups {
		for i := range rg.Columns {
			c := &rg.Columns[i]
			if c.OffsetIndexOffset != 0 || c.ColumnIndexOffset != 0 || c.MetaData.BloomFilterOffset != 0 {
				return errors.New("parquet: stitch: pieces must not carry page indexes or bloom filters")
			}
			if c.FileOffset != 0 {
				c.FileOffset += shift
			}
			md := &c.MetaData
			md.DataPageOffset += shift
			if md.DictionaryPageOffset != 0 {
				md.DictionaryPageOffset += shift
			}
			if md.IndexPageOffset != 0 {
				md.IndexPageOffset += shift
			}
		}
		if rg.FileOffset != 0 {
			rg.FileOffset += shift
		}
		rg.Ordinal = int16(len(s.meta.RowGroups))
		s.meta.RowGroups = append(s.meta.RowGroups, rg)
		s.rows += rg.NumRows
	}
	return nil
}

// Close writes the footer. It does not close the underlying writer.
func (s *Stitcher) Close() error {
	if err := s.start(); err != nil {
		return err
	}
	s.meta.NumRows = s.rows
	b, err := thrift.Marshal(new(thrift.CompactProtocol), &s.meta)
	if err != nil {
		return fmt.Errorf("parquet: stitch: footer: %w", err)
	}
	if err := s.write(b); err != nil {
		return err
	}
	var tail [8]byte
	binary.LittleEndian.PutUint32(tail[:4], uint32(len(b)))
	copy(tail[4:], magic)
	return s.write(tail[:])
}

func (s *Stitcher) start() error {
	if s.started {
		return nil
	}
	s.started = true
	return s.write(magic)
}

func (s *Stitcher) write(b []byte) error {
	n, err := s.w.Write(b)
	s.pos += int64(n)
	return err
}

// footer decodes the file metadata of a whole Parquet file held in memory
// and returns where the footer starts.
func footer(file []byte) (format.FileMetaData, int, error) {
	var meta format.FileMetaData
	n := len(file)
	if n < 12 || !bytes.Equal(file[:4], magic) || !bytes.Equal(file[n-4:], magic) {
		return meta, 0, ErrNotParquet
	}
	size := int(binary.LittleEndian.Uint32(file[n-8 : n-4]))
	start := n - 8 - size
	if size <= 0 || start < 4 {
		return meta, 0, fmt.Errorf("%w: bad footer length", ErrNotParquet)
	}
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), file[start:n-8], &meta); err != nil {
		return meta, 0, fmt.Errorf("parquet: footer: %w", err)
	}
	return meta, start, nil
}
