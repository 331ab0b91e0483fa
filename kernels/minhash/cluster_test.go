package minhash

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestVerifyAndKeepSpellings(t *testing.T) {
	for _, s := range []string{"jaccard", "signature"} {
		if v, err := ParseVerify(s); err != nil || string(v) != s {
			t.Errorf("ParseVerify(%q) = %q, %v", s, v, err)
		}
	}
	for _, s := range []string{"first", "longest"} {
		if k, err := ParseKeep(s); err != nil || string(k) != s {
			t.Errorf("ParseKeep(%q) = %q, %v", s, k, err)
		}
	}
	if _, err := ParseVerify("exact"); err == nil || err.Error() != `verify must be jaccard or signature, not "exact"` {
		t.Errorf("bad verify: %v", err)
	}
	if _, err := ParseKeep(""); err == nil || err.Error() != `keep must be first or longest, not ""` {
		t.Errorf("bad keep: %v", err)
	}
	// The YAML and JSON spellings are the constants' strings.
	var p struct {
		Verify Verify `yaml:"verify" json:"verify"`
		Keep   Keep   `yaml:"keep" json:"keep"`
	}
	if err := yaml.Unmarshal([]byte("verify: signature\nkeep: longest\n"), &p); err != nil || p.Verify != VerifySignature || p.Keep != KeepLongest {
		t.Fatalf("yaml: %+v %v", p, err)
	}
	js, _ := json.Marshal(p)
	if string(js) != `{"verify":"signature","keep":"longest"}` {
		t.Fatalf("json %s", js)
	}
}

func TestVerifySimilarity(t *testing.T) {
	a, b := []uint32{1, 2, 3, 4}, []uint32{1, 2, 3, 5}
	if got := VerifyJaccard.Similarity(a, b); got != 3.0/5 {
		t.Errorf("jaccard %v", got)
	}
	if got := VerifySignature.Similarity(a, b); got != 3.0/4 {
		t.Errorf("signature %v", got)
	}
}

func TestBucketPairs(t *testing.T) {
	entries := []BucketEntry{{7, 3}, {5, 0}, {7, 1}, {9, 2}, {7, 4}, {5, 5}}
	got := BucketPairs(entries, nil)
	// Bucket 5: 0-5. Bucket 7: 1-3, 1-4 and 3-4 (each to the first and
	// to the one before it).
	want := [][2]int32{{0, 5}, {1, 3}, {1, 4}, {3, 4}}
	if !slices.Equal(got, want) {
		t.Fatalf("pairs %v, want %v", got, want)
	}
	got = SortPairs(append(got, [2]int32{0, 5}, [2]int32{0, 2}))
	want = [][2]int32{{0, 2}, {0, 5}, {1, 3}, {1, 4}, {3, 4}}
	if !slices.Equal(got, want) {
		t.Fatalf("sorted %v, want %v", got, want)
	}
}

func TestUnionFind(t *testing.T) {
	u := NewUnionFind(6)
	u.Union(4, 2)
	u.Union(5, 4)
	u.Union(1, 3)
	roots := make([]int32, 6)
	for i := range roots {
		roots[i] = u.Find(int32(i))
	}
	if want := []int32{0, 1, 2, 1, 2, 2}; !slices.Equal(roots, want) {
		t.Fatalf("roots %v, want %v", roots, want)
	}
}

// table is a similarity given by a table of pairs; other pairs are 0.
func table(sims map[[2]int32]float64) func(a, b int32) float64 {
	return func(a, b int32) float64 {
		if a > b {
			a, b = b, a
		}
		return sims[[2]int32{a, b}]
	}
}

func TestLinkPairs(t *testing.T) {
	// 0 ~ 1 ~ 2 link in a chain, but 0 and 2 are not alike: 2 forms a
	// cluster of its own. 3 and 4 are below the threshold; 5 ~ 6.
	sim := table(map[[2]int32]float64{{0, 1}: 0.9, {1, 2}: 0.9, {0, 2}: 0.5, {3, 4}: 0.7, {5, 6}: 0.8})
	pairs := [][2]int32{{0, 1}, {1, 2}, {3, 4}, {5, 6}}
	rep, linked := LinkPairs(7, pairs, 0.8, KeepFirst, make([]uint32, 7), sim)
	if want := []int32{0, 0, 2, 3, 4, 5, 5}; !slices.Equal(rep, want) || linked != 3 {
		t.Fatalf("rep %v linked %d, want %v and 3", rep, linked, want)
	}
	// Keep longest: 1 is the longest of its component and keeps both.
	lens := []uint32{10, 30, 20, 0, 0, 5, 5}
	rep, _ = LinkPairs(7, pairs, 0.8, KeepLongest, lens, sim)
	if want := []int32{1, 1, 1, 3, 4, 5, 5}; !slices.Equal(rep, want) {
		t.Fatalf("keep longest: rep %v, want %v", rep, want)
	}
}

func TestKeepInComponent(t *testing.T) {
	sim := table(map[[2]int32]float64{{0, 1}: 0.9, {1, 2}: 0.9, {0, 2}: 0.1})
	rep := []int32{0, 1, 2}
	members := []int32{0, 1, 2}
	KeepInComponent(members, 0.8, KeepFirst, nil, rep, sim)
	if !slices.Equal(rep, []int32{0, 0, 2}) {
		t.Fatalf("rep %v", rep)
	}
	if err := Keep("middle").Validate(); err == nil || !strings.Contains(err.Error(), "middle") {
		t.Fatalf("bad keep: %v", err)
	}
}
