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
// members of the _extra column are merged back into each row's object, so
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
	json   bool
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
	p := plan{name: append(AppendQuoted(nil, []byte(f.Name)), ':'), json: jsonPaths[path]}
	switch dt := f.Type.(type) {
	case *arrow.StructType:
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
// replaces that column's null, so no member is written twice. AppendBatch
// is safe for concurrent use.
func (e *Encoder) AppendBatch(dst []byte, rec arrow.RecordBatch) []byte {
	cols := rec.Columns()
	var doc *Doc       // parses _extra, in the rows that have one
	var moved [][]byte // the member names of a row's _extra
	for row := 0; row < int(rec.NumRows()); row++ {
		var extra string
		moved = moved[:0]
		if e.extraCol >= 0 {
			if x := cols[e.extraCol].(*array.String); x.IsValid(row) {
				extra = x.Value(row)
				if doc == nil {
					doc = &Doc{}
				}
				moved = memberNames(doc, extra, moved)
			}
		}
		dst = append(dst, '{')
		first := true
		for i, c := range cols {
			if i == e.extraCol || (len(moved) > 0 && c.IsNull(row) && hasName(moved, e.names[i])) {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(dst, e.cols[i].name...)
			dst = appendValue(dst, c, row, &e.cols[i])
		}
		if extra != "" {
			dst = appendMembers(dst, extra, !first)
		}
		dst = append(dst, '}', '\n')
	}
	return dst
}

// memberNames appends the member names of the JSON object text obj.
func memberNames(doc *Doc, obj string, dst [][]byte) [][]byte {
	root, err := doc.Parse([]byte(obj))
	if err != nil || doc.Node(root).Kind != KindObject {
		return dst
	}
	for _, c := range doc.Children(root) {
		dst = append(dst, doc.Key(c))
	}
	return dst
}

func hasName(names [][]byte, name string) bool {
	for _, n := range names {
		if string(n) == name {
			return true
		}
	}
	return false
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

func appendValue(dst []byte, arr arrow.Array, i int, p *plan) []byte {
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
		for j := range p.fields {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, p.fields[j].name...)
			dst = appendValue(dst, a.Field(j), i, &p.fields[j])
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
			dst = appendValue(dst, values, int(j), p.elem)
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
