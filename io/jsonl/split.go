package jsonl

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/cespare/xxhash/v2"
	"github.com/sluice-data/sluice/io/input"
)

// Split cuts an uncompressed JSONL file into at most n parts of about the
// same number of bytes, each from a line boundary to a line boundary,
// with the number of its first line, so that n readers read every line
// once between them with the file's own line numbers. It reads the file
// once and returns the xxhash64 of all its bytes, which the parts' readers
// each see only a piece of. A file with fewer lines than n gives fewer
// parts; n <= 1, a compressed file or a stream gives the file itself.
func Split(f input.File, n int) ([]input.File, uint64, error) {
	if n <= 1 || f.Compression != input.None || f.Format != input.JSONL || f.IsStream() || !f.Span.IsZero() {
		return []input.File{f}, 0, nil
	}
	fh, err := os.Open(f.Path)
	if err != nil {
		return nil, 0, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, 0, err
	}
	size := st.Size()
	h := xxhash.New()
	buf := make([]byte, 4<<20)
	var pos, lines int64 // bytes and newlines before buf
	starts := []input.Span{{Lo: 0, FirstLine: 1}}
	k := 1 // the next cut is the first line starting at or after k*size/n
	for {
		m, err := io.ReadFull(fh, buf)
		chunk := buf[:m]
		h.Write(chunk)
		from := 0
		for k < n && m > 0 {
			target := int64(k) * size / int64(n)
			if target-1 >= pos+int64(m) {
				break
			}
			at := max(int(target-1-pos), from)
			i := bytes.IndexByte(chunk[at:], '\n')
			if i < 0 {
				break
			}
			cut := at + i + 1
			lines += int64(bytes.Count(chunk[from:cut], []byte{'\n'}))
			from = cut
			if lo := pos + int64(cut); lo < size {
				starts = append(starts, input.Span{Lo: lo, FirstLine: lines + 1})
			}
			for k < n && int64(k)*size/int64(n) <= pos+int64(cut) {
				k++
			}
		}
		lines += int64(bytes.Count(chunk[from:], []byte{'\n'}))
		pos += int64(m)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", f.Label(), err)
		}
	}
	if pos != size {
		return nil, 0, fmt.Errorf("%s: read %d bytes of %d (the file changed while it was split)", f.Label(), pos, size)
	}
	parts := make([]input.File, len(starts))
	for i, sp := range starts {
		sp.Hi = size
		if i+1 < len(starts) {
			sp.Hi = starts[i+1].Lo
		}
		parts[i] = f
		parts[i].Span = sp
		parts[i].Size = sp.Hi - sp.Lo
	}
	if len(parts) == 1 {
		parts[0].Span = input.Span{}
	}
	return parts, h.Sum64(), nil
}
