package minhash

import (
	"cmp"
	"fmt"
	"slices"
)

// Verify is how a candidate pair is checked before it links.
type Verify string

const (
	// VerifyJaccard computes the true Jaccard similarity of the two
	// documents' shingle sets.
	VerifyJaccard Verify = "jaccard"
	// VerifySignature estimates it from their full signatures: the
	// fraction of positions that agree.
	VerifySignature Verify = "signature"
)

// ParseVerify returns the Verify spelled s ("jaccard" or "signature").
func ParseVerify(s string) (Verify, error) {
	v := Verify(s)
	return v, v.Validate()
}

// Validate reports whether v is VerifyJaccard or VerifySignature.
func (v Verify) Validate() error {
	switch v {
	case VerifyJaccard, VerifySignature:
		return nil
	}
	return fmt.Errorf("verify must be jaccard or signature, not %q", string(v))
}

// Similarity compares two candidates by v: with VerifyJaccard, a and b are
// sorted shingle sets without repeats and the result is their Jaccard
// similarity; otherwise they are signatures and the result is
// EstimateJaccard.
func (v Verify) Similarity(a, b []uint32) float64 {
	if v == VerifyJaccard {
		return Jaccard(a, b)
	}
	return EstimateJaccard(a, b)
}

// Keep is which document of a cluster is kept.
type Keep string

const (
	// KeepFirst keeps the first document in input order.
	KeepFirst Keep = "first"
	// KeepLongest keeps the longest text, the first in input order among
	// equally long ones.
	KeepLongest Keep = "longest"
)

// ParseKeep returns the Keep spelled s ("first" or "longest").
func ParseKeep(s string) (Keep, error) {
	k := Keep(s)
	return k, k.Validate()
}

// Validate reports whether k is KeepFirst or KeepLongest.
func (k Keep) Validate() error {
	switch k {
	case KeepFirst, KeepLongest:
		return nil
	}
	return fmt.Errorf("keep must be first or longest, not %q", string(k))
}

// BucketEntry is one document's hash in one band.
type BucketEntry struct {
	Hash uint64
	Doc  int32
}

// BucketPairs appends to pairs the candidate pairs of one band, given
// each document's hash in it. The entries are sorted (in place) by hash
// and document, so that colliding documents are neighbours; each document
// links to the first of its bucket and to the one before it, so
// union-find joins the bucket without k² pairs.
func BucketPairs(entries []BucketEntry, pairs [][2]int32) [][2]int32 {
	slices.SortFunc(entries, func(p, q BucketEntry) int {
		if c := cmp.Compare(p.Hash, q.Hash); c != 0 {
			return c
		}
		return cmp.Compare(p.Doc, q.Doc)
	})
	n := len(entries)
	for start := 0; start < n; {
		end := start + 1
		for end < n && entries[end].Hash == entries[start].Hash {
			end++
		}
		for j := start + 1; j < end; j++ {
			pairs = append(pairs, [2]int32{entries[start].Doc, entries[j].Doc})
			if j > start+1 {
				pairs = append(pairs, [2]int32{entries[j-1].Doc, entries[j].Doc})
			}
		}
		start = end
	}
	return pairs
}

// SortPairs sorts candidate pairs and drops repeats (a pair found in
// several bands).
func SortPairs(pairs [][2]int32) [][2]int32 {
	slices.SortFunc(pairs, func(p, q [2]int32) int {
		if c := cmp.Compare(p[0], q[0]); c != 0 {
			return c
		}
		return cmp.Compare(p[1], q[1])
	})
	return slices.Compact(pairs)
}

// UnionFind joins documents numbered 0 to n-1 into components; a
// component's root is its smallest number once Union is done.
type UnionFind []int32

// NewUnionFind returns n documents, each its own component.
func NewUnionFind(n int) UnionFind {
	u := make(UnionFind, n)
	for i := range u {
		u[i] = int32(i)
	}
	return u
}

// Find returns a's root, halving the path on the way.
func (u UnionFind) Find(a int32) int32 {
	for u[a] != a {
		u[a] = u[u[a]]
		a = u[a]
	}
	return a
}

// Union joins the components of a and b under the smaller root.
func (u UnionFind) Union(a, b int32) {
	ra, rb := u.Find(a), u.Find(b)
	if ra != rb {
		u[max(ra, rb)] = min(ra, rb)
	}
}

// LinkPairs verifies the candidate pairs among n documents (numbered in
// input order), joins the documents of pairs whose similarity sim is at
// or above threshold by union-find and picks the documents each component
// keeps (KeepInComponent). It returns, for each document, the kept
// document of its cluster (itself when it is kept or in no cluster), and
// the number of pairs that linked. lens are the documents' text lengths,
// for KeepLongest.
func LinkPairs(n int, pairs [][2]int32, threshold float64, keep Keep, lens []uint32, sim func(a, b int32) float64) ([]int32, int) {
	uf := NewUnionFind(n)
	linked := 0
	for _, pr := range pairs {
		if sim(pr[0], pr[1]) < threshold {
			continue
		}
		linked++
		uf.Union(pr[0], pr[1])
	}
	// The members of each component of two or more, in input order.
	count := make([]int32, n)
	for i := range count {
		count[uf.Find(int32(i))]++
	}
	components := map[int32][]int32{}
	for i := 0; i < n; i++ {
		if r := uf.Find(int32(i)); count[r] > 1 {
			components[r] = append(components[r], int32(i))
		}
	}
	uf, count = nil, nil
	rep := make([]int32, n)
	for i := range rep {
		rep[i] = int32(i)
	}
	for _, members := range components {
		KeepInComponent(members, threshold, keep, lens, rep, sim)
	}
	return rep, linked
}

// KeepInComponent picks the kept documents of one linked component (its
// members in input order, indexes into lens and rep): the first by keep
// (input order, or length then input order) keeps every member whose
// similarity to it is at or above threshold, setting rep of each to it;
// the members left form the next cluster, and so on. So every removed
// document is a near duplicate of the document kept in its place, not
// only linked to it through others (A like B and B like C does not make A
// like C). With KeepLongest, members is reordered.
func KeepInComponent(members []int32, threshold float64, keep Keep, lens []uint32, rep []int32, sim func(a, b int32) float64) {
	if keep == KeepLongest {
		slices.SortStableFunc(members, func(a, b int32) int { return cmp.Compare(lens[b], lens[a]) })
	}
	for len(members) > 0 {
		kept := members[0]
		var left []int32
		for _, m := range members[1:] {
			if sim(kept, m) >= threshold {
				rep[m] = kept
			} else {
				left = append(left, m)
			}
		}
		members = left
	}
}
