package jsonl

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/schema"
)

// ErrNotObject is the cause reported for a line whose value is not a JSON object.
var ErrNotObject = errors.New("not a JSON object")

// ErrSchemaMismatch is the cause reported, in strict mode, for a row with a
// member the schema has no place for.
var ErrSchemaMismatch = errors.New("does not fit the schema")

// Builder appends parsed JSON objects as rows to Arrow column builders.
// Members the schema has no place for (unknown names, values of another
// type, duplicate names) go to the _extra column as one JSON object, or make
// the row fail in strict mode. A Builder is not safe for concurrent use.
type Builder struct {
	typ       *schema.Type
	withExtra bool
	strict    bool
	rb        *array.RecordBuilder
	index     map[string]int
	slot      []int32 // member node per top-level field for the current row, -1 if absent
	extras    []int32
	scratch   []byte
}

// NewBuilder returns a builder for rows of the top-level struct type typ.
// withExtra adds the _extra column; strict rejects rows that would need it.
func NewBuilder(mem memory.Allocator, typ *schema.Type, withExtra, strict bool) *Builder {
	b := &Builder{
		typ:       typ,
		withExtra: withExtra && !strict,
		strict:    strict,
		index:     make(map[string]int, len(typ.Fields)),
		slot:      make([]int32, len(typ.Fields)),
	}
	for i, f := range typ.Fields {
		b.index[f.Name] = i
	}
	b.rb = array.NewRecordBuilder(mem, typ.ArrowSchema(b.withExtra))
	return b
}

// Schema returns the Arrow schema of the batches the builder makes.
func (b *Builder) Schema() *arrow.Schema { return b.rb.Schema() }

// Len returns the number of rows appended since the last NewRecordBatch.
func (b *Builder) Len() int {
	if len(b.rb.Fields()) == 0 {
		return 0
	}
	return b.rb.Field(0).Len()
}

// Reserve makes room for n more rows in every column.
func (b *Builder) Reserve(n int) { b.rb.Reserve(n) }

// ReserveData makes room for n bytes of values in the top-level string
// column named field, sparing the copies of growing it row by row.
func (b *Builder) ReserveData(field string, n int) {
	if i, ok := b.index[field]; ok && b.typ.Fields[i].Type.Kind == schema.String {
		b.rb.Field(i).(*array.StringBuilder).ReserveData(n)
	}
}

// Append adds the object at node root of d as one row. On error nothing is
// appended.
func (b *Builder) Append(d *Doc, root int32) error {
	if d.Node(root).Kind != KindObject {
		return ErrNotObject
	}
	for i := range b.slot {
		b.slot[i] = -1
	}
	b.extras = b.extras[:0]
	for _, c := range d.Children(root) {
		i, ok := b.index[unsafeString(d.Key(c))]
		if ok && b.slot[i] < 0 && d.Fits(b.typ.Fields[i].Type, c) {
			b.slot[i] = c
			continue
		}
		if b.strict {
			if !ok {
				return fmt.Errorf("field %q is not in the schema: %w", d.Key(c), ErrSchemaMismatch)
			}
			if b.slot[i] >= 0 {
				return fmt.Errorf("field %q appears twice: %w", d.Key(c), ErrSchemaMismatch)
			}
			return fmt.Errorf("field %q: value %.40s is not a %s: %w", d.Key(c), d.AppendJSON(nil, c), b.typ.Fields[i].Type.Kind, ErrSchemaMismatch)
		}
		b.extras = append(b.extras, c)
	}
	if len(b.extras) > 0 && !b.withExtra {
		// Without an _extra column the schema was inferred from every row,
		// so every member fits; reaching here is a bug, not bad input. The
		// row is refused whole: nothing of it is appended.
		return fmt.Errorf("field %q has no column: %w", d.Key(b.extras[0]), ErrSchemaMismatch)
	}
	for i, f := range b.typ.Fields {
		b.appendValue(b.rb.Field(i), f.Type, d, b.slot[i])
	}
	if b.withExtra {
		eb := b.rb.Field(len(b.typ.Fields)).(*array.StringBuilder)
		if len(b.extras) == 0 {
			eb.AppendNull()
		} else {
			s := append(b.scratch[:0], '{')
			for j, c := range b.extras {
				if j > 0 {
					s = append(s, ',')
				}
				s = AppendQuoted(s, d.Key(c))
				s = append(s, ':')
				s = d.AppendJSON(s, c)
			}
			s = append(s, '}')
			eb.BinaryBuilder.Append(s)
			b.scratch = s
		}
	}
	return nil
}

// appendValue appends node i (or null when i < 0) to bld, whose type is t.
// The value has been checked with Fits.
func (b *Builder) appendValue(bld array.Builder, t *schema.Type, d *Doc, i int32) {
	if i < 0 || d.Node(i).Kind == KindNull {
		bld.AppendNull()
		return
	}
	switch t.Kind {
	case schema.Bool:
		bld.(*array.BooleanBuilder).Append(d.Node(i).Bool)
	case schema.Int:
		v, _ := d.Int64(i)
		bld.(*array.Int64Builder).Append(v)
	case schema.Float:
		v, _ := d.FloatFits(i)
		bld.(*array.Float64Builder).Append(v)
	case schema.String:
		bld.(*array.StringBuilder).BinaryBuilder.Append(d.Bytes(i))
	case schema.JSON:
		b.scratch = d.AppendJSON(b.scratch[:0], i)
		bld.(*array.StringBuilder).BinaryBuilder.Append(b.scratch)
	case schema.List:
		lb := bld.(*array.ListBuilder)
		lb.Append(true)
		vb := lb.ValueBuilder()
		for _, c := range d.Children(i) {
			b.appendValue(vb, t.Elem, d, c)
		}
	case schema.Struct:
		sb := bld.(*array.StructBuilder)
		sb.Append(true)
		kids := d.Children(i)
		for fi, f := range t.Fields {
			member := int32(-1)
			for _, c := range kids {
				if string(d.Key(c)) == f.Name {
					member = c
					break
				}
			}
			b.appendValue(sb.FieldBuilder(fi), f.Type, d, member)
		}
	default:
		bld.AppendNull()
	}
}

// NewRecordBatch returns the rows appended so far as a batch and resets the
// builder. The caller releases the batch.
func (b *Builder) NewRecordBatch() arrow.RecordBatch { return b.rb.NewRecordBatch() }

// Release frees the builder's memory.
func (b *Builder) Release() { b.rb.Release() }
