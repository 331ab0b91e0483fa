package fasttext

import (
	"bytes"
	"math"
)

// eos is the token fastText adds at the end of a line.
const eos = "</s>"

// labelPrefix marks labels, in the dictionary and in input text.
const labelPrefix = "__label__"

// dictionary is fastText's Dictionary: the words, then the labels, and the
// table that maps a word's hash to its entry.
type dictionary struct {
	nwords, nlabels int32
	words           []byte  // the entries' bytes, one after another
	offsets         []int32 // entry i is words[offsets[i]:offsets[i+1]]
	table           []int32 // open addressing on the word hash; -1 is empty
	labels          []string
	labelCounts     []int64

	// pruneSize is -1 when every bucket has a row; otherwise the number of
	// buckets kept, which pruned maps to their rows. A model quantized
	// with -cutoff that kept only words has pruneSize 0: no bucket has a
	// row, and the input matrix holds the words alone.
	pruneSize int64
	pruned    pruneTable
	maxPruned int32 // the largest row index pruned holds; -1 when it is empty
}

func readDictionary(r *reader, a *Args) dictionary {
	d := dictionary{maxPruned: -1}
	size := r.int32()
	d.nwords, d.nlabels = r.int32(), r.int32()
	r.int64() // ntokens
	d.pruneSize = r.int64()
	if r.err != nil {
		return d
	}
	// An entry takes at least 10 bytes: a NUL, its count and its type.
	if size < 0 || d.nwords < 0 || d.nlabels < 0 || int64(d.nwords)+int64(d.nlabels) != int64(size) || int64(size)*10 > r.left {
		r.fail("%d entries (%d words, %d labels) in %d bytes", size, d.nwords, d.nlabels, r.left)
		return d
	}
	d.offsets = make([]int32, 1, size+1)
	for i := int32(0); i < size && r.err == nil; i++ {
		d.words = r.cstring(d.words)
		if len(d.words) > math.MaxInt32 {
			r.fail("dictionary words longer than 2 GiB")
			return d
		}
		d.offsets = append(d.offsets, int32(len(d.words)))
		count := r.int64()
		typ := r.byte()
		if r.err != nil {
			return d
		}
		wantType := byte(0)
		if i >= d.nwords {
			wantType = 1
		}
		if typ != wantType {
			r.fail("entry %d (%q) has type %d; words come first, then labels", i, d.entry(i), typ)
			return d
		}
		if i >= d.nwords {
			d.labels = append(d.labels, string(d.entry(i)))
			d.labelCounts = append(d.labelCounts, count)
		}
	}
	if d.pruneSize > 0 {
		if d.pruneSize > r.left/8 {
			r.truncated("the pruned bucket index")
			return d
		}
		d.pruned = newPruneTable(int(d.pruneSize))
		maxKey := int32(0)
		for i := int64(0); i < d.pruneSize && r.err == nil; i++ {
			from, to := r.int32(), r.int32()
			if r.err == nil && (from < 0 || to < 0 || int(from) >= a.Bucket) {
				r.fail("pruned bucket %d (of %d) maps to row %d", from, a.Bucket, to)
			}
			d.pruned.put(from, to)
			d.maxPruned = max(d.maxPruned, to)
			maxKey = max(maxKey, from)
		}
		d.pruned.index(maxKey)
	} else if d.pruneSize < -1 {
		r.fail("pruned index size %d", d.pruneSize)
	}
	if r.err != nil {
		return d
	}
	// fastText's word2int_: ceil(size / 0.7) slots, linear probing.
	d.table = make([]int32, int(math.Ceil(float64(size)/0.7)))
	for i := range d.table {
		d.table[i] = -1
	}
	for i := int32(0); i < size; i++ {
		w := d.entry(i)
		slot := d.find(w, hash(w))
		if d.table[slot] != -1 {
			r.fail("entry %q occurs twice", w)
			return d
		}
		d.table[slot] = i
	}
	return d
}

func (d *dictionary) entry(i int32) []byte { return d.words[d.offsets[i]:d.offsets[i+1]] }

// find returns the table slot of word w with hash h: its entry's slot, or
// the empty slot where it would go.
func (d *dictionary) find(w []byte, h uint32) int {
	n := uint32(len(d.table))
	slot := h % n
	for {
		e := d.table[slot]
		if e == -1 || bytes.Equal(d.entry(e), w) {
			return int(slot)
		}
		slot++
		if slot == n {
			slot = 0
		}
	}
}

// id returns the entry of word w with hash h, or -1.
func (d *dictionary) id(w []byte, h uint32) int32 {
	if len(d.table) == 0 {
		return -1
	}
	return d.table[d.find(w, h)]
}

// hash is fastText's FNV-1a variant: each byte is xored in as a signed
// char sign-extended to 32 bits, so bytes >= 0x80 set the upper 24 bits.
func hash(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h ^= uint32(int32(int8(c)))
		h *= 16777619
	}
	return h
}

// pruneTable maps the buckets a quantized model kept to their rows: a
// bit set of the kept buckets answers the common case (a bucket that was
// pruned) from a small array, and open addressing over interleaved
// key/row pairs finds the row of a kept one in one cache line.
type pruneTable struct {
	kept  []uint64   // bit b set: bucket b was kept
	slots [][2]int32 // {bucket, row}; bucket -1: empty
	shift uint32
}

func newPruneTable(n int) pruneTable {
	size, shift := 1, uint32(32)
	for size < 2*n+1 {
		size <<= 1
		shift--
	}
	t := pruneTable{slots: make([][2]int32, size), shift: shift}
	for i := range t.slots {
		t.slots[i][0] = -1
	}
	return t
}

func (t *pruneTable) slot(k int32) uint32 {
	return (uint32(k) * 0x9E3779B1) >> t.shift & uint32(len(t.slots)-1)
}

func (t *pruneTable) put(k, v int32) {
	mask := uint32(len(t.slots) - 1)
	for s := t.slot(k); ; s = (s + 1) & mask {
		if t.slots[s][0] == -1 || t.slots[s][0] == k {
			t.slots[s] = [2]int32{k, v}
			return
		}
	}
}

// index builds the bit set of kept buckets when it is small next to the
// table (when the buckets kept are not too sparse among those that exist).
func (t *pruneTable) index(maxKey int32) {
	words := int(maxKey>>6) + 1
	if words > 4*len(t.slots) {
		return
	}
	t.kept = make([]uint64, words)
	for _, s := range t.slots {
		if k := s[0]; k >= 0 {
			t.kept[k>>6] |= 1 << (k & 63)
		}
	}
}

func (t *pruneTable) get(k int32) (int32, bool) {
	if t.kept != nil {
		if w := int(k >> 6); w >= len(t.kept) || t.kept[w]&(1<<(k&63)) == 0 {
			return 0, false
		}
	}
	mask := uint32(len(t.slots) - 1)
	for s := t.slot(k); ; s = (s + 1) & mask {
		switch t.slots[s][0] {
		case k:
			return t.slots[s][1], true
		case -1:
			return 0, false
		}
	}
}

// Hash is fastText's word hash, exported for tests and tools that need to
// reproduce fastText's bucket numbers.
func Hash(b []byte) uint32 { return hash(b) }
