// Package texthash hashes texts for exact deduplication: 128-bit xxh3 of
// the text as it is, or of its matching normal form (kernels/normalize), so
// that at a billion documents a collision stays out of reach (a 64-bit hash
// collides somewhere past a few billion).
package texthash

import (
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/sluice-data/sluice/kernels/normalize"
	"github.com/zeebo/xxh3"
)

// Hash is a 128-bit text hash.
type Hash = xxh3.Uint128

// Of returns the hash of text.
func Of(text []byte) Hash { return xxh3.Hash128(text) }

// Hasher hashes string columns; it keeps a scratch buffer, so each worker
// owns one.
type Hasher struct {
	// Match hashes the matching normal form (lowercase, no punctuation, no
	// accents, collapsed whitespace) instead of the text as it is.
	Match bool
	buf   []byte
}

// Column appends the hash of every value of col to dst and whether the
// value is present (not null) to valid.
func (h *Hasher) Column(col *array.String, dst []Hash, valid []bool) ([]Hash, []bool) {
	offsets := col.ValueOffsets()
	data := col.ValueBytes()
	base := offsets[0]
	for i := 0; i < col.Len(); i++ {
		if col.IsNull(i) {
			dst, valid = append(dst, Hash{}), append(valid, false)
			continue
		}
		text := data[offsets[i]-base : offsets[i+1]-base]
		if h.Match {
			h.buf = normalize.AppendMatchForm(h.buf[:0], text)
			text = h.buf
		}
		dst, valid = append(dst, Of(text)), append(valid, true)
	}
	return dst, valid
}
