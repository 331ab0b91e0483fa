package pqio

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/sluice-data/sluice/schema"
)

// Columns that other writers mark as JSON — the Parquet JSON logical type
// (DuckDB's JSON, Spark's and pyarrow's json columns), which pqarrow reads
// as binary, or Arrow's arrow.json extension type — are read as string
// columns and listed under schema.JSONPathsKey, exactly as sluice's own
// JSON columns are, so that they are written back as JSON values rather
// than as base64 or quoted text.

// readSchema returns the Arrow schema batches are read as: the file's,
// with its JSON columns turned into strings and their paths added to the
// schema metadata.
func readSchema(fr *pqarrow.FileReader, pf *file.Reader) (*arrow.Schema, error) {
	s, err := fr.Schema()
	if err != nil {
		return nil, err
	}
	if fr.Manifest == nil || len(fr.Manifest.Fields) != s.NumFields() {
		return s, nil
	}
	var paths []string
	fields := slices.Clone(s.Fields())
	descr := pf.MetaData().Schema
	for i := range fields {
		n := len(paths)
		fields[i] = jsonField(&fr.Manifest.Fields[i], fields[i], fields[i].Name, descr, &paths)
		if len(paths) > n && paths[n] == fields[i].Name && fields[i].Metadata.FindKey(schema.EncodingKey) < 0 {
			// A top-level JSON column is marked as sluice marks its own.
			keys := append(slices.Clone(fields[i].Metadata.Keys()), schema.EncodingKey)
			values := append(slices.Clone(fields[i].Metadata.Values()), "json")
			fields[i].Metadata = arrow.NewMetadata(keys, values)
		}
	}
	if len(paths) == 0 {
		return s, nil
	}
	md := s.Metadata()
	known := schema.JSONPaths(s)
	for _, p := range paths {
		known[p] = true
	}
	all := make([]string, 0, len(known))
	for p := range known {
		all = append(all, p)
	}
	slices.Sort(all)
	text, _ := json.Marshal(all)
	keys, values := slices.Clone(md.Keys()), slices.Clone(md.Values())
	if i := md.FindKey(schema.JSONPathsKey); i >= 0 {
		values[i] = string(text)
	} else {
		keys, values = append(keys, schema.JSONPathsKey), append(values, string(text))
	}
	out := arrow.NewMetadata(keys, values)
	return arrow.NewSchema(fields, &out), nil
}

// jsonField returns f with the JSON leaves under it turned into strings,
// appending their paths ("a", "a.b", "a[]") to paths.
func jsonField(sf *pqarrow.SchemaField, f arrow.Field, path string, descr *pqschema.Schema, paths *[]string) arrow.Field {
	if sf.IsLeaf() {
		switch dt := f.Type.(type) {
		case arrow.ExtensionType:
			if dt.ExtensionName() == "arrow.json" {
				f.Type = dt.StorageType()
				*paths = append(*paths, path)
			}
		case *arrow.BinaryType, *arrow.LargeBinaryType:
			if _, ok := descr.Column(sf.ColIndex).LogicalType().(pqschema.JSONLogicalType); ok {
				f.Type = arrow.BinaryTypes.String
				if dt.ID() == arrow.LARGE_BINARY {
					f.Type = arrow.BinaryTypes.LargeString
				}
				*paths = append(*paths, path)
			}
		}
		return f
	}
	switch dt := f.Type.(type) {
	case *arrow.StructType:
		if len(sf.Children) != dt.NumFields() {
			return f
		}
		kids := slices.Clone(dt.Fields())
		changed := false
		for i := range kids {
			k := jsonField(&sf.Children[i], kids[i], path+"."+kids[i].Name, descr, paths)
			changed = changed || !arrow.TypeEqual(k.Type, kids[i].Type)
			kids[i] = k
		}
		if changed {
			f.Type = arrow.StructOf(kids...)
		}
	case *arrow.ListType, *arrow.LargeListType, *arrow.FixedSizeListType:
		if len(sf.Children) != 1 {
			return f
		}
		old := dt.(arrow.ListLikeType).ElemField()
		elem := jsonField(&sf.Children[0], old, path+"[]", descr, paths)
		if arrow.TypeEqual(elem.Type, old.Type) {
			return f
		}
		switch dt := dt.(type) {
		case *arrow.ListType:
			f.Type = arrow.ListOfField(elem)
		case *arrow.LargeListType:
			f.Type = arrow.LargeListOfField(elem)
		case *arrow.FixedSizeListType:
			f.Type = arrow.FixedSizeListOfField(dt.Len(), elem)
		}
	}
	return f
}

// conform returns rec with schema s: the columns whose type differs (JSON
// leaves read as binary) are cast. The caller releases the result; rec is
// not released.
func conform(mem memory.Allocator, s *arrow.Schema, rec arrow.RecordBatch) arrow.RecordBatch {
	same := s.Metadata().Len() == 0 || rec.Schema().Metadata().Len() > 0
	for i, c := range rec.Columns() {
		same = same && arrow.TypeEqual(c.DataType(), s.Field(i).Type)
	}
	if same {
		rec.Retain()
		return rec
	}
	cols := make([]arrow.Array, rec.NumCols())
	for i, c := range rec.Columns() {
		cols[i] = castArray(mem, c, s.Field(i).Type)
	}
	out := array.NewRecordBatch(s, cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out
}

// castArray returns arr as type to, which differs from arr's type only in
// JSON leaves that are strings in to. The caller releases the result.
func castArray(mem memory.Allocator, arr arrow.Array, to arrow.DataType) arrow.Array {
	if arrow.TypeEqual(arr.DataType(), to) {
		arr.Retain()
		return arr
	}
	d := castData(mem, arr.Data(), to)
	defer d.Release()
	return array.MakeFromData(d)
}

func castData(mem memory.Allocator, d arrow.ArrayData, to arrow.DataType) arrow.ArrayData {
	if arrow.TypeEqual(d.DataType(), to) {
		d.Retain()
		return d
	}
	switch to.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		// Binary storage, or an arrow.json extension over strings: the
		// same buffers read as strings.
		return validUTF8(mem, array.NewData(to, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset()))
	}
	kids := d.Children()
	out := make([]arrow.ArrayData, len(kids))
	for i, k := range kids {
		var kt arrow.DataType
		switch to := to.(type) {
		case *arrow.StructType:
			kt = to.Field(i).Type
		case arrow.ListLikeType:
			kt = to.Elem()
		default:
			kt = k.DataType()
		}
		out[i] = castData(mem, k, kt)
	}
	nd := array.NewData(to, d.Len(), d.Buffers(), out, d.NullN(), d.Offset())
	for _, k := range out {
		k.Release()
	}
	return nd
}

// validUTF8 returns string data d as it is when every value is UTF-8, or
// else a copy with the bytes that are not replaced with U+FFFD (a writer
// that let them into a JSON column), since string columns hold UTF-8
// only. It takes over the caller's reference to d.
func validUTF8(mem memory.Allocator, d arrow.ArrayData) arrow.ArrayData {
	arr := array.MakeFromData(d)
	defer arr.Release()
	a, ok := arr.(interface {
		arrow.Array
		Value(int) string
	})
	if !ok {
		return d
	}
	valid := true
	for i := 0; i < a.Len() && valid; i++ {
		valid = a.IsNull(i) || utf8.ValidString(a.Value(i))
	}
	if valid {
		return d
	}
	defer d.Release()
	b := array.NewBuilder(mem, d.DataType())
	defer b.Release()
	sb := b.(interface{ Append(string) })
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			b.AppendNull()
			continue
		}
		sb.Append(strings.ToValidUTF8(a.Value(i), "\uFFFD"))
	}
	out := b.NewArray()
	defer out.Release()
	od := out.Data()
	od.Retain()
	return od
}
