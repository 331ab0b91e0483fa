package jsonl

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/sluice-data/sluice/schema"
)

// Encoder writes record batches as JSON lines. Columns marked as JSON (see
// schema.EncodingKey) are written as the JSON text they hold, and the
// members of the _extra column are merged back into each row's object (a
// key that is a path, such as "meta.lang", into the struct it names), so
// JSONL → Parquet → JSONL gives back the values that went in.
type Encoder struct {
	cols     []plan
	names    []string // the top-level column names
	extraCol int
}

// plan says how to write the values of one column, mirroring its type:
// JSON columns are written as the text they hold.
type plan struct {
	name   []byte // quoted member name and colon
	raw    string // the member name
	json   bool
	struc  bool
	fields []plan // struct members
	elem   *plan  // list elements
}

// NewEncoder returns an encoder for batches of schema s.
func NewEncoder(s *arrow.Schema) *Encoder {
	e := &Encoder{extraCol: -1}
	paths := schema.JSONPaths(s)
	for i, f := range s.Fields() {
		if f.Name == schema.ExtraField {
			e.extraCol = i
		}
		e.cols = append(e.cols, makePlan(f, f.Name, paths))
		e.names = append(e.names, f.Name)
	}
	return e
}

func makePlan(f arrow.Field, path string, jsonPaths map[string]bool) plan {
	p := plan{name: append(AppendQuoted(nil, []byte(f.Name)), ':'), raw: f.Name, json: jsonPaths[path]}
	switch dt := f.Type.(type) {
	case *arrow.StructType:
		p.struc = true
		for _, c := range dt.Fields() {
			p.fields = append(p.fields, makePlan(c, path+"."+c.Name, jsonPaths))
		}
	case arrow.ListLikeType:
		elem := makePlan(dt.ElemField(), path+"[]", jsonPaths)
		p.elem = &elem
	}
	return p
}

// AppendBatch appends every row of rec to dst, one JSON object a line. A
// member kept in _extra because its value did not fit its column's type
// replaces that column's null, so no member is written twice; a member
// whose key is a path into a struct present in the row is written in that
// struct's object (see resolveExtraKey). AppendBatch is safe for
// concurrent use.
func (e *Encoder) AppendBatch(dst []byte, rec arrow.RecordBatch) []byte {
	cols := rec.Columns()
	var x *rowExtras // parses _extra, in the rows that have one
	for row := 0; row < int(rec.NumRows()); row++ {
		var extra string
		var top []int32 // the top-level members of a row's _extra
		if x != nil {
			x.nested = x.nested[:0]
		}
		if e.extraCol >= 0 {
			if ex := cols[e.extraCol].(*array.String); ex.IsValid(row) {
				extra = ex.Value(row)
				if x == nil {
					x = &rowExtras{}
				}
				top = x.split(e, cols, row, extra)
			}
		}
		var nested *rowExtras
		if x != nil && len(x.nested) > 0 {
			nested = x
		}
		dst = append(dst, '{')
		first := true
		for i, c := range cols {
			if i == e.extraCol || (len(top) > 0 && c.IsNull(row) && x.names(top, e.names[i])) {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(dst, e.cols[i].name...)
			dst = appendValue(dst, c, row, &e.cols[i], nested)
		}
		switch {
		case extra == "":
		case x.ok:
			for _, c := range top {
				if !first {
					dst = append(dst, ',')
				}
				first = false
				dst = x.appendMember(dst, x.doc.Key(c), c)
			}
		default:
			dst = appendMembers(dst, extra, !first)
		}
		dst = append(dst, '}', '\n')
	}
	return dst
}

// rowExtras holds the parsed _extra of one row: its members that go back
// into a struct column's object, by the plan of that struct.
type rowExtras struct {
	doc    Doc
	ok     bool // _extra is a JSON object
	top    []int32
	nested []nestedMember
}

type nestedMember struct {
	owner *plan
	name  string
	node  int32
}

// split parses the _extra text of row and returns its top-level members;
// the members whose keys lead into a struct column (resolveExtraKey) are
// kept in x.nested.
func (x *rowExtras) split(e *Encoder, cols []arrow.Array, row int, extra string) []int32 {
	x.top, x.nested = x.top[:0], x.nested[:0]
	root, err := x.doc.Parse(unsafeBytes(extra))
	x.ok = err == nil && x.doc.Node(root).Kind == KindObject
	if !x.ok {
		return nil
	}
	type level struct {
		owner  *plan
		plans  []plan
		arrays []arrow.Array
	}
	descend := func(l level, name string) (level, bool) {
		for j := range l.plans {
			p := &l.plans[j]
			if p.raw != name || !p.struc {
				continue
			}
			a, ok := l.arrays[j].(*array.Struct)
			if !ok || !a.IsValid(row) {
				return l, false
			}
			kids := make([]arrow.Array, a.NumField())
			for k := range kids {
				kids[k] = a.Field(k)
			}
			return level{p, p.fields, kids}, true
		}
		return l, false
	}
	for _, c := range x.doc.Children(root) {
		key := x.doc.Key(c)
		if bytes.IndexByte(key, '.') >= 0 {
			if l, name := resolveExtraKey(string(key), level{nil, e.cols, cols}, descend); l.owner != nil {
				x.nested = append(x.nested, nestedMember{l.owner, name, c})
				continue
			}
		}
		x.top = append(x.top, c)
	}
	return x.top
}

// names reports whether one of the members holds the column name.
func (x *rowExtras) names(members []int32, name string) bool {
	for _, c := range members {
		if string(x.doc.Key(c)) == name {
			return true
		}
	}
	return false
}

// holds reports whether a member of struct p's object is in _extra, and,
// when name is not empty, whether one of that name is.
func (x *rowExtras) holds(p *plan, name string) bool {
	for _, m := range x.nested {
		if m.owner == p && (name == "" || m.name == name) {
			return true
		}
	}
	return false
}

func (x *rowExtras) appendMember(dst, name []byte, c int32) []byte {
	dst = AppendQuoted(dst, name)
	dst = append(dst, ':')
	return x.doc.AppendJSON(dst, c)
}

// appendMembers appends the members of the JSON object text obj, with a
// leading comma when needed.
func appendMembers(dst []byte, obj string, comma bool) []byte {
	// obj is "{...}" as the builder wrote it; strip the braces.
	if len(obj) < 2 || obj == "{}" {
		return dst
	}
	if comma {
		dst = append(dst, ',')
	}
	return append(dst, obj[1:len(obj)-1]...)
}

// appendValue writes value i of arr, whose plan is p; x, when not nil,
// holds the row's _extra members that go back into struct objects.
func appendValue(dst []byte, arr arrow.Array, i int, p *plan, x *rowExtras) []byte {
	if arr.IsNull(i) {
		return append(dst, "null"...)
	}
	switch a := arr.(type) {
	case *array.String:
		if p.json {
			return appendJSONText(dst, a.Value(i))
		}
		return AppendQuoted(dst, unsafeBytes(a.Value(i)))
	case *array.LargeString:
		if p.json {
			return appendJSONText(dst, a.Value(i))
		}
		return AppendQuoted(dst, unsafeBytes(a.Value(i)))
	case *array.Int64:
		return strconv.AppendInt(dst, a.Value(i), 10)
	case *array.Int32:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10)
	case *array.Int16:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10)
	case *array.Int8:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10)
	case *array.Uint64:
		return strconv.AppendUint(dst, a.Value(i), 10)
	case *array.Uint32:
		return strconv.AppendUint(dst, uint64(a.Value(i)), 10)
	case *array.Uint16:
		return strconv.AppendUint(dst, uint64(a.Value(i)), 10)
	case *array.Uint8:
		return strconv.AppendUint(dst, uint64(a.Value(i)), 10)
	case *array.Float64:
		return appendFloat(dst, a.Value(i))
	case *array.Float32:
		return appendFloat(dst, float64(a.Value(i)))
	case *array.Float16:
		return appendFloat(dst, float64(a.Value(i).Float32()))
	case *array.Decimal32:
		return appendDecimal(dst, a.Value(i), a.DataType())
	case *array.Decimal64:
		return appendDecimal(dst, a.Value(i), a.DataType())
	case *array.Decimal128:
		return appendDecimal(dst, a.Value(i), a.DataType())
	case *array.Decimal256:
		return appendDecimal(dst, a.Value(i), a.DataType())
	case *array.Boolean:
		return strconv.AppendBool(dst, a.Value(i))
	case *array.Struct:
		dst = append(dst, '{')
		back := x != nil && x.holds(p, "")
		first := true
		for j := range p.fields {
			if back && a.Field(j).IsNull(i) && x.holds(p, p.fields[j].raw) {
				continue // the member in _extra takes the null's place
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(dst, p.fields[j].name...)
			dst = appendValue(dst, a.Field(j), i, &p.fields[j], x)
		}
		if back {
			for _, m := range x.nested {
				if m.owner == p {
					if !first {
						dst = append(dst, ',')
					}
					first = false
					dst = x.appendMember(dst, []byte(m.name), m.node)
				}
			}
		}
		return append(dst, '}')
	case array.ListLike:
		start, end := a.ValueOffsets(i)
		values := a.ListValues()
		dst = append(dst, '[')
		for j := start; j < end; j++ {
			if j > start {
				dst = append(dst, ',')
			}
			dst = appendValue(dst, values, int(j), p.elem, nil)
		}
		return append(dst, ']')
	default:
		// Other Arrow types only come from Parquet inputs; write their
		// JSON form as arrow-go renders it: ISO 8601 dates, times and
		// timestamps, canonical UUIDs, base64 binary.
		return AppendQuoted(dst, []byte(arr.ValueStr(i)))
	}
}

// appendJSONText writes the text of a JSON column as the JSON value it
// holds, compacted onto one line; text that is not valid JSON (a foreign
// file's JSON column may hold anything) is written as a string.
func appendJSONText(dst []byte, text string) []byte {
	buf := bytes.NewBuffer(dst)
	if err := json.Compact(buf, unsafeBytes(text)); err != nil || buf.Len() == len(dst) {
		return AppendQuoted(dst, unsafeBytes(text))
	}
	return buf.Bytes()
}

// appendDecimal writes a decimal as a JSON number with its exact digits
// and scale (1234.50), as JSON numbers may have any precision.
func appendDecimal(dst []byte, v interface{ ToString(int32) string }, dt arrow.DataType) []byte {
	return append(dst, v.ToString(dt.(arrow.DecimalType).GetScale())...)
}

// appendFloat writes f so that it reads back as the same float64 and stays
// a float (1.0, not 1). NaN and infinities, which JSON cannot hold, become
// null.
func appendFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'g', -1, 64)
	for _, c := range dst[start:] {
		if c == '.' || c == 'e' || c == 'E' {
			return dst
		}
	}
	return append(dst, '.', '0')
}

func unsafeBytes(s string) []byte {
	if s == "" {
		return nil
	}
	return unsafeSliceOf(s)
}
