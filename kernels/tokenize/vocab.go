package tokenize

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math/bits"
	"strconv"
)

// vocab maps the bytes of every token to its rank (the token id) with an
// open-addressing hash table keyed by the bytes themselves, so a lookup
// needs no string and no allocation.
type vocab struct {
	slots []slot
	mask  uint64
	data  []byte   // the bytes of all tokens, in rank order
	start []uint32 // token r is data[start[r]:start[r+1]]

	byteRank [256]uint32 // the rank of each single byte
	pairRank []uint32    // the rank of each two-byte token by its bytes b0<<8|b1, or noRank
}

// slot is one entry of vocab's table: the first word of the token's key,
// which alone identifies a token of up to 8 bytes, its length (0 for an
// empty slot) and its rank.
type slot struct {
	w0   uint64
	n    uint32
	rank uint32
}

// parseTiktoken reads a .tiktoken rank file: one token a line, its bytes in
// base64, a space, its rank.
func parseTiktoken(file []byte) (*vocab, error) {
	type entry struct {
		tok  []byte
		rank uint32
	}
	var entries []entry
	size, maxRank := 0, -1
	for line := range bytes.Lines(file) {
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			continue
		}
		b64, num, ok := bytes.Cut(line, []byte{' '})
		if !ok {
			return nil, fmt.Errorf("line %d: no rank", len(entries)+1)
		}
		tok := make([]byte, base64.StdEncoding.DecodedLen(len(b64)))
		m, err := base64.StdEncoding.Decode(tok, b64)
		if err != nil || m == 0 {
			return nil, fmt.Errorf("line %d: bad token %q", len(entries)+1, b64)
		}
		r, err := strconv.ParseUint(string(num), 10, 24)
		if err != nil {
			return nil, fmt.Errorf("line %d: bad rank %q", len(entries)+1, num)
		}
		entries = append(entries, entry{tok[:m], uint32(r)})
		size += m
		maxRank = max(maxRank, int(r))
	}
	v := &vocab{data: make([]byte, 0, size), start: make([]uint32, maxRank+2)}
	byRank := make([][]byte, maxRank+1)
	for _, e := range entries {
		if byRank[e.rank] != nil {
			return nil, fmt.Errorf("rank %d given twice", e.rank)
		}
		byRank[e.rank] = e.tok
	}
	for r, tok := range byRank {
		v.start[r] = uint32(len(v.data))
		v.data = append(v.data, tok...)
	}
	v.start[maxRank+1] = uint32(len(v.data))

	nslots := 1 << bits.Len(uint(len(entries)*2))
	v.slots = make([]slot, nslots)
	v.mask = uint64(nslots - 1)
	for r, tok := range byRank {
		if tok == nil {
			continue
		}
		k := hashKey(tok)
		if _, dup := v.find(tok, k); dup {
			return nil, fmt.Errorf("token %q given twice", tok)
		}
		i := k.h & v.mask
		for v.slots[i].n != 0 {
			i = (i + 1) & v.mask
		}
		v.slots[i] = slot{w0: k.w0, n: uint32(len(tok)), rank: uint32(r)}
	}
	for b := range v.byteRank {
		if v.byteRank[b] = v.rank([]byte{byte(b)}); v.byteRank[b] == noRank {
			return nil, fmt.Errorf("no token for byte %#x", b)
		}
	}
	v.pairRank = make([]uint32, 1<<16)
	for p := range v.pairRank {
		v.pairRank[p] = v.rank([]byte{byte(p >> 8), byte(p)})
	}
	return v, nil
}

// find returns the rank of b, whose key is k.
func (v *vocab) find(b []byte, k key) (uint32, bool) {
	n := uint32(len(b))
	for i := k.h & v.mask; ; i = (i + 1) & v.mask {
		s := &v.slots[i]
		if s.n == n && s.w0 == k.w0 && (n <= 8 || bytes.Equal(v.data[v.start[s.rank]+8:v.start[s.rank+1]], b[8:])) {
			return s.rank, true
		}
		if s.n == 0 {
			return 0, false
		}
	}
}

// rank returns the rank of key, or noRank.
func (v *vocab) rank(b []byte) uint32 {
	if r, ok := v.find(b, hashKey(b)); ok {
		return r
	}
	return noRank
}

// token returns the bytes of token r.
func (v *vocab) token(r uint32) []byte { return v.data[v.start[r]:v.start[r+1]] }

const noRank = ^uint32(0)

// Hash constants (from wyhash).
const (
	k0 = 0xa0761d6478bd642f
	k1 = 0xe7037ed1a0b428db
	k2 = 0x8ebc6af09c88c6e3
)

// key is what the hash tables know of a byte string b besides its length:
// two words that determine b when it has at most 16 bytes (w0 alone when it
// has at most 8; the first 16 bytes of longer ones), and a hash of all of b.
type key struct{ w0, w1, h uint64 }

// hashKey returns the key of b. Strings of 4 to 16 bytes are read as two
// overlapping halves, shorter ones byte by byte.
func hashKey(b []byte) key {
	n := len(b)
	var k key
	switch {
	case n > 16:
		k.w0, k.w1 = le64(b), le64(b[8:])
		seed := uint64(n) ^ k2
		i := 0
		for ; i+16 < n; i += 16 {
			seed = mix(le64(b[i:])^k0, le64(b[i+8:])^seed)
		}
		k.h = mix(le64(b[n-16:])^k1, le64(b[n-8:])^seed)
		return k
	case n >= 8:
		k.w0, k.w1 = le64(b), le64(b[n-8:])
	case n >= 4:
		k.w0 = uint64(binary.LittleEndian.Uint32(b)) | uint64(binary.LittleEndian.Uint32(b[n-4:]))<<32
	case n > 0:
		k.w0 = uint64(b[0]) | uint64(b[n>>1])<<8 | uint64(b[n-1])<<16
	}
	k.h = mix(k.w0^k0, k.w1^k1^uint64(n))
	return k
}

func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}
