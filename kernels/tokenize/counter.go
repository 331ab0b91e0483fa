package tokenize

// Counter tokenizes texts with one Encoding. It keeps scratch space and a
// cache of the tokens of recent pieces that are not single tokens: web text
// repeats its pieces (word frequencies are Zipfian), so most pieces then
// cost one table lookup. The cache is bounded and starts over when full;
// it never changes a result. A Counter is not safe for concurrent use: give
// each worker its own.
type Counter struct {
	enc   *Encoding
	m     merger
	cache pieceCache
	ids   []uint32
}

// NewCounter returns a Counter for e.
func (e *Encoding) NewCounter() *Counter { return &Counter{enc: e} }

// Encoding returns the encoding c counts with.
func (c *Counter) Encoding() *Encoding { return c.enc }

// Count returns the number of tokens of text, as tiktoken's encode_ordinary
// gives them: special tokens such as <|endoftext|> are not recognized and
// count as the ordinary text they are.
//
// tiktoken takes Unicode text. Here text should be valid UTF-8, as sluice's
// readers make it (they replace invalid bytes with U+FFFD). If it is not,
// each byte that does not start a valid UTF-8 sequence is taken as a
// character of its own of U+FFFD's class (a symbol) when cutting the text
// into pieces, and is encoded as its own byte, so the count is still
// defined and deterministic, but tiktoken has no count to compare it with.
func (c *Counter) Count(text []byte) int {
	v, next := c.enc.vocab, c.enc.next
	total := 0
	for i := 0; i < len(text); {
		j := next(text, i)
		piece := text[i:j]
		i = j
		if len(piece) == 1 {
			total++
			continue
		}
		k := hashKey(piece)
		if _, ok := v.find(piece, k); ok {
			total++
			continue
		}
		total += len(c.multi(piece, k))
	}
	return total
}

// AppendTokens appends the token ids of text to dst and returns the
// extended slice; len of what it appends is Count(text). Invalid UTF-8 is
// handled as Count describes.
func (c *Counter) AppendTokens(dst []int, text []byte) []int {
	v, next := c.enc.vocab, c.enc.next
	for i := 0; i < len(text); {
		j := next(text, i)
		piece := text[i:j]
		i = j
		if len(piece) == 1 {
			dst = append(dst, int(v.byteRank[piece[0]]))
			continue
		}
		k := hashKey(piece)
		if r, ok := v.find(piece, k); ok {
			dst = append(dst, int(r))
			continue
		}
		for _, r := range c.multi(piece, k) {
			dst = append(dst, int(r))
		}
	}
	return dst
}

// multi returns the tokens of a piece that is not a single token, from the
// cache or by merging. The slice is valid until the next call.
func (c *Counter) multi(piece []byte, k key) []uint32 {
	if ids, ok := c.cache.get(piece, k); ok {
		return ids
	}
	c.ids = c.m.merge(c.enc.vocab, piece, c.ids[:0])
	c.cache.put(piece, k, c.ids)
	return c.ids
}

// Cache bounds: at most cacheEntries pieces of at most cacheMaxPiece bytes,
// cacheMaxBytes bytes of pieces and cacheMaxIDs tokens in all, about 10 MB
// when full. The table starts small and doubles as it fills, so a Counter
// only grows that large on text with that many different pieces.
const (
	cacheFirstSlots = 1 << 10
	cacheSlots      = 1 << 18
	cacheEntries    = cacheSlots / 2
	cacheMaxPiece   = 256
	cacheMaxBytes   = 1 << 21
	cacheMaxIDs     = 1 << 19
)

// pieceCache maps the bytes of a piece to its tokens, with the same hashing
// as vocab.
type pieceCache struct {
	slots []cacheSlot // len is a power of two
	keys  []byte
	ids   []uint32
	n     int
}

type cacheSlot struct {
	w    uint64
	n    uint32 // key length, 0 for an empty slot
	key  uint32 // the key is keys[key:key+n]
	ids  uint32 // the tokens are ids[ids:ids+size]
	size uint32
}

func (pc *pieceCache) get(b []byte, k key) ([]uint32, bool) {
	if pc.n == 0 {
		return nil, false
	}
	n := uint32(len(b))
	mask := uint64(len(pc.slots) - 1)
	for i := k.h & mask; ; i = (i + 1) & mask {
		s := &pc.slots[i]
		if s.n == n && s.w == k.w0 && (n <= 8 || string(pc.keys[s.key+8:s.key+n]) == string(b[8:])) {
			return pc.ids[s.ids : s.ids+s.size], true
		}
		if s.n == 0 {
			return nil, false
		}
	}
}

func (pc *pieceCache) put(b []byte, k key, ids []uint32) {
	if len(b) > cacheMaxPiece {
		return
	}
	switch {
	case pc.n >= cacheEntries || len(pc.keys)+len(b) > cacheMaxBytes || len(pc.ids)+len(ids) > cacheMaxIDs:
		clear(pc.slots)
		pc.keys, pc.ids, pc.n = pc.keys[:0], pc.ids[:0], 0
	case pc.slots == nil:
		pc.slots = make([]cacheSlot, cacheFirstSlots)
	case 2*pc.n >= len(pc.slots):
		pc.grow()
	}
	pc.insert(cacheSlot{w: k.w0, n: uint32(len(b)), key: uint32(len(pc.keys)), ids: uint32(len(pc.ids)), size: uint32(len(ids))}, k.h)
	pc.keys = append(pc.keys, b...)
	pc.ids = append(pc.ids, ids...)
	pc.n++
}

func (pc *pieceCache) insert(s cacheSlot, h uint64) {
	mask := uint64(len(pc.slots) - 1)
	i := h & mask
	for pc.slots[i].n != 0 {
		i = (i + 1) & mask
	}
	pc.slots[i] = s
}

// grow doubles the table.
func (pc *pieceCache) grow() {
	old := pc.slots
	pc.slots = make([]cacheSlot, 2*len(old))
	for _, s := range old {
		if s.n != 0 {
			pc.insert(s, hashKey(pc.keys[s.key:s.key+s.n]).h)
		}
	}
}
