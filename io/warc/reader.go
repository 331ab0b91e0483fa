package warc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
)

// DefaultMaxRecordBytes is the largest record a Reader keeps by default.
const DefaultMaxRecordBytes = 64 << 20

// maxHeaderBytes bounds a record header.
const maxHeaderBytes = 1 << 20

// checkAhead bounds how far past a record's block the reader reads in a
// compressed file to see the gzip member holding the block pass its CRC
// and size checks. With one member per record the member ends right
// after the record; a member holding many records usually ends farther
// on, and its records are returned before it is checked (StreamErr reports
// it if it then fails).
const checkAhead = 64 << 10

// Record is one WARC record. Block and the header's strings are valid
// until the next call to Next.
type Record struct {
	Header
	Block        []byte
	Offset       int64  // in the file (plain) or of the gzip member the record starts in
	StreamOffset int64  // in the decompressed stream
	Number       int64  // 1-based place among the file's records, good and bad
	head         []byte // the start of the record's bytes, at most 1 KiB
}

// errorf returns a RecordError for rec, a record that was read but cannot
// be kept.
func (rec *Record) errorf(cause error) *RecordError {
	return &RecordError{Offset: rec.Offset, StreamOffset: rec.StreamOffset, Number: rec.Number, Err: cause,
		Raw: bytes.Clone(rec.head)}
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

// with returns a copy of e with another cause.
func (e *RecordError) with(cause error) *RecordError {
	c := *e
	c.Err = cause
	return &c
}

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
	start, end int    // the unparsed bytes are buf[start:end]
	base       int64  // decompressed offset of buf[0]
	gapAt      int    // index in buf of a decompression gap, or -1
	spoilt     spoilt // the bytes the last gap spoilt
	eof        bool
	ioErr      error
	fileErr    error // the first damage that may have lost records
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

// spoilt is a stretch [from, to) of the decompressed stream that came
// from a damaged gzip member, and the member's error.
type spoilt struct {
	from, to int64
	err      error
}

// StreamErr returns the error of the file as a whole, when it is damaged
// in a way that may lose records rather than only spoil some: a read error
// of the underlying file, else the first decompression error (a corrupt or
// truncated gzip member), else the first record the file ends inside (a
// truncated file) or whose Content-Length could not be skipped to the
// next record. The records it damaged were also returned as RecordErrors.
// A caller that must account for every record treats a non-nil StreamErr
// as a failed read of the file.
func (r *Reader) StreamErr() error {
	switch {
	case r.ioErr != nil:
		return r.ioErr
	case r.s.lastErr != nil:
		return r.s.lastErr
	}
	return r.fileErr
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
		return nil, r.cut(1, "the header does not end")
	}
	h, err := ParseHeader(r.window()[:hdrLen])
	if err != nil {
		return nil, r.fail(1, err)
	}
	if h.ContentLength > r.opts.MaxRecordBytes {
		return nil, r.skipRecord(hdrLen, h.ContentLength)
	}
	blockEnd := hdrLen + int(h.ContentLength)
	complete := r.fill(blockEnd + 4)
	r.check(blockEnd)
	if err := r.spoilage(blockEnd); err != nil {
		return nil, r.fail(hdrLen, err)
	}
	w := r.window()
	switch {
	case r.endsAt(blockEnd, complete):
	case len(w) < blockEnd:
		return nil, r.cut(hdrLen, fmt.Sprintf("Content-Length %d", h.ContentLength))
	default:
		return nil, r.fail(hdrLen, fmt.Errorf("%w (Content-Length %d)", ErrBadLength, h.ContentLength))
	}
	r.rec = Record{Header: h, Block: w[hdrLen:blockEnd:blockEnd], Number: r.num, head: w[:min(blockEnd, 1024)]}
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

// endsAt reports whether the block that ends i bytes after r.start is
// followed by the line ends that close a record. complete tells whether
// the data went on for 4 bytes after the block: when the file ends right
// after the block, nothing is missing.
func (r *Reader) endsAt(i int, complete bool) bool {
	w := r.window()
	switch {
	case len(w) >= i+4 && string(w[i:i+4]) == "\r\n\r\n", len(w) >= i+2 && string(w[i:i+2]) == "\n\n":
		return true
	}
	return !complete && r.gapAt < 0 && len(w) >= i && onlyLineEnds(w[i:])
}

// check reads on, at most checkAhead bytes past the first n bytes from
// r.start, until the gzip members that hold those n bytes have passed
// their checks or failed them (which sets r.spoilt).
func (r *Reader) check(n int) {
	for r.s.gz != nil && r.s.checked < r.base+int64(r.start+n) && r.end-r.start < n+checkAhead {
		if !r.fill(r.end - r.start + 1) {
			return
		}
	}
}

// spoilage returns the error of the damaged gzip member that the first n
// bytes from r.start overlap, or that cuts them (a member cut short spoils
// no bytes, only the record it ends inside), or nil.
func (r *Reader) spoilage(n int) error {
	from, to := r.base+int64(r.start), r.base+int64(r.start+n)
	if sp := r.spoilt; sp.err != nil && from < sp.to && to > sp.from {
		return sp.err
	}
	return nil
}

// fail makes the error for the record at r.start and moves r.start to the
// next place a record may start, searching from offset from.
func (r *Reader) fail(from int, cause error) error {
	e := r.newError(cause)
	r.start += r.resync(from)
	return e
}

// cut makes the error for the record at r.start, which the data ends
// inside (what says where), and moves r.start on as fail does. When a
// record starts after it, the record's Content-Length was wrong; when none
// does, the file is cut short, and that is also the file's error.
func (r *Reader) cut(from int, what string) error {
	e := r.newError(r.spoilage(r.end - r.start + 1))
	n := r.resync(from)
	switch {
	case e.Err != nil:
		// A damaged gzip member ends the data here; its error says why.
	case n < r.end-r.start:
		e.Err = fmt.Errorf("%w (%s)", ErrBadLength, what)
	default:
		e.Err = fmt.Errorf("%w (%s)", ErrTruncated, what)
		r.damage(e)
	}
	r.start += n
	return e
}

// damage records err as the file's error unless it has one.
func (r *Reader) damage(err error) {
	if r.fileErr == nil {
		r.fileErr = err
	}
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

// skipRecord reports the record at r.start, whose header is hdrLen bytes
// long and whose block of size bytes is over the limit, and skips it.
// Reading goes on after the block. When the data ends inside the block, its
// Content-Length claimed more than the file holds: reading goes on at the
// first record that starts in the bytes after the header, as far as the
// limit (in a file of one gzip member per record, the next member), and
// only when there is none is the cut block the file's error. When the
// block is not followed by the end of a record (its Content-Length was
// wrong, and records it covered are lost), that is also the file's error.
func (r *Reader) skipRecord(hdrLen int, size int64) error {
	e := r.newError(fmt.Errorf("%w: Content-Length %d, limit %d", ErrTooLarge, size, r.opts.MaxRecordBytes))
	r.start += hdrLen
	next, nextAt := r.recordAhead(size)
	members := slices.Clone(r.s.members)
	switch left := r.skip(size); {
	case left > 0 && r.gapAt >= 0:
		// A damaged gzip member ends the block early; the stream's error
		// says so, and the next member may start a record.
	case left > 0 && next != nil:
		r.pushBack(next, nextAt, members)
		return e.with(fmt.Errorf("%w: Content-Length %d runs %d bytes past the end of the file; reading goes on at the next record",
			ErrBadLength, size, left))
	case left > 0:
		r.damage(e.with(fmt.Errorf("%w: %d of the %d bytes of its block are missing", ErrTruncated, left, size)))
	case !r.endsAt(0, r.fill(4)):
		r.damage(e.with(fmt.Errorf("%w: no record ends after the %d bytes skipped; records among them are lost",
			ErrBadLength, size)))
	}
	return e
}

// recordAhead returns a copy of the bytes from the first line that starts
// a record (see resync) among the next min(size, MaxRecordBytes) bytes
// from r.start, which are a block's, to the end of those bytes, and the
// decompressed offset of that line; nil when no line there starts a
// record.
func (r *Reader) recordAhead(size int64) ([]byte, int64) {
	n := int(min(size, r.opts.MaxRecordBytes))
	r.fill(n)
	w := r.window()
	w = w[:min(len(w), n)]
	i := 0 // the header's blank line ends a line: the block may start a record
	if !bytes.HasPrefix(w, recordStart[1:]) {
		if i = bytes.Index(w, recordStart); i < 0 {
			return nil, 0
		}
		i++
	}
	return bytes.Clone(w[i:]), r.base + int64(r.start+i)
}

// pushBack makes data, the bytes from decompressed offset at that the
// reader read through at the end of the file, the bytes it parses next.
// members are the gzip members the reader knew of before it read them.
func (r *Reader) pushBack(data []byte, at int64, members []member) {
	r.buf, r.start, r.end, r.base, r.gapAt = data, 0, len(data), at, -1
	for len(members) > 0 && len(r.s.members) > 0 && members[len(members)-1].dec >= r.s.members[0].dec {
		members = members[:len(members)-1]
	}
	r.s.members = append(members, r.s.members...)
}

// skip drops n bytes of the stream from r.start, reading them through the
// buffer without keeping them. It returns how many it could not drop
// because the data ended first (at the end of the file or at a gap).
func (r *Reader) skip(n int64) int64 {
	for n > 0 {
		if r.end == r.start && !r.fill(1) {
			return n
		}
		k := min(n, int64(r.end-r.start))
		r.start += int(k)
		n -= k
		r.s.memberAt(r.base + int64(r.start)) // forget the members skipped
	}
	return 0
}

func (r *Reader) window() []byte { return r.buf[r.start:r.end] }

func (r *Reader) clearGap() { r.gapAt = -1 }

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
				r.gapAt = r.end
				r.spoilt = spoilt{g.from, r.base + int64(r.end), g.err}
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
