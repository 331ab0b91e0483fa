package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// ErrLineTooLong is the cause reported for a line longer than the limit.
var ErrLineTooLong = errors.New("line too long")

// DefaultMaxLineBytes is the default longest line a reader accepts.
const DefaultMaxLineBytes = 512 << 20

// LineReader reads newline-terminated lines of any length up to a limit.
// Unlike bufio.Scanner it has no 64 KB ceiling: a longer line is assembled
// in a growing buffer.
type LineReader struct {
	br      *bufio.Reader
	max     int
	long    []byte
	line    int64
	offset  int64
	lastOff int64
	started bool // the start of the input has been checked for a BOM
}

// utf8BOM is the UTF-8 byte order mark that some editors write at the
// start of a file.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// NewLineReader reads lines of at most max bytes from r.
func NewLineReader(r io.Reader, max int) *LineReader {
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	return &LineReader{br: bufio.NewReaderSize(r, 1<<20), max: max}
}

// StartAt numbers the lines from line on, the first at byte offset: the
// reader reads a split of a file that starts there (a line boundary past
// the start, where no byte order mark is looked for). Call it before Next.
func (l *LineReader) StartAt(line, offset int64) {
	l.line, l.offset, l.lastOff = line-1, offset, offset
	l.started = offset > 0
}

// Line returns the 1-based number of the line last returned by Next.
func (l *LineReader) Line() int64 { return l.line }

// Offset returns the byte offset of the start of the line last returned:
// 0 for line 1, even when a BOM was stripped from it.
func (l *LineReader) Offset() int64 { return l.lastOff }

// Next returns the next line without its line terminator (\n or \r\n). The
// slice is valid until the next call. At the end of input it returns io.EOF;
// a final line without a newline is returned first. A line over the limit
// is skipped to its end and reported as an error wrapping ErrLineTooLong,
// with the returned slice holding its first bytes; reading may go on. A
// UTF-8 byte order mark at the very start of the input is not part of line
// 1; it still counts in the offsets of the lines after it.
func (l *LineReader) Next() ([]byte, error) {
	l.lastOff = l.offset
	if !l.started {
		l.started = true
		if b, _ := l.br.Peek(len(utf8BOM)); bytes.Equal(b, utf8BOM) {
			l.br.Discard(len(utf8BOM))
			l.offset += int64(len(utf8BOM))
		}
	}
	l.line++
	b, err := l.br.ReadSlice('\n')
	if err == nil {
		l.offset += int64(len(b))
		return l.checked(trimEOL(b), nil)
	}
	if err != bufio.ErrBufferFull {
		l.offset += int64(len(b))
		if len(b) > 0 {
			if err == io.EOF {
				err = nil
			}
			return l.checked(trimEOL(b), err)
		}
		l.line--
		return nil, err
	}
	// A long line: gather it in l.long.
	l.long = append(l.long[:0], b...)
	l.offset += int64(len(b))
	tooLong := false
	for {
		b, err = l.br.ReadSlice('\n')
		l.offset += int64(len(b))
		if !tooLong {
			if len(l.long)+len(b) > l.max {
				tooLong = true
				keep := 1024 - len(l.long)
				if keep > 0 {
					l.long = append(l.long, b[:min(keep, len(b))]...)
				}
			} else {
				l.long = append(l.long, b...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if tooLong {
			if err == nil || err == io.EOF {
				err = nil
			}
			return l.long[:min(len(l.long), 1024)], errors.Join(ErrLineTooLong, err)
		}
		if err == io.EOF {
			err = nil
		}
		return trimEOL(l.long), err
	}
}

// checked reports a line that fits the read buffer but not the limit.
func (l *LineReader) checked(line []byte, err error) ([]byte, error) {
	if len(line) > l.max {
		return line[:min(len(line), 1024)], errors.Join(ErrLineTooLong, err)
	}
	return line, err
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}
