package tokenize

import "slices"

// The merge is tiktoken's byte-pair merge: the piece starts as one part a
// byte; while some two adjacent parts join into a token, join the pair whose
// token has the lowest rank, the leftmost of equal ranks. Short pieces use
// tiktoken's own quadratic loop; long ones a heap of candidate pairs, which
// joins the same pairs in the same order in O(n log n).

// longPiece is the length from which merge uses the heap.
const longPiece = 96

// merger holds the scratch space of merge, reused from piece to piece.
type merger struct {
	bounds []int    // start of each part, then len(piece)
	parts  []uint32 // rank of each part
	pairs  []uint32 // rank of parts k and k+1 joined, or noRank

	next, prev []int // the long form's linked list of parts, by start
	heap       []pair
}

// merge appends the tokens of piece, which has at least two bytes, to dst.
func (m *merger) merge(v *vocab, piece []byte, dst []uint32) []uint32 {
	if len(piece) >= longPiece {
		return m.mergeLong(v, piece, dst)
	}
	return m.mergeShort(v, piece, dst)
}

// mergeShort is tiktoken's loop: find the best pair, join it, look up the
// two pairs it is now part of, repeat.
func (m *merger) mergeShort(v *vocab, piece []byte, dst []uint32) []uint32 {
	n := len(piece)
	bounds, parts, pairs := m.bounds[:0], m.parts[:0], m.pairs[:0]
	for i := range n {
		bounds = append(bounds, i)
		parts = append(parts, v.byteRank[piece[i]])
		if i+1 < n {
			pairs = append(pairs, v.pairRank[int(piece[i])<<8|int(piece[i+1])])
		}
	}
	bounds = append(bounds, n)
	for {
		best, k := noRank, -1
		for j, r := range pairs {
			if r < best {
				best, k = r, j
			}
		}
		if k < 0 {
			break
		}
		parts[k] = best
		parts = slices.Delete(parts, k+1, k+2)
		bounds = slices.Delete(bounds, k+1, k+2)
		pairs = slices.Delete(pairs, k, k+1)
		if k > 0 {
			pairs[k-1] = v.rank(piece[bounds[k-1]:bounds[k+1]])
		}
		if k < len(pairs) {
			pairs[k] = v.rank(piece[bounds[k]:bounds[k+2]])
		}
	}
	m.bounds, m.parts, m.pairs = bounds, parts, pairs
	return append(dst, parts...)
}

// pair is a candidate join of the part starting at pos with the next part,
// which ends at end.
type pair struct {
	rank     uint32
	pos, end int
}

func (a pair) less(b pair) bool { return a.rank < b.rank || a.rank == b.rank && a.pos < b.pos }

// mergeLong is merge for long pieces. A popped pair is stale when one of
// its parts joined another since it was pushed; parts only ever grow, so
// the pair is current exactly when pos still starts a part and the part
// after that one still ends at end.
func (m *merger) mergeLong(v *vocab, piece []byte, dst []uint32) []uint32 {
	n := len(piece)
	next, prev, parts := m.next[:0], m.prev[:0], m.parts[:0]
	h := m.heap[:0]
	for i := range n {
		next = append(next, i+1)
		prev = append(prev, i-1)
		parts = append(parts, v.byteRank[piece[i]])
	}
	next = append(next, n+1) // so that next[next[pos]] is defined for the last part
	for i := 0; i+1 < n; i++ {
		if r := v.pairRank[int(piece[i])<<8|int(piece[i+1])]; r != noRank {
			h = push(h, pair{r, i, i + 2})
		}
	}
	for len(h) > 0 {
		var p pair
		p, h = pop(h)
		mid := next[p.pos]
		if prev[p.pos] == -2 || mid >= n || next[mid] != p.end {
			continue
		}
		next[p.pos] = p.end
		if p.end < n {
			prev[p.end] = p.pos
		}
		prev[mid] = -2
		parts[p.pos] = p.rank
		if l := prev[p.pos]; l >= 0 {
			if r := v.rank(piece[l:p.end]); r != noRank {
				h = push(h, pair{r, l, p.end})
			}
		}
		if p.end < n {
			if r := v.rank(piece[p.pos:next[p.end]]); r != noRank {
				h = push(h, pair{r, p.pos, next[p.end]})
			}
		}
	}
	for i := 0; i < n; i = next[i] {
		dst = append(dst, parts[i])
	}
	m.next, m.prev, m.parts, m.heap = next, prev, parts, h
	return dst
}

func push(h []pair, p pair) []pair {
	h = append(h, p)
	for i := len(h) - 1; i > 0; {
		up := (i - 1) / 2
		if !h[i].less(h[up]) {
			break
		}
		h[i], h[up] = h[up], h[i]
		i = up
	}
	return h
}

func pop(h []pair) (pair, []pair) {
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		l := 2*i + 1
		if l >= last {
			break
		}
		if r := l + 1; r < last && h[r].less(h[l]) {
			l = r
		}
		if !h[l].less(h[i]) {
			break
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
	return top, h
}
