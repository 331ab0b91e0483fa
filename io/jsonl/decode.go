package jsonl

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/schema"
)

// ErrInvalidUTF8 is the cause reported, when repair is off, for a line with
// invalid UTF-8 inside a string.
var ErrInvalidUTF8 = errors.New("invalid UTF-8")

// BadLine is an input line that could not become a row.
type BadLine struct {
	Ref LineRef
	Err error
	Raw []byte
}

// DecodeOptions says how lines become rows.
type DecodeOptions struct {
	Schema     *schema.Type
	WithExtra  bool // add the _extra column for members the schema has no place for
	Strict     bool // quarantine rows that would need _extra instead
	RepairUTF8 bool // replace invalid UTF-8 with U+FFFD (else quarantine the line)
	MaxDepth   int
	TextField  string // the column that holds most of the bytes; its buffer is sized up front
}

// Decoded is the result of decoding one chunk.
type Decoded struct {
	Batch    arrow.RecordBatch // the rows; the receiver releases it
	Bad      []BadLine         // in line order
	Repaired int64             // rows in which invalid UTF-8 was replaced
}

// Decoder turns chunks of JSONL lines into record batches. Each worker owns
// one; it is not safe for concurrent use.
type Decoder struct {
	opts DecodeOptions
	doc  Doc
	b    *Builder
}

// NewDecoder returns a decoder that allocates batches from mem.
func NewDecoder(mem memory.Allocator, opts DecodeOptions) *Decoder {
	d := &Decoder{opts: opts, b: NewBuilder(mem, opts.Schema, opts.WithExtra, opts.Strict)}
	d.doc.MaxDepth = opts.MaxDepth
	return d
}

// Schema returns the Arrow schema of the batches.
func (d *Decoder) Schema() *arrow.Schema { return d.b.Schema() }

// Decode parses every line of c. Lines that fail become BadLines; the
// others become the rows of the batch, in order. Nothing in the result
// refers to c, so c may be released afterwards.
func (d *Decoder) Decode(c *Chunk) Decoded {
	var out Decoded
	d.b.Reserve(c.Len())
	if d.opts.TextField != "" {
		d.b.ReserveData(d.opts.TextField, c.Len(), len(c.Data))
	}
	for i := 0; i < c.Len(); i++ {
		line := c.Line(i)
		ref := c.Refs[i]
		if ref.Err != nil {
			out.Bad = append(out.Bad, BadLine{Ref: ref, Err: ref.Err, Raw: bytes.Clone(line)})
			continue
		}
		root, err := d.doc.Parse(line)
		if err == nil && d.doc.Repaired > 0 && !d.opts.RepairUTF8 {
			err = fmt.Errorf("%w in a string", ErrInvalidUTF8)
		}
		if err == nil {
			err = d.b.Append(&d.doc, root)
		}
		if err != nil {
			out.Bad = append(out.Bad, BadLine{Ref: ref, Err: err, Raw: bytes.Clone(line)})
			continue
		}
		if d.doc.Repaired > 0 {
			out.Repaired++
		}
	}
	out.Batch = d.b.NewRecordBatch()
	return out
}

// Release frees the decoder's builders.
func (d *Decoder) Release() { d.b.Release() }
