// Package schema describes the shape of a corpus's rows: a tree of typed
// fields that inference widens as it sees rows, that a user can write in a
// small JSON file, and that maps one to one onto an Arrow schema.
//
// Kinds widen as rows disagree: null gives way to anything, int widens to
// float (unless an integer is beyond ±2^53, which a float64 would round),
// and any other disagreement (a string here, an object there) makes the
// field a JSON column that holds each value's JSON text, so no value is
// ever lost to a type.
package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// Kind is the type of a field.
type Kind uint8

// The kinds a field can have.
const (
	Null Kind = iota // seen only as null so far; written as a string column
	Bool
	Int
	Float
	String
	JSON // mixed kinds: a string column of JSON texts
	Struct
	List
)

var kindNames = [...]string{"null", "bool", "int", "float", "string", "json", "struct", "list"}

func (k Kind) String() string { return kindNames[k] }

// Type is a node of the schema tree. Struct types have Fields in order of
// first appearance; List types have Elem.
type Type struct {
	Kind   Kind
	Fields []Field
	Elem   *Type
	// BigInt, on an Int type that inference made, records that some value
	// is beyond ±MaxExactInt: the field then cannot widen to float, which
	// would round such values, and meeting a float makes it JSON instead.
	// It is not part of the schema text.
	BigInt bool
}

// MaxExactInt is 2^53: a float64 holds every integer n with |n| <= 2^53
// exactly, and not every one beyond.
const MaxExactInt = 1 << 53

// Field is a named member of a struct type.
type Field struct {
	Name string
	Type *Type
}

// ExtraField is the column that holds, as a JSON object, the members of a row
// that the schema has no place for.
const ExtraField = "_extra"

// EncodingKey is the Arrow field metadata key that marks JSON columns.
const EncodingKey = "sluice.encoding"

// Scalar returns a type of a scalar kind.
func Scalar(k Kind) *Type { return &Type{Kind: k} }

// Field returns the field named name and its index, or nil and -1.
func (t *Type) Field(name string) (*Field, int) {
	for i := range t.Fields {
		if t.Fields[i].Name == name {
			return &t.Fields[i], i
		}
	}
	return nil, -1
}

// Merge returns the narrowest type that holds values of both a and b. It
// never modifies a or b.
func Merge(a, b *Type) *Type {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.Kind == Null:
		return b
	case b.Kind == Null:
		return a
	case a.Kind == JSON || b.Kind == JSON:
		return Scalar(JSON)
	case a.Kind == b.Kind && a.Kind == Struct:
		out := &Type{Kind: Struct, Fields: append([]Field(nil), a.Fields...)}
		for _, f := range b.Fields {
			if g, i := out.Field(f.Name); g != nil {
				out.Fields[i] = Field{Name: f.Name, Type: Merge(g.Type, f.Type)}
			} else {
				out.Fields = append(out.Fields, f)
			}
		}
		return out
	case a.Kind == b.Kind && a.Kind == List:
		return &Type{Kind: List, Elem: Merge(a.Elem, b.Elem)}
	case a.Kind == b.Kind:
		if a.Kind == Int && b.BigInt && !a.BigInt {
			return b
		}
		return a
	case (a.Kind == Int && b.Kind == Float) || (a.Kind == Float && b.Kind == Int):
		if a.BigInt || b.BigInt {
			return Scalar(JSON) // a float64 would round the big integers
		}
		return Scalar(Float)
	default:
		return Scalar(JSON)
	}
}

// Arrow returns the Arrow type of t.
func (t *Type) Arrow() arrow.DataType {
	switch t.Kind {
	case Bool:
		return arrow.FixedWidthTypes.Boolean
	case Int:
		return arrow.PrimitiveTypes.Int64
	case Float:
		return arrow.PrimitiveTypes.Float64
	case Struct:
		fields := make([]arrow.Field, len(t.Fields))
		for i, f := range t.Fields {
			fields[i] = f.Arrow()
		}
		return arrow.StructOf(fields...)
	case List:
		elem := t.Elem
		if elem == nil {
			elem = Scalar(Null)
		}
		return arrow.ListOfField(Field{Name: "element", Type: elem}.Arrow())
	default: // Null, String, JSON
		return arrow.BinaryTypes.String
	}
}

// Arrow returns the nullable Arrow field of f; JSON columns carry
// EncodingKey=json in their metadata.
func (f Field) Arrow() arrow.Field {
	af := arrow.Field{Name: f.Name, Type: f.Type.Arrow(), Nullable: true}
	if f.Type.Kind == JSON {
		af.Metadata = arrow.NewMetadata([]string{EncodingKey}, []string{"json"})
	}
	return af
}

// JSONPathsKey is the Arrow schema metadata key that lists the paths of
// JSON columns at any depth, as a JSON array of strings: "a" for a
// top-level column, "a.b" for a struct member, "a[]" for list elements.
// Unlike field metadata, schema metadata survives every Parquet reader.
const JSONPathsKey = "sluice.json_paths"

// ArrowSchema returns the Arrow schema of the top-level struct t, with the
// _extra column appended when withExtra is set.
func (t *Type) ArrowSchema(withExtra bool) *arrow.Schema {
	fields := make([]arrow.Field, 0, len(t.Fields)+1)
	var paths []string
	for _, f := range t.Fields {
		fields = append(fields, f.Arrow())
		paths = f.Type.jsonPaths(f.Name, paths)
	}
	if withExtra {
		fields = append(fields, arrow.Field{Name: ExtraField, Type: arrow.BinaryTypes.String, Nullable: true,
			Metadata: arrow.NewMetadata([]string{EncodingKey}, []string{"json"})})
		paths = append(paths, ExtraField)
	}
	if len(paths) == 0 {
		return arrow.NewSchema(fields, nil)
	}
	b, _ := json.Marshal(paths)
	md := arrow.NewMetadata([]string{JSONPathsKey}, []string{string(b)})
	return arrow.NewSchema(fields, &md)
}

func (t *Type) jsonPaths(path string, acc []string) []string {
	switch t.Kind {
	case JSON:
		return append(acc, path)
	case List:
		if t.Elem != nil {
			return t.Elem.jsonPaths(path+"[]", acc)
		}
	case Struct:
		for _, f := range t.Fields {
			acc = f.Type.jsonPaths(path+"."+f.Name, acc)
		}
	}
	return acc
}

// JSONPaths returns the set of JSON column paths recorded in s's metadata.
func JSONPaths(s *arrow.Schema) map[string]bool {
	out := map[string]bool{}
	md := s.Metadata()
	if i := md.FindKey(JSONPathsKey); i >= 0 {
		var paths []string
		if json.Unmarshal([]byte(md.Values()[i]), &paths) == nil {
			for _, p := range paths {
				out[p] = true
			}
		}
	}
	for _, f := range s.Fields() {
		if i := f.Metadata.FindKey(EncodingKey); i >= 0 && f.Metadata.Values()[i] == "json" {
			out[f.Name] = true
		}
	}
	return out
}

// WithoutExtra returns s without its _extra column (s itself when it has
// none), the column gone from the JSON paths of its metadata too.
func WithoutExtra(s *arrow.Schema) *arrow.Schema {
	i := s.FieldIndices(ExtraField)
	if len(i) == 0 {
		return s
	}
	fields := slices.Delete(slices.Clone(s.Fields()), i[0], i[0]+1)
	md := s.Metadata()
	keys, values := slices.Clone(md.Keys()), slices.Clone(md.Values())
	if k := md.FindKey(JSONPathsKey); k >= 0 {
		var paths []string
		if json.Unmarshal([]byte(values[k]), &paths) == nil {
			paths = slices.DeleteFunc(paths, func(p string) bool { return p == ExtraField })
			if len(paths) == 0 {
				keys, values = slices.Delete(keys, k, k+1), slices.Delete(values, k, k+1)
			} else {
				b, _ := json.Marshal(paths)
				values[k] = string(b)
			}
		}
	}
	if len(keys) == 0 {
		return arrow.NewSchema(fields, nil)
	}
	out := arrow.NewMetadata(keys, values)
	return arrow.NewSchema(fields, &out)
}

// FromArrow maps an Arrow type back onto a schema type; path is the
// column's path and jsonPaths the set JSONPaths returns. Types without a
// JSON counterpart (timestamps, decimals, binary...) are reported as errors
// naming the field.
func FromArrow(dt arrow.DataType, path string, jsonPaths map[string]bool) (*Type, error) {
	if jsonPaths[path] {
		return Scalar(JSON), nil
	}
	switch dt := dt.(type) {
	case *arrow.BooleanType:
		return Scalar(Bool), nil
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type,
		*arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type:
		return Scalar(Int), nil
	case *arrow.Float16Type, *arrow.Float32Type, *arrow.Float64Type:
		return Scalar(Float), nil
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		return Scalar(String), nil
	case *arrow.NullType:
		return Scalar(Null), nil
	case *arrow.StructType:
		out := &Type{Kind: Struct}
		for _, f := range dt.Fields() {
			ft, err := FromArrow(f.Type, path+"."+f.Name, jsonPaths)
			if err != nil {
				return nil, err
			}
			out.Fields = append(out.Fields, Field{Name: f.Name, Type: ft})
		}
		return out, nil
	case arrow.ListLikeType:
		et, err := FromArrow(dt.ElemField().Type, path+"[]", jsonPaths)
		if err != nil {
			return nil, err
		}
		return &Type{Kind: List, Elem: et}, nil
	default:
		return nil, fmt.Errorf("schema: field %q has Arrow type %s, which has no JSON form", path, dt)
	}
}

// FromArrowSchema maps a whole Arrow schema onto a top-level struct type.
// The _extra column, if present, is reported separately.
func FromArrowSchema(s *arrow.Schema) (t *Type, hasExtra bool, err error) {
	t = &Type{Kind: Struct}
	paths := JSONPaths(s)
	for _, f := range s.Fields() {
		if f.Name == ExtraField {
			hasExtra = true
			continue
		}
		ft, err := FromArrow(f.Type, f.Name, paths)
		if err != nil {
			return nil, false, err
		}
		t.Fields = append(t.Fields, Field{Name: f.Name, Type: ft})
	}
	return t, hasExtra, nil
}

// String renders t in the schema file format (see Parse).
func (t *Type) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t *Type) write(b *strings.Builder) {
	switch t.Kind {
	case Struct:
		b.WriteByte('{')
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "%q: ", f.Name)
			f.Type.write(b)
		}
		b.WriteByte('}')
	case List:
		b.WriteByte('[')
		if t.Elem == nil {
			b.WriteString(`"null"`)
		} else {
			t.Elem.write(b)
		}
		b.WriteByte(']')
	default:
		fmt.Fprintf(b, "%q", t.Kind.String())
	}
}

// Finalize returns t ready to be stored: nested structs with no fields
// (only empty objects were seen) become JSON columns, since Parquet has no
// empty groups. The top-level struct is kept as it is.
func Finalize(t *Type) *Type {
	out := &Type{Kind: t.Kind, Elem: t.Elem, BigInt: t.BigInt}
	if t.Elem != nil {
		out.Elem = finalize(t.Elem)
	}
	for _, f := range t.Fields {
		out.Fields = append(out.Fields, Field{Name: f.Name, Type: finalize(f.Type)})
	}
	return out
}

func finalize(t *Type) *Type {
	if t.Kind == Struct && len(t.Fields) == 0 {
		return Scalar(JSON)
	}
	return Finalize(t)
}
