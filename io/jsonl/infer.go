package jsonl

import "github.com/sluice-data/sluice/schema"

// Infer returns the schema type of node i; duplicate object members merge.
// An integer is an int, marked BigInt beyond ±2^53, and other numbers are
// floats. A number that neither an int64 nor a float64 can hold (see
// FloatFits) is JSON, so that its text is kept as it is.
func (d *Doc) Infer(i int32) *schema.Type {
	n := d.Node(i)
	switch n.Kind {
	case KindBool:
		return schema.Scalar(schema.Bool)
	case KindNumber:
		if n.IsInt {
			v, ok := d.Int64(i)
			switch {
			case !ok:
				return schema.Scalar(schema.JSON)
			case v > schema.MaxExactInt || v < -schema.MaxExactInt:
				return &schema.Type{Kind: schema.Int, BigInt: true}
			}
			return schema.Scalar(schema.Int)
		}
		if _, ok := d.FloatFits(i); ok {
			return schema.Scalar(schema.Float)
		}
		return schema.Scalar(schema.JSON)
	case KindString:
		return schema.Scalar(schema.String)
	case KindArray:
		var elem *schema.Type
		for _, c := range d.Children(i) {
			elem = schema.Merge(elem, d.Infer(c))
		}
		return &schema.Type{Kind: schema.List, Elem: elem}
	case KindObject:
		t := &schema.Type{Kind: schema.Struct}
		for _, c := range d.Children(i) {
			name := d.Key(c)
			ct := d.Infer(c)
			if f, j := t.Field(string(name)); f != nil {
				t.Fields[j].Type = schema.Merge(f.Type, ct)
			} else {
				t.Fields = append(t.Fields, schema.Field{Name: string(name), Type: ct})
			}
		}
		return t
	default:
		return schema.Scalar(schema.Null)
	}
}

// Fits reports whether node i can be stored in a column of type t without
// loss. Null fits every type; a number fits an int column when it is an
// integer within int64, a float column when FloatFits accepts it.
func (d *Doc) Fits(t *schema.Type, i int32) bool {
	n := d.Node(i)
	if n.Kind == KindNull {
		return true
	}
	switch t.Kind {
	case schema.JSON:
		return true
	case schema.Bool:
		return n.Kind == KindBool
	case schema.Int:
		_, ok := d.Int64(i)
		return ok
	case schema.Float:
		_, ok := d.FloatFits(i)
		return ok
	case schema.String:
		return n.Kind == KindString
	case schema.List:
		if n.Kind != KindArray {
			return false
		}
		for _, c := range d.Children(i) {
			if t.Elem == nil || !d.Fits(t.Elem, c) {
				return false
			}
		}
		return true
	case schema.Struct:
		if n.Kind != KindObject {
			return false
		}
		kids := d.Children(i)
		for j, c := range kids {
			f, _ := t.Field(unsafeString(d.Key(c)))
			if f == nil || !d.Fits(f.Type, c) {
				return false
			}
			for _, prev := range kids[:j] { // a duplicate member has no column of its own
				if string(d.Key(prev)) == string(d.Key(c)) {
					return false
				}
			}
		}
		return true
	default: // schema.Null: only null fits
		return false
	}
}

// HasDuplicateKeys reports whether any object in the tree under node i
// names a member twice. Such members cannot all have a column; everything
// else in a document fits the type that Infer gives it.
func (d *Doc) HasDuplicateKeys(i int32) bool {
	n := d.Node(i)
	if n.Kind != KindObject && n.Kind != KindArray {
		return false
	}
	kids := d.Children(i)
	for j, c := range kids {
		if n.Kind == KindObject {
			for _, prev := range kids[:j] {
				if string(d.Key(prev)) == string(d.Key(c)) {
					return true
				}
			}
		}
		if d.HasDuplicateKeys(c) {
			return true
		}
	}
	return false
}
