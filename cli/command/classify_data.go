package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sluice-data/sluice/columnar"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/jsonl"
	"github.com/sluice-data/sluice/io/pqio"
	"github.com/sluice-data/sluice/kernels/fasttext"
)

// labelled is one example read for training or testing a classifier.
type labelled struct {
	labels []string
	text   []byte
	where  string // file:line (JSONL) or file:row (Parquet), for errors
}

// labelSource says where an example's labels come from: a field of each
// row, or one label for every row of a file.
type labelSource struct {
	textField  string
	labelField string // the field holding the label(s); "" with fixed
	anyScalar  bool   // --label-from: numbers and booleans become labels too
	fixed      string // every row's label
}

// errNoLabelField is the cause of an error for a dataset whose rows lack
// the label field.
var errNoLabelField = errors.New("no such label field")

// readLabelled reads every row of the files, calling fn with each example.
// A row without the text field, or without a label, is an error naming
// the file and line: training on it would be training on nothing.
func readLabelled(ctx context.Context, files []input.File, src labelSource, fn func(labelled) error) error {
	for _, f := range files {
		var err error
		switch f.Format {
		case input.Parquet:
			err = readLabelledParquet(ctx, f, src, fn)
		case input.WARC:
			err = fmt.Errorf("%s: a WARC file holds no labels; extract it first (sluice extract) and label the rows", f.Label())
		default:
			err = readLabelledJSONL(ctx, f, src, fn)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func readLabelledJSONL(ctx context.Context, f input.File, src labelSource, fn func(labelled) error) error {
	s, err := input.Open(f)
	if err != nil {
		return fmt.Errorf("%s: %w", f.Label(), err)
	}
	defer s.Close()
	lines := jsonl.NewLineReader(s, 0)
	var doc jsonl.Doc
	for n := 0; ; n++ {
		if n&4095 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		line, err := lines.Next()
		if err == io.EOF {
			return nil
		}
		where := fmt.Sprintf("%s:%d", f.Label(), lines.Line())
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		root, err := doc.Parse(line)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if doc.Node(root).Kind != jsonl.KindObject {
			return fmt.Errorf("%s: a row is a JSON object", where)
		}
		ex := labelled{where: where}
		text, ok := doc.Member(root, src.textField)
		if !ok || doc.Node(text).Kind != jsonl.KindString {
			if !ok {
				return fmt.Errorf("%s: no text field %q (--text-field)", where, src.textField)
			}
			if doc.Node(text).Kind != jsonl.KindNull {
				return fmt.Errorf("%s: text field %q is not a string", where, src.textField)
			}
		} else {
			ex.text = append([]byte(nil), doc.Bytes(text)...)
		}
		if src.labelField == "" {
			ex.labels = []string{src.fixed}
		} else {
			v, ok := doc.Member(root, src.labelField)
			if !ok {
				return fmt.Errorf("%s: %w %q (fields: %s)", where, errNoLabelField, src.labelField, jsonKeys(&doc, root))
			}
			if ex.labels, err = jsonLabels(&doc, v, src.anyScalar); err != nil {
				return fmt.Errorf("%s: field %q: %w", where, src.labelField, err)
			}
		}
		if err := fn(ex); err != nil {
			return err
		}
	}
}

func jsonKeys(doc *jsonl.Doc, node int32) string {
	var keys []string
	for _, c := range doc.Children(node) {
		keys = append(keys, string(doc.Key(c)))
	}
	return strings.Join(keys, ",")
}

// jsonLabels reads a label value: a string, a list of strings (several
// labels), or with anyScalar also a number or boolean.
func jsonLabels(doc *jsonl.Doc, v int32, anyScalar bool) ([]string, error) {
	switch doc.Node(v).Kind {
	case jsonl.KindString:
		return []string{string(doc.Bytes(v))}, nil
	case jsonl.KindNumber, jsonl.KindBool:
		if anyScalar && doc.Node(v).Kind == jsonl.KindBool {
			return []string{strconv.FormatBool(doc.Node(v).Bool)}, nil
		}
		if anyScalar {
			return []string{string(doc.Bytes(v))}, nil
		}
		return nil, errors.New("a label is a string (or a list of strings); --label-from takes numbers and booleans too")
	case jsonl.KindArray:
		var out []string
		for _, c := range doc.Children(v) {
			l, err := jsonLabels(doc, c, anyScalar)
			if err != nil || len(l) != 1 {
				return nil, errors.New("a list of labels holds strings only")
			}
			out = append(out, l[0])
		}
		if len(out) == 0 {
			return nil, errors.New("an empty list of labels")
		}
		return out, nil
	case jsonl.KindNull:
		return nil, errors.New("the label is null")
	}
	return nil, errors.New("a label is a string or a list of strings")
}

func readLabelledParquet(ctx context.Context, f input.File, src labelSource, fn func(labelled) error) error {
	r, err := pqio.Open(memory.NewGoAllocator(), f.Path, 4096)
	if err != nil {
		return err
	}
	defer r.Close()
	s, err := r.Schema()
	if err != nil {
		return fmt.Errorf("%s: %w", f.Label(), err)
	}
	if _, err := columnar.MemberField(s, src.textField); err != nil {
		return fmt.Errorf("%s: no text column %q (--text-field; columns: %s)", f.Label(), src.textField, schemaNames(s))
	}
	if src.labelField != "" {
		if _, err := columnar.MemberField(s, src.labelField); err != nil {
			return fmt.Errorf("%s: %w %q (columns: %s)", f.Label(), errNoLabelField, src.labelField, schemaNames(s))
		}
	}
	var row int64
	for {
		rec, err := r.Next(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Label(), err)
		}
		if rec == nil {
			return nil
		}
		texts, err := columnar.Member(rec, src.textField)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Label(), err)
		}
		var labels arrow.Array
		if src.labelField != "" {
			if labels, err = columnar.Member(rec, src.labelField); err != nil {
				return fmt.Errorf("%s: %w", f.Label(), err)
			}
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			row++
			ex := labelled{where: fmt.Sprintf("%s:row %d", f.Label(), row)}
			switch t := columnar.Unmask(texts).(type) {
			case *array.String:
				if t.IsValid(i) {
					ex.text = []byte(t.Value(i))
				}
			case *array.LargeString:
				if t.IsValid(i) {
					ex.text = []byte(t.Value(i))
				}
			default:
				return fmt.Errorf("%s: text column %q is %s, not a string", f.Label(), src.textField, texts.DataType())
			}
			if labels == nil {
				ex.labels = []string{src.fixed}
			} else if ex.labels, err = arrowLabels(labels, i, src.anyScalar); err != nil {
				return fmt.Errorf("%s: column %q: %w", ex.where, src.labelField, err)
			}
			if err := fn(ex); err != nil {
				rec.Release()
				return err
			}
		}
		rec.Release()
	}
}

func schemaNames(s *arrow.Schema) string {
	names := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		names[i] = f.Name
	}
	return strings.Join(names, ",")
}

func arrowLabels(col arrow.Array, i int, anyScalar bool) ([]string, error) {
	if !col.IsValid(i) {
		return nil, errors.New("the label is null")
	}
	switch a := columnar.Unmask(col).(type) {
	case *array.String:
		return []string{a.Value(i)}, nil
	case *array.LargeString:
		return []string{a.Value(i)}, nil
	case *array.Boolean:
		if anyScalar {
			return []string{strconv.FormatBool(a.Value(i))}, nil
		}
	case *array.Int8, *array.Int16, *array.Int32, *array.Int64, *array.Uint8, *array.Uint16, *array.Uint32, *array.Uint64:
		if anyScalar {
			return []string{a.ValueStr(i)}, nil
		}
	case array.ListLike:
		start, end := a.ValueOffsets(i)
		var out []string
		for j := start; j < end; j++ {
			l, err := arrowLabels(a.ListValues(), int(j), false)
			if err != nil {
				return nil, errors.New("a list of labels holds strings only")
			}
			out = append(out, l...)
		}
		if len(out) == 0 {
			return nil, errors.New("an empty list of labels")
		}
		return out, nil
	}
	return nil, fmt.Errorf("a label is a string or a list of strings, not %s (--label-from takes integers and booleans too)", col.DataType())
}

// checkLabels refuses a label fastText could not hold.
func checkLabels(ex labelled) error {
	for _, l := range ex.labels {
		if err := fasttext.CheckLabel(l); err != nil {
			return fmt.Errorf("%s: %w", ex.where, err)
		}
	}
	return nil
}
