package stages

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// textColumn finds the string column named field.
func textColumn(rec arrow.RecordBatch, field string) (*array.String, int, error) {
	idx := rec.Schema().FieldIndices(field)
	if len(idx) == 0 {
		return nil, -1, fmt.Errorf("no text column %q (use --text-field)", field)
	}
	col, ok := rec.Column(idx[0]).(*array.String)
	if !ok {
		return nil, -1, fmt.Errorf("column %q is %s, not a string", field, rec.Column(idx[0]).DataType())
	}
	return col, idx[0], nil
}

// checkTextField checks a schema has a string column named field.
func checkTextField(s *arrow.Schema, field string) error {
	idx := s.FieldIndices(field)
	if len(idx) == 0 {
		return fmt.Errorf("no text column %q in the input (columns: %v; use --text-field)", field, fieldNames(s))
	}
	if s.Field(idx[0]).Type.ID() != arrow.STRING {
		return fmt.Errorf("column %q is %s, not a string", field, s.Field(idx[0]).Type)
	}
	return nil
}

func fieldNames(s *arrow.Schema) []string {
	var names []string
	for _, f := range s.Fields() {
		names = append(names, f.Name)
	}
	return names
}

// valueBytes returns value i of col without copying it; the bytes belong
// to the column and must not be changed or kept.
func valueBytes(col *array.String, i int) []byte {
	offsets := col.ValueOffsets()
	base := offsets[0] // for a sliced array the offsets are absolute
	return col.ValueBytes()[offsets[i]-base : offsets[i+1]-base]
}
