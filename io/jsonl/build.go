package jsonl

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

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
// the row fail in strict mode.
//
// A struct column keeps the members its type names even when the object
// holds others: only those go to _extra, under their path from the top of
// the row ({"meta.lang": "en"} for the member lang of the struct meta), so
// that a schema that names some members of a nested object still gets
// them. Converting back to JSONL puts each such member back in its object
// (see Encoder). A Builder is not safe for concurrent use.
type Builder struct {
	typ       *schema.Type
	withExtra bool
	strict    bool
	rb        *array.RecordBuilder
	index     map[string]int
	slot      []int32 // member node per top-level field for the current row, -1 if absent
	extras    []int32 // top-level members without a column
	nested    []nestedExtra
	scratch   []byte
	path      []byte
	rows      int
	// text is the column ReserveData named, built by textColumn instead of
	// its Arrow builder; textIdx is its field index, -1 for none.
	text    textColumn
	textIdx int
}

// nestedExtra is a member of a struct column's object that its type has no
// place for.
type nestedExtra struct {
	top    int    // the top-level field it is under
	key    string // its path from the top of the row: meta.lang
	parent int32  // the object node it is a member of
	node   int32
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
		textIdx:   -1,
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
func (b *Builder) Len() int { return b.rows }

// Reserve makes room for n more rows in every column.
func (b *Builder) Reserve(n int) { b.rb.Reserve(n) }

// ReserveData makes room for n bytes of values in the top-level string
// column named field, and rows rows, sparing the copies of growing it row by
// row. That column is then built apart from the others, straight into
// buffers of that size (see textColumn). Call it before the rows of a batch
// are appended.
func (b *Builder) ReserveData(field string, rows, n int) {
	i, ok := b.index[field]
	if !ok || b.typ.Fields[i].Type.Kind != schema.String {
		return
	}
	if b.textIdx != i && b.rows > 0 {
		return // the batch has begun with another layout
	}
	b.textIdx = i
	if b.text.len() == 0 {
		b.text.reset(rows, n)
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
	b.nested = b.nested[:0]
	for _, c := range d.Children(root) {
		i, ok := b.index[unsafeString(d.Key(c))]
		if ok && b.slot[i] < 0 {
			ft := b.typ.Fields[i].Type
			if ft.Kind == schema.Struct && d.Node(c).Kind == KindObject {
				b.path = append(b.path[:0], d.Key(c)...)
				if err := b.partial(d, ft, c, i); err != nil {
					return err
				}
				b.slot[i] = c
				continue
			}
			if d.Fits(ft, c) {
				b.slot[i] = c
				continue
			}
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
	if len(b.nested) > 0 && !b.withExtra {
		return fmt.Errorf("field %q has no column: %w", b.nested[0].key, ErrSchemaMismatch)
	}
	if len(b.extras) > 0 && !b.withExtra {
		// Without an _extra column the schema was inferred from every row,
		// so every member fits; reaching here is a bug, not bad input. The
		// row is refused whole: nothing of it is appended.
		return fmt.Errorf("field %q has no column: %w", d.Key(b.extras[0]), ErrSchemaMismatch)
	}
	if b.textIdx >= 0 {
		if c := b.slot[b.textIdx]; c >= 0 && d.Node(c).Kind != KindNull && !b.text.fits(len(d.Bytes(c))) {
			return fmt.Errorf("field %q: the batch's values would pass Arrow's 2 GiB limit; use smaller batches", b.typ.Fields[b.textIdx].Name)
		}
	}
	if len(b.nested) > 0 || b.dottedExtra(d) {
		b.settle(d, root)
	}
	b.rows++
	for i, f := range b.typ.Fields {
		if i == b.textIdx {
			if c := b.slot[i]; c < 0 || d.Node(c).Kind == KindNull {
				b.text.appendNull()
			} else {
				b.text.append(d.Bytes(c))
			}
			continue
		}
		b.appendValue(b.rb.Field(i), f.Type, d, b.slot[i])
	}
	if b.withExtra {
		eb := b.rb.Field(len(b.typ.Fields)).(*array.StringBuilder)
		if len(b.extras) == 0 && len(b.nested) == 0 {
			eb.AppendNull()
		} else {
			s := append(b.scratch[:0], '{')
			j, k := 0, 0
			for n := 0; j < len(b.extras) || k < len(b.nested); n++ {
				if n > 0 {
					s = append(s, ',')
				}
				// Members in the order of the line.
				if k == len(b.nested) || (j < len(b.extras) && b.extras[j] < b.nested[k].node) {
					s = AppendQuoted(s, d.Key(b.extras[j]))
					s = append(s, ':')
					s = d.AppendJSON(s, b.extras[j])
					j++
					continue
				}
				s = AppendQuoted(s, []byte(b.nested[k].key))
				s = append(s, ':')
				s = d.AppendJSON(s, b.nested[k].node)
				k++
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
		for fi, f := range t.Fields {
			b.appendValue(sb.FieldBuilder(fi), f.Type, d, b.member(d, i, f.Name))
		}
	default:
		bld.AppendNull()
	}
}

// NewRecordBatch returns the rows appended so far as a batch and resets the
// builder. The caller releases the batch.
func (b *Builder) NewRecordBatch() arrow.RecordBatch {
	rows := b.rows
	b.rows = 0
	if b.textIdx < 0 {
		return b.rb.NewRecordBatch()
	}
	cols := make([]arrow.Array, len(b.rb.Fields()))
	for i, f := range b.rb.Fields() {
		if i == b.textIdx {
			cols[i] = b.text.finish()
		} else {
			cols[i] = f.NewArray()
		}
	}
	rec := array.NewRecordBatch(b.rb.Schema(), cols, int64(rows))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// Release frees the builder's memory.
func (b *Builder) Release() { b.rb.Release() }

// partial checks the members of obj, the object of a struct column of type
// t under top-level field top, whose path is b.path. The members t names
// and whose values fit are kept (a struct member recursively so); the
// others are recorded in b.nested, or fail the row in strict mode.
func (b *Builder) partial(d *Doc, t *schema.Type, obj int32, top int) error {
	kids := d.Children(obj)
	base := len(b.path)
	for j, c := range kids {
		name := d.Key(c)
		f, _ := t.Field(unsafeString(name))
		taken := false
		if f != nil {
			for _, prev := range kids[:j] {
				if string(d.Key(prev)) == string(name) && !b.isNested(prev) {
					taken = true
					break
				}
			}
		}
		b.path = append(append(b.path[:base], '.'), name...)
		switch {
		case f != nil && !taken && f.Type.Kind == schema.Struct && d.Node(c).Kind == KindObject:
			if err := b.partial(d, f.Type, c, top); err != nil {
				return err
			}
			continue
		case f != nil && !taken && d.Fits(f.Type, c):
			continue
		}
		if b.strict {
			switch {
			case f == nil:
				return fmt.Errorf("field %q is not in the schema: %w", b.path, ErrSchemaMismatch)
			case taken:
				return fmt.Errorf("field %q appears twice: %w", b.path, ErrSchemaMismatch)
			}
			return fmt.Errorf("field %q: value %.40s is not a %s: %w", b.path, d.AppendJSON(nil, c), f.Type.Kind, ErrSchemaMismatch)
		}
		b.nested = append(b.nested, nestedExtra{top: top, key: string(b.path), parent: obj, node: c})
	}
	b.path = b.path[:base]
	return nil
}

// isNested reports whether member node c went to _extra from inside a
// struct column.
func (b *Builder) isNested(c int32) bool {
	for _, x := range b.nested {
		if x.node == c {
			return true
		}
	}
	return false
}

// member returns the member of object node obj that the struct field name
// holds in this row: the first of that name that did not go to _extra, or
// -1.
func (b *Builder) member(d *Doc, obj int32, name string) int32 {
	for _, c := range d.Children(obj) {
		if string(d.Key(c)) == name && (len(b.nested) == 0 || !b.isNested(c)) {
			return c
		}
	}
	return -1
}

// dottedExtra reports whether some top-level member without a column has a
// name with a dot, which could read as the path of a nested member.
func (b *Builder) dottedExtra(d *Doc) bool {
	for _, c := range b.extras {
		if bytes.IndexByte(d.Key(c), '.') >= 0 {
			return true
		}
	}
	return false
}

// settle makes sure that the key of every _extra member leads the encoder
// back to where the member was (see resolveExtraKey): a top-level name such
// as "meta.lang" next to a struct column meta, or a member "a.b" of meta
// next to its struct member a, would be put back in the wrong object. The
// top-level member such a key leads into goes to _extra whole instead, as
// it did before struct columns kept part of an object, until every key
// leads back.
func (b *Builder) settle(d *Doc, root int32) {
	type level struct {
		t   *schema.Type
		obj int32
	}
	descend := func(l level, name string) (level, bool) {
		f, i := l.t.Field(name)
		if f == nil || f.Type.Kind != schema.Struct {
			return l, false
		}
		var c int32
		if l.obj == root {
			c = b.slot[i]
		} else {
			c = b.member(d, l.obj, name)
		}
		if c < 0 || d.Node(c).Kind != KindObject {
			return l, false
		}
		return level{f.Type, c}, true
	}
	for {
		moved := -1
		check := func(key string, parent int32, name string, own int) {
			l, rest := resolveExtraKey(key, level{b.typ, root}, descend)
			if moved >= 0 || (l.obj == parent && rest == name) {
				return
			}
			moved = own
			if top, ok := splitTop(key, func(n string) bool { _, ok := descend(level{b.typ, root}, n); return ok }); ok {
				moved = b.index[top]
			}
		}
		for _, c := range b.extras {
			check(string(d.Key(c)), root, string(d.Key(c)), -1)
		}
		for _, x := range b.nested {
			check(x.key, x.parent, string(d.Key(x.node)), x.top)
		}
		if moved < 0 {
			return
		}
		// The field goes to _extra whole, its nested members with it.
		b.extras = append(b.extras, b.slot[moved])
		slices.Sort(b.extras)
		b.slot[moved] = -1
		b.nested = slices.DeleteFunc(b.nested, func(x nestedExtra) bool { return x.top == moved })
	}
}

// resolveExtraKey finds where the member an _extra key names belongs: from
// level l (the row), the shortest prefix of the key before a dot that names
// a struct present in the row (descend says which, and returns its level)
// is descended into, again and again; what is left is the member's name at
// the level reached. The builder and the encoder both resolve keys so.
func resolveExtraKey[L any](key string, l L, descend func(L, string) (L, bool)) (L, string) {
	start := 0
	for {
		next := -1
		for p := start; p < len(key); p++ {
			if key[p] != '.' {
				continue
			}
			if nl, ok := descend(l, key[start:p]); ok {
				l, next = nl, p+1
				break
			}
		}
		if next < 0 {
			return l, key[start:]
		}
		start = next
	}
}

// splitTop returns the first segment that resolveExtraKey descends into
// from the row (the top-level field a key leads into), if any.
func splitTop(key string, isStruct func(string) bool) (string, bool) {
	for p := 0; p < len(key); p++ {
		if key[p] == '.' && isStruct(key[:p]) {
			return key[:p], true
		}
	}
	return "", false
}
