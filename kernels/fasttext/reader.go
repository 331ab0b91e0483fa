package fasttext

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"unsafe"
)

// errTruncated is the cause when a model file ends before its last field.
var errTruncated = errors.New("unexpected end of file")

// reader decodes the little-endian fields of a model file of known size,
// remembering the first error. Every length is checked against the bytes
// that remain before anything is allocated, so a corrupt file fails with an
// error instead of an allocation it cannot back; matrices are read straight
// into their final slices, so loading needs no second copy of the file.
type reader struct {
	src  *bufio.Reader
	left int64 // bytes not yet read
	off  int64 // bytes read
	err  error
	what string // the part of the file being read, for errors
	buf  [8]byte
}

func newReader(r io.Reader, size int64) *reader {
	return &reader{src: bufio.NewReaderSize(r, 1<<16), left: size}
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%s at byte %d: %s", r.what, r.off, fmt.Sprintf(format, args...))
	}
}

func (r *reader) truncated(want string) {
	if r.err == nil {
		r.err = fmt.Errorf("%s at byte %d: %w (want %s, %d bytes left)", r.what, r.off, errTruncated, want, r.left)
	}
}

// read fills b, or records an error and returns false.
func (r *reader) read(b []byte) bool {
	if r.err != nil {
		return false
	}
	if int64(len(b)) > r.left {
		r.truncated(fmt.Sprintf("%d bytes", len(b)))
		return false
	}
	if _, err := io.ReadFull(r.src, b); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			r.truncated(fmt.Sprintf("%d bytes", len(b)))
		} else {
			r.err = fmt.Errorf("%s at byte %d: %w", r.what, r.off, err)
		}
		return false
	}
	r.left -= int64(len(b))
	r.off += int64(len(b))
	return true
}

func (r *reader) int32() int32 {
	if !r.read(r.buf[:4]) {
		return 0
	}
	return int32(binary.LittleEndian.Uint32(r.buf[:4]))
}

func (r *reader) int64() int64 {
	if !r.read(r.buf[:8]) {
		return 0
	}
	return int64(binary.LittleEndian.Uint64(r.buf[:8]))
}

func (r *reader) float64() float64 {
	if !r.read(r.buf[:8]) {
		return 0
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(r.buf[:8]))
}

func (r *reader) byte() byte {
	if !r.read(r.buf[:1]) {
		return 0
	}
	return r.buf[0]
}

func (r *reader) bool() bool {
	v := r.byte()
	if v > 1 {
		r.fail("boolean byte is %d, not 0 or 1", v)
	}
	return v == 1
}

// cstring appends to dst the bytes up to a NUL, which it consumes.
func (r *reader) cstring(dst []byte) []byte {
	for r.err == nil {
		c := r.byte()
		if r.err != nil || c == 0 {
			break
		}
		dst = append(dst, c)
	}
	return dst
}

// bytes reads n bytes into a new slice, n checked first.
func (r *reader) bytes(n int64) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > r.left {
		r.truncated(fmt.Sprintf("%d bytes", n))
		return nil
	}
	out := make([]byte, n)
	r.read(out)
	return out
}

// floats reads n float32 values, n checked first.
func (r *reader) floats(n int64) []float32 {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > r.left/4 {
		r.truncated(fmt.Sprintf("%d floats", n))
		return nil
	}
	out := make([]float32, n)
	raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), 4*n)
	if !r.read(raw) {
		return nil
	}
	if !nativeLittleEndian {
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
	}
	return out
}

var nativeLittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()
