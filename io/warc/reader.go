package warc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxRecordBytes is the largest record a Reader keeps by default.
const DefaultMaxRecordBytes = 64 << 20

// maxHeaderBytes bounds a record header.
const maxHeaderBytes = 1 << 20

// Record is one WARC record. Block and the header's strings are valid
// until the next call to Next.
type Record struct {
	Header
	Block        []byte
	Offset       int64 // in the file (plain) or of the gzip member the record starts in
	StreamOffset int64 // in the decompressed stream
	Number       int64 // 1-based place among the file's records, good and bad
}

// RecordError is a record that could not be read. Reading goes on at the
// next record.
type RecordError struct {
	Offset       int64 // as Record.Offset
	StreamOffset int64
	Number       int64
	Err          error
	Raw          []byte // the start of the record's bytes, at most 1 KiB
}

func (e *RecordError) Error() string {
	if e.Offset != e.StreamOffset {
		return fmt.Sprintf("warc: record %d at byte %d (decompressed byte %d): %v", e.Number, e.Offset, e.StreamOffset, e.Err)
	}
	return fmt.Sprintf("warc: record %d at byte %d: %v", e.Number, e.Offset, e.Err)
}

func (e *RecordError) Unwrap() error { return e.Err }

// Options configure a Reader.
type Options struct {
	// MaxRecordBytes is the largest record kept; larger records are
	// skipped and reported as ErrTooLarge. 0 means DefaultMaxRecordBytes.
	MaxRecordBytes int64
}

// Reader reads the records of one WARC file, plain or gzip compressed. It
// is not safe for concurrent use.
type Reader struct {
	s          *stream
	opts       Options
	buf        []byte
	start, end int   // the unparsed bytes are buf[start:end]
	base       int64 // decompressed offset of buf[0]
	gapAt      int   // index in buf of a decompression gap, or -1
	gapErr     error
	eof        bool
	ioErr      error
	num        int64
	rec        Record
}

// NewReader returns a reader of the WARC file whose raw bytes r yields.
// A file that starts with the gzip magic number is decompressed.
func NewReader(r io.Reader, opts Options) (*Reader, error) {
	if opts.MaxRecordBytes <= 0 {
		opts.MaxRecordBytes = DefaultMaxRecordBytes
	}
	s, err := newStream(r)
	if err != nil {
		return nil, err
	}
	return &Reader{s: s, opts: opts, buf: make([]byte, 256<<10), gapAt: -1}, nil
}

// StreamErr returns the first decompression error met so far (a corrupt or
// truncated gzip member), or a read error of the underlying file. The
// records it damaged were also returned as RecordErrors.
func (r *Reader) StreamErr() error {
	if r.ioErr != nil {
		return r.ioErr
	}
	return r.s.lastErr
}

// RawOffset returns how many raw bytes of the file have been consumed.
func (r *Reader) RawOffset() int64 { return r.s.cr.n }

// Next returns the next record, a *RecordError for a record that could not
// be read (call Next again to go on), or io.EOF after the last record.
// Other errors come from reading the file and end it.
func (r *Reader) Next() (*Record, error) {
	// Records are separated by CRLF CRLF; tolerate any run of line ends.
	for {
		if r.end == r.start && !r.fill(1) {
			if r.gapAt >= 0 {
				r.clearGap()
				continue
			}
			if r.ioErr != nil {
				return nil, r.ioErr
			}
			return nil, io.EOF
		}
		if c := r.buf[r.start]; c != '\r' && c != '\n' {
			break
		}
		r.start++
	}
	r.num++
	return r.record()
}

// record reads the record at r.start.
func (r *Reader) record() (*Record, error) {
	r.fill(5)
	if !bytes.HasPrefix(r.window(), []byte("WARC/")) {
		return nil, r.fail(1, ErrNotWARC)
	}
	hdrLen := r.headerEnd()
	if hdrLen < 0 {
		if r.end-r.start > maxHeaderBytes {
			return nil, r.fail(1, fmt.Errorf("%w: header longer than %d bytes", ErrBadHeader, maxHeaderBytes))
		}
		return nil, r.fail(1, fmt.Errorf("%w: the header does not end", ErrTruncated))
	}
	h, err := ParseHeader(r.window()[:hdrLen])
	if err != nil {
		return nil, r.fail(1, err)
	}
	if h.ContentLength > r.opts.MaxRecordBytes {
		e := r.newError(fmt.Errorf("%w: Content-Length %d, limit %d", ErrTooLarge, h.ContentLength, r.opts.MaxRecordBytes))
		r.start += hdrLen
		r.skip(h.ContentLength)
		return nil, e
	}
	blockEnd := hdrLen + int(h.ContentLength)
	complete := r.fill(blockEnd + 4)
	w := r.window()
	switch {
	case len(w) >= blockEnd+4 && string(w[blockEnd:blockEnd+4]) == "\r\n\r\n":
	case len(w) >= blockEnd+2 && string(w[blockEnd:blockEnd+2]) == "\n\n":
	case !complete && r.gapAt < 0 && len(w) >= blockEnd && onlyLineEnds(w[blockEnd:]):
		// The file ends right after the block: nothing is missing.
	default:
		cause := ErrBadLength
		if len(w) < blockEnd {
			cause = ErrTruncated
		}
		return nil, r.fail(hdrLen, fmt.Errorf("%w (Content-Length %d)", cause, h.ContentLength))
	}
	r.rec = Record{Header: h, Block: w[hdrLen:blockEnd:blockEnd], Number: r.num}
	r.rec.StreamOffset = r.base + int64(r.start)
	r.rec.Offset = r.s.memberAt(r.rec.StreamOffset)
	r.start += blockEnd
	return &r.rec, nil
}

// headerEnd returns the length of the header at r.start including the
// blank line that ends it, reading more as needed, or -1.
func (r *Reader) headerEnd() int {
	from := 0
	for {
		w := r.window()
		for i := from; i < len(w); {
			j := bytes.IndexByte(w[i:], '\n')
			if j < 0 {
				break
			}
			i += j + 1
			if i < len(w) && w[i] == '\n' {
				return i + 1
			}
			if i+1 < len(w) && w[i] == '\r' && w[i+1] == '\n' {
				return i + 2
			}
		}
		if len(w) > maxHeaderBytes {
			return -1
		}
		from = max(0, len(w)-2)
		if !r.fill(len(w) + 64<<10) {
			if len(r.window()) == len(w) {
				return -1
			}
		}
	}
}

// fail makes the error for the record at r.start and moves r.start to the
// next place a record may start, searching from offset from.
func (r *Reader) fail(from int, cause error) error {
	e := r.newError(cause)
	r.start += r.resync(from)
	return e
}

func (r *Reader) newError(cause error) *RecordError {
	e := &RecordError{StreamOffset: r.base + int64(r.start), Number: r.num, Err: cause}
	e.Offset = r.s.memberAt(e.StreamOffset)
	w := r.window()
	e.Raw = bytes.Clone(w[:min(len(w), 1024)])
	return e
}

var recordStart = []byte("\nWARC/1.")

// resync returns the offset from r.start of the next line that starts
// "WARC/1." at or after from, reading on as needed; when the data ends (at
// the end of the file, at a decompression gap, or after MaxRecordBytes)
// first, it returns the length of the data and clears the gap.
func (r *Reader) resync(from int) int {
	from = max(from-1, 0)
	for {
		w := r.window()
		if i := bytes.Index(w[min(from, len(w)):], recordStart); i >= 0 {
			return from + i + 1
		}
		from = max(from, len(w)-len(recordStart)+1)
		if int64(len(w)) > r.opts.MaxRecordBytes || !r.fill(len(w)+256<<10) {
			if w = r.window(); bytes.Contains(w[min(from, len(w)):], recordStart) {
				continue
			}
			if r.gapAt >= 0 {
				r.clearGap() // the next record starts after the gap
			}
			return len(w)
		}
	}
}

// skip drops n bytes of the stream from r.start, without buffering them.
func (r *Reader) skip(n int64) {
	for n > 0 {
		if r.end == r.start {
			r.base += int64(r.start)
			r.start, r.end = 0, 0
			if !r.fill(1) {
				return
			}
		}
		k := min(n, int64(r.end-r.start))
		r.start += int(k)
		n -= k
	}
}

func (r *Reader) window() []byte { return r.buf[r.start:r.end] }

func (r *Reader) clearGap() {
	r.gapAt, r.gapErr = -1, nil
}

// fill reads until n bytes from r.start are buffered. It returns false
// when the data ends first: at the end of the file or at a gap.
func (r *Reader) fill(n int) bool {
	for r.end-r.start < n {
		if r.gapAt >= 0 || r.eof {
			return false
		}
		if len(r.buf)-r.end < 32<<10 || len(r.buf)-r.start < n {
			r.makeRoom(n)
		}
		m, err := r.s.Read(r.buf[r.end:])
		r.end += m
		if err != nil {
			var g *gap
			switch {
			case errors.As(err, &g):
				r.gapAt, r.gapErr = r.end, g.err
			case err == io.EOF:
				r.eof = true
			default:
				r.eof, r.ioErr = true, err
			}
		}
	}
	return true
}

// makeRoom moves the unparsed bytes to the front of the buffer and grows
// it so that it holds n of them and more.
func (r *Reader) makeRoom(n int) {
	if r.start > 0 {
		copy(r.buf, r.buf[r.start:r.end])
		r.base += int64(r.start)
		r.end -= r.start
		if r.gapAt >= 0 {
			r.gapAt -= r.start
		}
		r.start = 0
	}
	if want := n + 64<<10; len(r.buf) < want {
		nb := make([]byte, max(want, 2*len(r.buf)))
		copy(nb, r.buf[:r.end])
		r.buf = nb
	}
}

func onlyLineEnds(b []byte) bool {
	for _, c := range b {
		if c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}
