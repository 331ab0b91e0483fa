package columnar

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// MemberField finds the field at a dotted path of s: a top-level column,
// or a member of struct columns ("meta.source").
func MemberField(s *arrow.Schema, path string) (arrow.Field, error) {
	parts := strings.Split(path, ".")
	idx := s.FieldIndices(parts[0])
	if len(idx) == 0 {
		names := make([]string, s.NumFields())
		for i, f := range s.Fields() {
			names[i] = f.Name
		}
		return arrow.Field{}, fmt.Errorf("no column %q (columns: %s)", parts[0], strings.Join(names, ", "))
	}
	f := s.Field(idx[0])
	for _, p := range parts[1:] {
		st, ok := f.Type.(*arrow.StructType)
		if !ok {
			return arrow.Field{}, fmt.Errorf("%q: %s is not a struct", path, f.Name)
		}
		child, ok := st.FieldByName(p)
		if !ok {
			return arrow.Field{}, fmt.Errorf("%q: %s has no member %q", path, f.Name, p)
		}
		f = child
	}
	return f, nil
}

// Member returns the array at a dotted path of rec (see MemberField). A
// member reads as null where a struct above it is null; Unmask gives the
// array its values are read from.
func Member(rec arrow.RecordBatch, path string) (arrow.Array, error) {
	if _, err := MemberField(rec.Schema(), path); err != nil {
		return nil, err
	}
	parts := strings.Split(path, ".")
	col := rec.Column(rec.Schema().FieldIndices(parts[0])[0])
	var parents []arrow.Array // the structs above col that have nulls
	for _, p := range parts[1:] {
		st := col.(*array.Struct)
		i, _ := st.DataType().(*arrow.StructType).FieldIdx(p)
		if st.NullN() > 0 {
			parents = append(parents, st)
		}
		col = st.Field(i)
	}
	if len(parents) > 0 {
		return &masked{Array: col, parents: parents}, nil
	}
	return col, nil
}

// masked reads a struct member as null where a struct above it is null.
type masked struct {
	arrow.Array
	parents []arrow.Array
}

func (m *masked) IsNull(i int) bool  { return m.parentNull(i) || m.Array.IsNull(i) }
func (m *masked) IsValid(i int) bool { return !m.IsNull(i) }

func (m *masked) parentNull(i int) bool {
	for _, p := range m.parents {
		if p.IsNull(i) {
			return true
		}
	}
	return false
}

// Unmask returns the array a Member view reads its values from (a itself
// for any other array). Check nulls on the view.
func Unmask(a arrow.Array) arrow.Array {
	if m, ok := a.(*masked); ok {
		return m.Array
	}
	return a
}

// TypeName renders an Arrow type without the "nullable" notes of its
// String method: struct<src: utf8, tags: list<utf8>>.
func TypeName(dt arrow.DataType) string {
	switch t := dt.(type) {
	case *arrow.StructType:
		parts := make([]string, t.NumFields())
		for i, f := range t.Fields() {
			parts[i] = f.Name + ": " + TypeName(f.Type)
		}
		return "struct<" + strings.Join(parts, ", ") + ">"
	case *arrow.MapType:
		return "map<" + TypeName(t.KeyType()) + ", " + TypeName(t.ItemType()) + ">"
	case arrow.ListLikeType:
		return t.Name() + "<" + TypeName(t.Elem()) + ">"
	default:
		return dt.String()
	}
}

// Column returns the top-level column of rec named name, or nil.
func Column(rec arrow.RecordBatch, name string) arrow.Array {
	if idx := rec.Schema().FieldIndices(name); len(idx) > 0 {
		return rec.Column(idx[0])
	}
	return nil
}

// ValueString returns row i of col as text: a string as it is, a number
// in decimal; "" for null or a nil column.
func ValueString(col arrow.Array, i int) string {
	if col == nil || col.IsNull(i) {
		return ""
	}
	return col.ValueStr(i)
}
