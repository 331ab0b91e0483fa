package warc

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Errors that a RecordError wraps.
var (
	ErrBadHeader      = errors.New("malformed WARC header")
	ErrBadLength      = errors.New("block does not end where Content-Length says")
	ErrTruncated      = errors.New("record cut short by the end of the file")
	ErrTooLarge       = errors.New("record larger than the limit")
	ErrCorruptGzip    = errors.New("corrupt gzip data")
	ErrNotWARC        = errors.New("not a WARC record")
	ErrBadEncoding    = errors.New("HTTP body does not decode")
	errNoContentLen   = errors.New("no Content-Length")
	errBadVersionLine = errors.New("first line is not WARC/<version>")
)

// Field is one named field of a WARC header.
type Field struct {
	Name, Value string
}

// Header is a parsed WARC record header.
type Header struct {
	Version       string // "WARC/1.0", "WARC/1.1"
	Fields        []Field
	ContentLength int64
}

// Get returns the value of the first field named name, compared without
// regard to case, and "" when there is none.
func (h *Header) Get(name string) string {
	for i := range h.Fields {
		if strings.EqualFold(h.Fields[i].Name, name) {
			return h.Fields[i].Value
		}
	}
	return ""
}

// ParseHeader parses a WARC header: the version line and the named fields,
// without the blank line that ends them. Lines end in CRLF or LF; a line
// that starts with a space or tab continues the field before it. The
// Content-Length field must be present and a non-negative integer.
func ParseHeader(b []byte) (Header, error) {
	var h Header
	line, rest := cutLine(b)
	if !bytes.HasPrefix(line, []byte("WARC/")) || len(line) < 6 || len(line) > 16 {
		return h, fmt.Errorf("%w: %w", ErrBadHeader, errBadVersionLine)
	}
	h.Version = string(line)
	h.ContentLength = -1
	h.Fields = make([]Field, 0, 16)
	for len(rest) > 0 {
		line, rest = cutLine(rest)
		if len(line) == 0 {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			if len(h.Fields) == 0 {
				return h, fmt.Errorf("%w: continuation line before any field", ErrBadHeader)
			}
			f := &h.Fields[len(h.Fields)-1]
			f.Value += " " + string(bytes.TrimSpace(line))
			continue
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			return h, fmt.Errorf("%w: line %q has no field name", ErrBadHeader, clip(line))
		}
		name := bytes.TrimSpace(line[:colon])
		if len(name) == 0 || bytes.ContainsAny(name, " \t") {
			return h, fmt.Errorf("%w: bad field name %q", ErrBadHeader, clip(name))
		}
		f := Field{Name: string(name), Value: string(bytes.TrimSpace(line[colon+1:]))}
		h.Fields = append(h.Fields, f)
		if strings.EqualFold(f.Name, "Content-Length") && h.ContentLength < 0 {
			n, err := strconv.ParseInt(f.Value, 10, 64)
			if err != nil || n < 0 {
				return h, fmt.Errorf("%w: Content-Length %q", ErrBadHeader, clip([]byte(f.Value)))
			}
			h.ContentLength = n
		}
	}
	if h.ContentLength < 0 {
		return h, fmt.Errorf("%w: %w", ErrBadHeader, errNoContentLen)
	}
	return h, nil
}

// cutLine splits b after its first line, dropping the line's CRLF or LF.
func cutLine(b []byte) (line, rest []byte) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil
	}
	line, rest = b[:i], b[i+1:]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	return line, rest
}

// clip shortens b for an error message.
func clip(b []byte) []byte {
	if len(b) > 60 {
		return b[:60]
	}
	return b
}
