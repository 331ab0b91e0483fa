package contam

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sluice-data/sluice/columnar"
	"github.com/sluice-data/sluice/internal/sidefile"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/jsonl"
	"github.com/sluice-data/sluice/io/pqio"
)

// EvalOptions say which parts of an evaluation row form its text and name it.
type EvalOptions struct {
	// Fields are the members, dotted paths for nested ones
	// ("passage.text"), whose values are joined, in this order, into the
	// example's text. Empty: every string and number value of the row but
	// the id.
	Fields  []string `json:"fields,omitempty"`
	IDField string   `json:"id_field"` // the member naming the example; its line number when absent
}

// Example is one evaluation example.
type Example struct {
	Set  int    // index into the sets
	ID   string // the id field's value, or the line (JSONL) or row (Parquet) number, from 1
	Line int64  // the line (JSONL) or row (Parquet) number, from 1
	Text string // the example's fields joined
}

// Key returns the name an example goes by in outputs: "set:id".
func (e Example) Key(sets []EvalSet) string { return sets[e.Set].Name + ":" + e.ID }

// EvalSet is one evaluation file.
type EvalSet struct {
	Name string `json:"name"` // the file name without directory and data suffix, or the path when two sets share it
	Path string `json:"path"`
}

// ErrNoFields is the cause reported for a row holding none of the fields.
var ErrNoFields = errors.New("none of the evaluation fields")

// ReadEvals reads every example of the evaluation files. A line that is
// not a JSON object, or a row without any of the fields, is an error naming
// the file and line: an example skipped would be contamination unseen.
func ReadEvals(files []input.File, o EvalOptions) ([]EvalSet, []Example, error) {
	sets := setNames(files)
	var examples []Example
	for i, f := range files {
		// The sets are held in memory: each is a bounded side file.
		if err := sidefile.Input(f, sidefile.EvalSet); err != nil {
			return nil, nil, err
		}
		var err error
		if f.Format == input.Parquet {
			examples, err = readParquet(f, i, o, examples)
		} else {
			examples, err = readJSONL(f, i, o, examples)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	return sets, examples, nil
}

// setNames names each file by its base name without data suffixes, or by
// its path where two files share a base name.
func setNames(files []input.File) []EvalSet {
	sets := make([]EvalSet, len(files))
	count := map[string]int{}
	for i, f := range files {
		name := filepath.Base(f.Label())
		for _, suffix := range []string{".gz", ".zst", ".jsonl", ".ndjson", ".json", ".parquet"} {
			name = strings.TrimSuffix(name, suffix)
		}
		sets[i] = EvalSet{Name: name, Path: f.Label()}
		count[name]++
	}
	for i := range sets {
		if count[sets[i].Name] > 1 {
			sets[i].Name = sets[i].Path
		}
	}
	return sets
}

func readJSONL(f input.File, set int, o EvalOptions, examples []Example) ([]Example, error) {
	s, err := input.Open(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Label(), err)
	}
	defer s.Close()
	lines := jsonl.NewLineReader(s, 0)
	var doc jsonl.Doc
	var text []byte
	for {
		line, err := lines.Next()
		if err == io.EOF {
			return examples, nil
		}
		where := func() string { return fmt.Sprintf("%s:%d", f.Label(), lines.Line()) } // for errors
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where(), err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		root, err := doc.Parse(line)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where(), err)
		}
		if doc.Node(root).Kind != jsonl.KindObject {
			return nil, fmt.Errorf("%s: an evaluation example is a JSON object", where())
		}
		ex := Example{Set: set, Line: lines.Line(), ID: strconv.FormatInt(lines.Line(), 10)}
		if id, ok := doc.Member(root, o.IDField); ok {
			if k := doc.Node(id).Kind; k == jsonl.KindString || k == jsonl.KindNumber {
				ex.ID = string(doc.Bytes(id))
			}
		}
		text = text[:0]
		if len(o.Fields) == 0 {
			for _, c := range doc.Children(root) {
				if string(doc.Key(c)) != o.IDField {
					text = appendJSONText(text, &doc, c)
				}
			}
		} else {
			found := false
			for _, field := range o.Fields {
				if v, ok := doc.Member(root, field); ok {
					found = true
					text = appendJSONText(text, &doc, v)
				}
			}
			if !found {
				return nil, fmt.Errorf("%s: %w %s", where(), ErrNoFields, strings.Join(o.Fields, ","))
			}
		}
		ex.Text = string(text)
		examples = append(examples, ex)
	}
}

// appendJSONText appends the strings and numbers of a value, each followed
// by a newline: objects and arrays give theirs in order.
func appendJSONText(dst []byte, doc *jsonl.Doc, node int32) []byte {
	switch doc.Node(node).Kind {
	case jsonl.KindString, jsonl.KindNumber:
		dst = append(dst, doc.Bytes(node)...)
		return append(dst, '\n')
	case jsonl.KindObject, jsonl.KindArray:
		for _, c := range doc.Children(node) {
			dst = appendJSONText(dst, doc, c)
		}
	}
	return dst
}

func readParquet(f input.File, set int, o EvalOptions, examples []Example) ([]Example, error) {
	mem := memory.NewGoAllocator()
	r, err := pqio.Open(mem, f.Path, 4096)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	s, err := r.Schema()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Label(), err)
	}
	var paths []string
	if len(o.Fields) == 0 {
		for _, fl := range s.Fields() {
			if fl.Name != o.IDField {
				paths = append(paths, fl.Name)
			}
		}
	} else {
		for _, field := range o.Fields {
			if _, err := columnar.MemberField(s, field); err == nil {
				paths = append(paths, field)
			}
		}
		if len(paths) == 0 {
			return nil, fmt.Errorf("%s: %w %s (columns: %s)", f.Label(), ErrNoFields, strings.Join(o.Fields, ","), columnNames(s))
		}
	}
	_, idErr := columnar.MemberField(s, o.IDField)
	hasID := o.IDField != "" && idErr == nil
	var row int64
	var text []byte
	for {
		rec, err := r.Next(context.Background())
		if err != nil {
			return nil, err
		}
		if rec == nil {
			return examples, nil
		}
		cols := make([]arrow.Array, len(paths))
		for i, p := range paths {
			cols[i], _ = columnar.Member(rec, p) // checked against the schema above
		}
		var ids arrow.Array
		if hasID {
			ids, _ = columnar.Member(rec, o.IDField)
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			row++
			ex := Example{Set: set, Line: row, ID: strconv.FormatInt(row, 10)}
			if ids != nil && ids.IsValid(i) {
				if id := scalarText(ids, i); id != "" {
					ex.ID = id
				}
			}
			text = text[:0]
			for _, c := range cols {
				text = appendArrowText(text, c, i)
			}
			ex.Text = string(text)
			examples = append(examples, ex)
		}
		rec.Release()
	}
}

func columnNames(s *arrow.Schema) string {
	names := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		names[i] = f.Name
	}
	return strings.Join(names, ",")
}

func scalarText(col arrow.Array, i int) string {
	switch a := columnar.Unmask(col).(type) {
	case *array.String:
		return a.Value(i)
	case *array.LargeString:
		return a.Value(i)
	case *array.Int64, *array.Int32, *array.Float64:
		return a.ValueStr(i)
	}
	return ""
}

// appendArrowText appends the strings and numbers of value i of col, each
// followed by a newline: structs and lists give theirs in order.
func appendArrowText(dst []byte, col arrow.Array, i int) []byte {
	if !col.IsValid(i) {
		return dst
	}
	switch a := columnar.Unmask(col).(type) {
	case *array.String:
		return append(append(dst, a.Value(i)...), '\n')
	case *array.LargeString:
		return append(append(dst, a.Value(i)...), '\n')
	case *array.Int8, *array.Int16, *array.Int32, *array.Int64, *array.Uint8, *array.Uint16, *array.Uint32,
		*array.Uint64, *array.Float32, *array.Float64:
		return append(append(dst, a.ValueStr(i)...), '\n')
	case *array.Struct:
		for f := 0; f < a.NumField(); f++ {
			dst = appendArrowText(dst, a.Field(f), i)
		}
	case array.ListLike:
		start, end := a.ValueOffsets(i)
		for j := start; j < end; j++ {
			dst = appendArrowText(dst, a.ListValues(), int(j))
		}
	}
	return dst
}
