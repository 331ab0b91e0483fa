package dataset

import (
	"encoding/base64"
	"strconv"
	"unicode/utf8"

	"github.com/sluice-data/sluice/io/jsonl"
)

// QuarantineEntry is one input line that could not become a row.
type QuarantineEntry struct {
	File   string
	Line   int64
	Offset int64
	Err    string
	Raw    []byte
}

// Quarantine writes quarantine.jsonl: one JSON object per unreadable line
// with keys file, line, offset, error and raw (the line as text), or
// raw_base64 when the line is not valid UTF-8. The file is created on the
// first entry, or at Close when always is set.
type Quarantine struct {
	path   string
	always bool
	af     *AtomicFile
	n      int64
	buf    []byte
}

// NewQuarantine returns a quarantine that writes to path.
func NewQuarantine(path string, always bool) *Quarantine {
	return &Quarantine{path: path, always: always}
}

// QuarantineFor returns the quarantine of target t: its side file, or
// t.Errs for a Stdout target.
func QuarantineFor(t Target) *Quarantine {
	if t.Kind == Stdout {
		return &Quarantine{path: "-", af: streamFile(t.Errs)}
	}
	return NewQuarantine(t.SidePath("quarantine.jsonl"), t.Kind == Directory)
}

// Add records one entry. A quarantine without a path only counts.
func (q *Quarantine) Add(e QuarantineEntry) error {
	if q.path == "" {
		q.n++
		return nil
	}
	if q.af == nil {
		af, err := CreateAtomic(q.path)
		if err != nil {
			return err
		}
		q.af = af
	}
	b := append(q.buf[:0], `{"file":`...)
	b = jsonl.AppendQuoted(b, []byte(e.File))
	b = append(b, `,"line":`...)
	b = strconv.AppendInt(b, e.Line, 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, e.Offset, 10)
	b = append(b, `,"error":`...)
	b = jsonl.AppendQuoted(b, []byte(e.Err))
	if utf8.Valid(e.Raw) {
		b = append(b, `,"raw":`...)
		b = jsonl.AppendQuoted(b, e.Raw)
	} else {
		b = append(b, `,"raw_base64":"`...)
		b = base64.StdEncoding.AppendEncode(b, e.Raw)
		b = append(b, '"')
	}
	b = append(b, '}', '\n')
	q.buf = b
	q.n++
	_, err := q.af.Write(b)
	return err
}

// Count returns the number of entries written.
func (q *Quarantine) Count() int64 { return q.n }

// Close commits the file. It returns the path, or "" when no file was
// written.
func (q *Quarantine) Close() (string, error) {
	if q.path == "" {
		return "", nil
	}
	if q.af == nil {
		if !q.always {
			return "", nil
		}
		af, err := CreateAtomic(q.path)
		if err != nil {
			return "", err
		}
		q.af = af
	}
	if err := q.af.Commit(); err != nil {
		return "", err
	}
	if q.af.f == nil {
		return "", nil // a stream: nothing to name
	}
	return q.path, nil
}

// Abort removes a partly written file.
func (q *Quarantine) Abort() {
	if q.af != nil {
		q.af.Abort()
	}
}
