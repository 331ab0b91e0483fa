package tasks

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
)

// ConvertOptions configure ConvertFiles.
type ConvertOptions struct {
	// From is the input format, or Auto to take each file's from its first
	// line of a known shape.
	From Format `json:"from"`
	// To is Chat, Instruction or Completion for JSONL output; ignored for
	// a Parquet target.
	To Format `json:"to"`
	// System is the system prompt given to examples that have none; empty
	// for none.
	System string `json:"system,omitempty"`
	// SkipInvalid sends lines with errors to the quarantine instead of
	// stopping at the first.
	SkipInvalid  bool            `json:"skip_invalid"`
	Overwrite    bool            `json:"overwrite"`
	MaxLineBytes int             `json:"max_line_bytes,omitempty"`
	BatchRows    int             `json:"batch_rows"` // Parquet: examples per row group; 0 means 4096
	Output       dataset.Options `json:"output"`
}

// ConvertFiles converts task files into one output: a .jsonl file of
// format o.To, or a .parquet file of ParquetSchema. The output, its
// manifest and its quarantine (with o.SkipInvalid) are written atomically:
// on an error nothing is left. A line with an error stops the conversion
// (naming the file, line and problem) unless o.SkipInvalid is set; an
// example the target cannot hold always does (a LossError).
func ConvertFiles(ctx context.Context, files []input.File, out string, o ConvertOptions, command []string, version string) (*dataset.Manifest, error) {
	start := time.Now()
	mem := memory.DefaultAllocator
	final := dataset.ParseTarget(out)
	if final.Kind == dataset.JSONLFile && (final.Compression != input.None || o.To == Auto || o.To == ShareGPT) {
		return nil, fmt.Errorf("tasks: %s: JSONL output is a plain .jsonl file in the chat, instruction or completion format", out)
	}
	if final.Kind != dataset.JSONLFile && final.Kind != dataset.ParquetFile {
		return nil, fmt.Errorf("tasks: %s: the output is one .jsonl or .parquet file", out)
	}
	if o.BatchRows <= 0 {
		o.BatchRows = 4096
	}
	output, err := dataset.Begin(ctx, final, o.Overwrite)
	if err != nil {
		return nil, err
	}
	defer output.Abort() // after Commit it does nothing
	t := output.Target()
	w, err := dataset.NewWriter(mem, t, ParquetSchema, o.Output)
	if err != nil {
		return nil, err
	}
	q := dataset.NewQuarantine(t.SidePath("quarantine.jsonl"), false)
	m := &dataset.Manifest{Tool: "sluice", Version: version, Command: command, Options: o,
		Started: start.UTC().Format(time.RFC3339)}
	if err := convertLines(ctx, files, t, o, w, q, m); err != nil {
		w.Abort()
		q.Abort()
		return nil, err
	}
	if m.Outputs, err = w.Close(); err != nil {
		return nil, err
	}
	qpath, err := q.Close()
	if err != nil {
		return nil, err
	}
	if qpath != "" {
		m.Side = map[string]string{"quarantine": qpath}
	}
	m.WallSecs = time.Since(start).Seconds()
	if err := m.Counts.Check(); err != nil {
		return nil, err
	}
	return m, output.Commit(m)
}

func convertLines(ctx context.Context, files []input.File, t dataset.Target, o ConvertOptions, w *dataset.Writer, q *dataset.Quarantine, m *dataset.Manifest) error {
	mem := memory.DefaultAllocator
	src := newLineSource(files, o.MaxLineBytes)
	chk := newLineChecker(o.From, nil, &CheckOptions{})
	formats := fileFormats{given: o.From}
	conv := exampleConverter{to: o.To}
	if o.System != "" {
		conv.system = []byte(o.System)
	}
	var mb *messageBuilder
	if t.Kind == dataset.ParquetFile {
		mb = newMessageBuilder(mem)
		defer mb.release()
	}
	var buf []byte
	var rows int64
	flush := func() error {
		var p dataset.Piece
		if mb != nil {
			if mb.len() == 0 {
				return nil
			}
			rec := mb.batch()
			defer rec.Release()
			var err error
			if p, err = w.Encode(mem, rec); err != nil {
				return err
			}
		} else {
			if len(buf) == 0 {
				return nil
			}
			p = dataset.Piece{Data: buf, Rows: rows}
			buf, rows = nil, 0 // the writer recycles the buffer
		}
		m.Counts.RowsOut += p.Rows
		return w.Write(p)
	}
	var r lineResult
	for {
		ref, line, ok, err := src.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		m.Counts.RowsIn++
		var ex *Example
		var prob problem
		bad := ref.Err != nil
		if bad {
			prob = problem{NotJSON, ref.Err.Error()}
		} else {
			ex = chk.check(line, &r)
			if p, mixed := formats.mixed(ref.File, r.format); mixed {
				prob, bad = p, true
			} else {
				prob, bad = firstError(r.problems)
			}
		}
		if bad {
			is := Issue{File: src.name(ref), Line: ref.Line, Kind: prob.kind, Msg: prob.msg}
			if !o.SkipInvalid {
				return fmt.Errorf("%v (sluice tasks validate lists every problem; --skip-invalid quarantines such lines)", is)
			}
			m.Counts.Quarantined++
			if err := q.Add(dataset.QuarantineEntry{File: is.File, Line: ref.Line, Offset: ref.Offset,
				Err: prob.kind.String() + ": " + prob.msg, Raw: line}); err != nil {
				return err
			}
			continue
		}
		if mb != nil {
			turns, err := conv.plainTurns(ex)
			if err != nil {
				return fmt.Errorf("%s:%d: cannot convert to parquet: %w", src.name(ref), ref.Line, err)
			}
			mb.add(turns, chk.p.Doc(), ex)
			if mb.len() >= o.BatchRows {
				if err := flush(); err != nil {
					return err
				}
			}
			continue
		}
		if buf, err = conv.appendLine(buf, chk.p.Doc(), ex); err != nil {
			return fmt.Errorf("%s:%d: cannot convert %s to %s: %w", src.name(ref), ref.Line, ex.Format, o.To, err)
		}
		buf = append(buf, '\n')
		rows++
		if len(buf) >= 1<<20 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	inputs, err := src.inputs()
	m.Inputs = inputs
	return err
}
