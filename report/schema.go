package report

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/sluice-data/sluice/columnar"
	"github.com/sluice-data/sluice/io/pqio"
	"github.com/sluice-data/sluice/schema"
)

// Column is one row of the schema table.
type Column struct {
	Name     string
	Type     string
	Encoding string // a schema encoding note (json, ...), if any
	Nulls    int64
	HasNulls bool // the footers of all files count the nulls
	Rows     int64

	dt arrow.DataType
}

// readSchema reads the Arrow schema of the first data file and the null
// counts the footers of all data files record (no rows are read).
func (rep *Report) readSchema(r *Run) error {
	if len(r.data) == 0 {
		return nil
	}
	var cols map[string]*Column
	for i, path := range r.data {
		pr, err := pqio.Open(rep.opts.Mem, path, 1024)
		if err != nil {
			return err
		}
		if i == 0 {
			if cols, err = rep.schemaColumns(pr); err != nil {
				pr.Close()
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		footerNulls(pr.File(), cols)
		pr.Close()
	}
	return nil
}

// schemaColumns fills the schema table from the Arrow schema of one file
// and returns its rows by name. The table is whole before any pointer
// into it is taken: a pointer taken while it grows would point into an
// array that a later append left behind.
func (rep *Report) schemaColumns(pr *pqio.Reader) (map[string]*Column, error) {
	s, err := pr.Schema()
	if err != nil {
		return nil, err
	}
	for _, f := range s.Fields() {
		c := Column{Name: f.Name, Type: columnar.TypeName(f.Type), HasNulls: true, dt: f.Type}
		if k := f.Metadata.FindKey(schema.EncodingKey); k >= 0 {
			c.Encoding = f.Metadata.Values()[k]
		}
		rep.Schema = append(rep.Schema, c)
	}
	cols := make(map[string]*Column, len(rep.Schema))
	for i := range rep.Schema {
		cols[rep.Schema[i].Name] = &rep.Schema[i]
	}
	return cols, nil
}

// footerNulls adds the null counts of the top-level primitive columns of
// one file, from its row-group statistics; a column without them (nested,
// or statistics not written) loses its count.
func footerNulls(pf *file.Reader, cols map[string]*Column) {
	md := pf.MetaData()
	leaves := map[string][]int{}
	for j := 0; j < md.Schema.NumColumns(); j++ {
		path := md.Schema.Column(j).ColumnPath()
		leaves[path[0]] = append(leaves[path[0]], j)
	}
	for name, c := range cols {
		c.Rows += md.NumRows
		ls := leaves[name]
		if len(ls) != 1 || md.Schema.Column(ls[0]).MaxRepetitionLevel() > 0 || len(md.Schema.Column(ls[0]).ColumnPath()) != 1 {
			c.HasNulls = false
			continue
		}
		for g := 0; g < md.NumRowGroups(); g++ {
			cc, err := md.RowGroup(g).ColumnChunk(ls[0])
			if err != nil {
				c.HasNulls = false
				break
			}
			st, err := cc.Statistics()
			if err != nil || st == nil || !st.HasNullCount() {
				c.HasNulls = false
				break
			}
			c.Nulls += st.NullCount()
		}
	}
}

func (rep *Report) hasColumn(name string) bool {
	return rep.column(name) != nil
}

func (rep *Report) column(name string) *Column {
	for i := range rep.Schema {
		if rep.Schema[i].Name == name {
			return &rep.Schema[i]
		}
	}
	return nil
}

// detectSource finds a string column "source", or a string field "source"
// of a struct column "meta".
func (rep *Report) detectSource() string {
	if c := rep.column("source"); c != nil && isString(c.dt) {
		return "source"
	}
	if c := rep.column("meta"); c != nil {
		if st, ok := c.dt.(*arrow.StructType); ok {
			if i, ok := st.FieldIdx("source"); ok && isString(st.Field(i).Type) {
				return "meta.source"
			}
		}
	}
	return ""
}

func isString(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.STRING, arrow.LARGE_STRING:
		return true
	}
	return false
}
