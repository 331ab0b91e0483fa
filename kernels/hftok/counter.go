package hftok

import (
	"bytes"
)

// Cache bounds: pieces longer than maxCachedPiece bytes are not cached, and
// the cache is emptied when it holds maxCacheEntries pieces or
// maxCacheIDs ids.
const (
	maxCachedPiece  = 256
	maxCacheEntries = 1 << 16
	maxCacheIDs     = 1 << 20
)

// Counter tokenizes texts with a Tokenizer. It keeps scratch buffers and a
// cache of the ids of the pieces it has seen, so one Counter per worker
// is the intended use; a Counter is not safe for concurrent use.
type Counter struct {
	t *Tokenizer

	out     []int // ids being appended to
	scratch []int // Count's ids

	// Pre-tokenization scratch.
	rawSpans  []addedSpan
	normSpans []addedSpan
	normBuf   [2][]byte
	levels    []level
	rd        bytes.Reader

	// BPE scratch.
	mapped []byte
	syms   []symbol
	heap   []candidate

	cache map[string]cacheEntry
	arena []int32

	// pieces, when not nil, collects the pre-tokens instead of encoding
	// them; tests use it.
	pieces *[]string
}

// level is the scratch of one pre-tokenization step.
type level struct {
	spans, raw []span
	buf        []byte
}

type cacheEntry struct{ off, n int32 }

// NewCounter returns a Counter for t.
func (t *Tokenizer) NewCounter() *Counter {
	return &Counter{
		t:      t,
		levels: make([]level, len(t.steps)),
		cache:  make(map[string]cacheEntry),
	}
}

// Count returns the number of tokens of text.
func (c *Counter) Count(text []byte) int {
	ids := c.AppendTokens(c.scratch[:0], text)
	c.scratch = ids[:0]
	return len(ids)
}

// AppendTokens appends the token ids of text to dst and returns the
// extended slice.
func (c *Counter) AppendTokens(dst []int, text []byte) []int {
	c.out = dst
	c.encode(text)
	dst = c.out
	c.out = nil
	return dst
}

// encode takes out the added tokens matched on the raw text, then
// normalizes the text between them.
func (c *Counter) encode(text []byte) {
	if c.t.rawAdded == nil {
		c.encodeNormalized(text)
		return
	}
	c.rawSpans = c.t.rawAdded.split(c.rawSpans[:0], text)
	for _, s := range c.rawSpans {
		if s.id >= 0 {
			c.emit(s.id)
			continue
		}
		c.encodeNormalized(text[s.start:s.end])
	}
}

// encodeNormalized normalizes seg, takes out the added tokens matched on
// normalized text, and pre-tokenizes what is left.
func (c *Counter) encodeNormalized(seg []byte) {
	t := c.t
	next := 0 // the buffer seg is not in
	for _, f := range t.forms {
		if f.IsNormal(seg) {
			continue
		}
		buf := &c.normBuf[next]
		*buf = f.Append((*buf)[:0], seg...)
		seg = *buf
		next = 1 - next
	}
	if t.normAdded == nil {
		c.preTokenize(0, seg)
		return
	}
	c.normSpans = t.normAdded.split(c.normSpans[:0], seg)
	for _, s := range c.normSpans {
		if s.id >= 0 {
			c.emit(s.id)
			continue
		}
		c.preTokenize(0, seg[s.start:s.end])
	}
}

// preTokenize applies step d and the ones after it to piece, then encodes
// the pieces that come out.
func (c *Counter) preTokenize(d int, piece []byte) {
	if len(piece) == 0 {
		return
	}
	if d == len(c.t.steps) {
		c.encodePiece(piece)
		return
	}
	s := &c.t.steps[d]
	lv := &c.levels[d]
	if s.kind == stepPrefixSpace {
		if piece[0] != ' ' {
			lv.buf = append(append(lv.buf[:0], ' '), piece...)
			piece = lv.buf
		}
		c.preTokenize(d+1, piece)
		return
	}
	lv.spans, lv.raw = s.split(lv.spans[:0], lv.raw, piece, &c.rd)
	for _, sp := range lv.spans {
		c.preTokenize(d+1, piece[sp.start:sp.end])
	}
}

func (c *Counter) emit(id int32) { c.out = append(c.out, int(id)) }

// encodePiece appends the ids of one pre-token, from the cache when it can.
func (c *Counter) encodePiece(p []byte) {
	if c.pieces != nil {
		*c.pieces = append(*c.pieces, string(p))
		return
	}
	t := c.t
	if len(p) == 1 && t.byteIDs[p[0]] >= 0 {
		c.emit(t.byteIDs[p[0]])
		return
	}
	cacheable := len(p) <= maxCachedPiece
	if cacheable {
		if e, ok := c.cache[string(p)]; ok {
			for _, id := range c.arena[e.off : e.off+e.n] {
				c.emit(id)
			}
			return
		}
	}
	start := len(c.out)
	c.bpe(p)
	if !cacheable {
		return
	}
	ids := c.out[start:]
	if len(c.cache) >= maxCacheEntries || len(c.arena)+len(ids) > maxCacheIDs {
		clear(c.cache)
		c.arena = c.arena[:0]
	}
	c.cache[string(p)] = cacheEntry{off: int32(len(c.arena)), n: int32(len(ids))}
	for _, id := range ids {
		c.arena = append(c.arena, int32(id))
	}
}

// symbol is a token of a word being merged, in a list linked by index;
// id < 0 marks a symbol merged into the one before it.
type symbol struct {
	id, prev, next int32
}

// candidate is a merge waiting in the queue: the pair that starts at
// symbol pos, to become newID.
type candidate struct {
	rank, pos, newID int32
}

func (a candidate) less(b candidate) bool {
	return a.rank < b.rank || a.rank == b.rank && a.pos < b.pos
}

// bpe appends the ids of the byte-level BPE of piece p, as the tokenizers
// library's BPE model does: with ignore_merges a piece that is itself a
// token is that token; otherwise each byte starts as its own symbol and the
// pair with the lowest merge rank, leftmost first, is merged until no pair
// has a merge.
func (c *Counter) bpe(p []byte) {
	t := c.t
	if t.ignoreMerges {
		c.mapped = appendByteLevel(c.mapped[:0], p)
		if id, ok := t.vocab[string(c.mapped)]; ok {
			c.emit(id)
			return
		}
	}
	syms := c.syms[:0]
	add := func(id int32) {
		n := int32(len(syms))
		syms = append(syms, symbol{id: id, prev: n - 1, next: n + 1})
	}
	unk := false // an unknown symbol is pending
	for _, b := range p {
		if id := t.byteIDs[b]; id >= 0 {
			if unk {
				add(t.unkID)
				unk = false
			}
			add(id)
			continue
		}
		if ids := t.fallback[b]; ids != nil {
			for _, id := range ids {
				add(id)
			}
			continue
		}
		if t.unkID >= 0 {
			if unk && !t.fuseUnk {
				add(t.unkID)
			}
			unk = true
		}
	}
	if unk {
		add(t.unkID)
	}
	if len(syms) == 0 {
		c.syms = syms
		return
	}
	syms[len(syms)-1].next = -1

	c.heap = c.heap[:0]
	for i := 0; i+1 < len(syms); i++ {
		c.pushPair(syms, int32(i), int32(i+1))
	}
	for len(c.heap) > 0 {
		top := c.popPair()
		l := &syms[top.pos]
		if l.id < 0 || l.next < 0 {
			continue
		}
		r := &syms[l.next]
		v, ok := t.merges[pairKey(l.id, r.id)]
		if !ok || int32(uint32(v)) != top.newID {
			continue // stale: one side changed since the pair was queued
		}
		next := r.next
		r.id = -1
		l.id = top.newID
		l.next = next
		if next >= 0 {
			syms[next].prev = top.pos
		}
		if l.prev >= 0 {
			c.pushPair(syms, l.prev, top.pos)
		}
		if next >= 0 {
			c.pushPair(syms, top.pos, next)
		}
	}
	for i := int32(0); i >= 0; i = syms[i].next {
		c.emit(syms[i].id)
	}
	c.syms = syms
}

// pushPair queues the merge of symbols i and j, if they have one.
func (c *Counter) pushPair(syms []symbol, i, j int32) {
	v, ok := c.t.merges[pairKey(syms[i].id, syms[j].id)]
	if !ok {
		return
	}
	h := append(c.heap, candidate{rank: int32(v >> 32), pos: i, newID: int32(uint32(v))})
	for k := len(h) - 1; k > 0; {
		parent := (k - 1) / 2
		if !h[k].less(h[parent]) {
			break
		}
		h[k], h[parent] = h[parent], h[k]
		k = parent
	}
	c.heap = h
}

// popPair removes and returns the first merge of the queue.
func (c *Counter) popPair() candidate {
	h := c.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for k := 0; ; {
		m, l, r := k, 2*k+1, 2*k+2
		if l < len(h) && h[l].less(h[m]) {
			m = l
		}
		if r < len(h) && h[r].less(h[m]) {
			m = r
		}
		if m == k {
			break
		}
		h[k], h[m] = h[m], h[k]
		k = m
	}
	c.heap = h
	return top
}
