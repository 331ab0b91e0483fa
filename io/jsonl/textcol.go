package jsonl

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// textColumn builds the one top-level string column that holds most of a
// batch's bytes straight into Go slices sized for the chunk, then hands
// them to Arrow without a copy. Arrow's StringBuilder zeroes every buffer
// it grows on top of the zeroing Go already did, and copies the bytes again
// each time a buffer doubles; for the text column that is most of the
// memory traffic of decoding a chunk.
type textColumn struct {
	offsets []int32 // offsets[i] is where value i starts; one more than the rows
	data    []byte
	valid   []byte // validity bitmap, nil while no value is null
	nulls   int
}

// maxTextBytes is the most value bytes one batch's text column can hold:
// Arrow's string offsets are 32-bit.
const maxTextBytes = math.MaxInt32

// reset starts a new column with room for rows values of bytes bytes.
func (t *textColumn) reset(rows, bytes int) {
	t.offsets = make([]int32, 1, rows+1)
	t.data = make([]byte, 0, bytes)
	t.valid, t.nulls = nil, 0
}

// len returns the number of values appended.
func (t *textColumn) len() int { return max(len(t.offsets)-1, 0) }

// fits reports whether n more value bytes fit in the column.
func (t *textColumn) fits(n int) bool { return int64(len(t.data))+int64(n) <= maxTextBytes }

// append adds a value; the caller has checked fits.
func (t *textColumn) append(v []byte) {
	if t.offsets == nil {
		t.reset(0, 0)
	}
	t.data = append(t.data, v...)
	t.offsets = append(t.offsets, int32(len(t.data)))
	if t.valid != nil {
		t.setValid(t.len()-1, true)
	}
}

// appendNull adds a null.
func (t *textColumn) appendNull() {
	if t.offsets == nil {
		t.reset(0, 0)
	}
	t.offsets = append(t.offsets, int32(len(t.data)))
	if t.valid == nil {
		// Every value so far was valid.
		t.valid = make([]byte, bitutil.BytesForBits(int64(cap(t.offsets))))
		bitutil.SetBitsTo(t.valid, 0, int64(t.len()-1), true)
	}
	t.setValid(t.len()-1, false)
	t.nulls++
}

func (t *textColumn) setValid(i int, ok bool) {
	if need := int(bitutil.BytesForBits(int64(i + 1))); need > len(t.valid) {
		t.valid = append(t.valid, make([]byte, max(need-len(t.valid), len(t.valid)))...)
	}
	bitutil.SetBitTo(t.valid, i, ok)
}

// finish returns the values as an Arrow string array and starts an empty
// column; the caller releases the array.
func (t *textColumn) finish() arrow.Array {
	if t.offsets == nil {
		t.reset(0, 0)
	}
	n := t.len()
	var validity *memory.Buffer
	if t.valid != nil {
		validity = memory.NewBufferBytes(t.valid[:bitutil.BytesForBits(int64(n))])
	}
	offsets := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(t.offsets))
	data := array.NewData(arrow.BinaryTypes.String, n,
		[]*memory.Buffer{validity, offsets, memory.NewBufferBytes(t.data)}, nil, t.nulls, 0)
	defer data.Release()
	*t = textColumn{}
	return array.MakeFromData(data)
}
