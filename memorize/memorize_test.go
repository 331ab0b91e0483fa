package memorize

import (
	"math"
	"strings"
	"testing"
	"unsafe"
)

func ptr[T any](v T) *T { return &v }

func TestScoreProbesByHand(t *testing.T) {
	dup := func(n int64) *int64 { return &n }
	probes := []Probe{
		{ID: "a", Tokenizer: "cl100k_base", SuffixIDs: []int{1, 2, 3, 4}, DupCount: dup(1)},
		{ID: "b", Tokenizer: "cl100k_base", SuffixIDs: []int{1, 2, 3, 4}, DupCount: dup(1)},
		{ID: "c", Tokenizer: "cl100k_base", SuffixIDs: []int{5, 6, 7, 8}, DupCount: dup(6)},
		{ID: "d", Tokenizer: "cl100k_base", SuffixIDs: []int{5, 6, 7, 8}, DupCount: dup(7)},
	}
	gens := map[string]Generation{
		"a": {ID: "a", GenerationIDs: []int{1, 2, 3, 4, 99}}, // perfect, and more
		"b": {ID: "b", GenerationIDs: []int{1, 2, 9}},        // 2 tokens right
		"c": {ID: "c", GenerationIDs: []int{5, 6, 7}},        // 3 right, stops short
		"x": {ID: "x", GenerationIDs: []int{1}},              // no such probe
	}
	rep, err := ScoreProbes(probes, gens, 3)
	if err != nil {
		t.Fatal(err)
	}
	if rep.GroupBy != "dup_count" || rep.Missing != 1 || rep.Unknown != 1 {
		t.Fatalf("report %+v", rep)
	}
	tot := rep.Total
	if tot.Items != 4 || tot.Scored != 3 || tot.Exact != 1 || tot.LCPMean != 3 || tot.LCPMax != 4 || tot.LCPP50 != 3 || tot.Verbatim != 2 {
		t.Fatalf("total %+v", tot)
	}
	if len(rep.Groups) != 2 || rep.Groups[0].Group != "1" || rep.Groups[1].Group != "5-8" {
		t.Fatalf("groups %+v", rep.Groups)
	}
	g1 := rep.Groups[0]
	if g1.Scored != 2 || g1.ExactRt != 0.5 || g1.LCPMean != 3 || g1.LCPHist["1-4"] != 2 {
		t.Fatalf("group 1 %+v", g1)
	}
	if g := rep.Groups[1]; g.Items != 2 || g.Scored != 1 || g.Exact != 0 || g.LCPMean != 3 {
		t.Fatalf("group 5-8 %+v", g)
	}
}

func TestScoreProbesPerfectAndUselessModels(t *testing.T) {
	probes := []Probe{
		{ID: "p1", Tokenizer: "cl100k_base", Suffix: " the quick brown fox jumps over the lazy dog"},
		{ID: "p2", Tokenizer: "cl100k_base", Suffix: " and then, quite suddenly, it rained for a week"},
	}
	perfect := map[string]Generation{"p1": {ID: "p1", Generation: ptr(probes[0].Suffix)}, "p2": {ID: "p2", Generation: ptr(probes[1].Suffix + " more")}}
	rep, err := ScoreProbes(probes, perfect, 5)
	if err != nil {
		t.Fatal(err)
	}
	// The suffixes are 9 and 12 cl100k_base tokens.
	if rep.Total.ExactRt != 1 || rep.Total.VerbRt != 1 || rep.Total.LCPMean != 10.5 || rep.Total.LCPMax != 12 {
		t.Fatalf("perfect model: %+v", rep.Total)
	}
	useless := map[string]Generation{"p1": {ID: "p1", Generation: ptr("I don't know.")}, "p2": {ID: "p2", Generation: ptr("")}}
	rep, _ = ScoreProbes(probes, useless, 5)
	if rep.Total.ExactRt != 0 || rep.Total.LCPMean != 0 || rep.Total.Verbatim != 0 || rep.Total.Scored != 2 {
		t.Fatalf("useless model: %+v", rep.Total)
	}
}

func TestScoreCanariesExposure(t *testing.T) {
	cs, err := Generate(CanaryParams{N: 4, Repeats: []int{1, 10}, Seed: 3, Format: DefaultFormat, Digits: 6})
	if err != nil {
		t.Fatal(err)
	}
	gens := map[string]Generation{
		cs[0].ID: {ID: cs[0].ID, Generation: ptr(" " + cs[0].Secret + " and so on"), Rank: ptr(1.0)},
		cs[1].ID: {ID: cs[1].ID, Generation: ptr("123"), LogLik: ptr(-1.0), CandidateLogLiks: []float64{-5, -6, -7}},
		cs[2].ID: {ID: cs[2].ID, Rank: ptr(1000.0)},
		cs[3].ID: {ID: cs[3].ID, LogLik: ptr(-9.0), CandidateLogLiks: []float64{-5, -6, -7}},
	}
	rep := ScoreCanaries(cs, gens, 50)
	if len(rep.Groups) != 2 || rep.Groups[0].Group != "1" || rep.Groups[1].Group != "10" {
		t.Fatalf("groups %+v", rep.Groups)
	}
	space := math.Log2(1e6)
	once, ten := rep.Groups[0], rep.Groups[1]
	// repeats 1: canaries 0 (rank 1) and 2 (rank 1000).
	if once.Exact != 1 || once.Exposure.Canaries != 2 || math.Abs(once.Exposure.Max-space) > 1e-9 ||
		math.Abs(once.Exposure.Mean-(space+space-math.Log2(1000))/2) > 1e-9 {
		t.Fatalf("repeats 1: %+v %+v", once, once.Exposure)
	}
	// repeats 10: canary 1 beats all 3 candidates (exposure log2 4 = 2), canary 3 none (0).
	if ten.Exposure.Mean != 1 || ten.Exposure.Max != 2 || ten.Exposure.Bound != 2 || ten.Exact != 0 {
		t.Fatalf("repeats 10: %+v %+v", ten, ten.Exposure)
	}
}

func TestGenerateIsSeeded(t *testing.T) {
	p := CanaryParams{N: 50, Repeats: []int{1, 10, 100}, Seed: 7, Format: DefaultFormat, Digits: 9}
	a, _ := Generate(p)
	b, _ := Generate(p)
	p.Seed = 8
	c, _ := Generate(p)
	seen := map[string]bool{}
	for i := range a {
		if a[i].Secret != b[i].Secret || a[i].Text != b[i].Text {
			t.Fatal("same seed, other canaries")
		}
		if seen[a[i].Secret] || len(a[i].Secret) != 9 {
			t.Fatalf("secret %q repeated or of the wrong length", a[i].Secret)
		}
		seen[a[i].Secret] = true
		if !strings.HasPrefix(a[i].Text, "my secret canary code is ") || a[i].Repeats != []int{1, 10, 100}[i%3] {
			t.Fatalf("canary %+v", a[i])
		}
	}
	if a[0].Secret == c[0].Secret && a[1].Secret == c[1].Secret {
		t.Fatal("another seed gives the same canaries")
	}
	if _, err := Generate(CanaryParams{N: 1, Repeats: []int{0}, Format: "no placeholder", Digits: 2}); err == nil ||
		!strings.Contains(err.Error(), "repeat count 0") || !strings.Contains(err.Error(), "{secret}") || !strings.Contains(err.Error(), "digits") {
		t.Fatalf("every problem is listed: %v", err)
	}
}

func TestSplicePutsCanariesBetweenParagraphs(t *testing.T) {
	cs := []Canary{{Text: "CANARY"}}
	text := []byte("first para\n\nsecond para")
	for where, want := range []string{
		"CANARY\n\nfirst para\n\nsecond para",
		"first para\n\nCANARY\n\nsecond para",
		"first para\n\nsecond para\n\nCANARY",
	} {
		if got := string(Splice(text, []Copy{{Where: uint64(where)}}, cs)); got != want {
			t.Fatalf("where %d: %q, want %q", where, got, want)
		}
	}
	if got := string(Splice(nil, []Copy{{}}, cs)); got != "CANARY" {
		t.Fatalf("empty text: %q", got)
	}
	if got := string(Splice(text, []Copy{{Where: 1}, {Where: 1}}, cs)); strings.Count(got, "CANARY") != 2 {
		t.Fatalf("two copies: %q", got)
	}
}

func TestDupStratum(t *testing.T) {
	for n, want := range map[int64]string{0: "unknown", 1: "1", 2: "2", 3: "3-4", 4: "3-4", 5: "5-8", 8: "5-8", 9: "9-16", 100: "65-128"} {
		if got := DupStratum(n); got != want {
			t.Errorf("DupStratum(%d) = %s, want %s", n, got, want)
		}
	}
}

func TestSamplerIgnoresOfferOrder(t *testing.T) {
	var docs []Doc
	for i := 0; i < 60; i++ {
		id := "doc" + string(rune('a'+i%20)) // every id three times
		text := strings.Repeat("word"+string(rune('a'+i%26))+" and more words follow here. ", 10)
		docs = append(docs, Doc{ID: id, Source: []string{"web", "books"}[i%2], Pos: uint64(i), Text: []byte(text)})
	}
	sample := func(order []int, seed uint64) []Probe {
		s, err := NewSampler(ProbeParams{N: 7, PrefixTokens: 8, SuffixTokens: 8, Tokenizer: "cl100k_base", Seed: seed, StratifyBy: "source", Offset: "random"})
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range order {
			s.Offer(docs[i])
		}
		return s.Probes()
	}
	forward, backward := make([]int, 60), make([]int, 60)
	for i := range forward {
		forward[i], backward[i] = i, 59-i
	}
	a, b := sample(forward, 1), sample(backward, 1)
	if len(a) != 7 {
		t.Fatalf("%d probes", len(a))
	}
	for i := range a {
		if a[i].SourceID != b[i].SourceID || a[i].pos != b[i].pos || a[i].Prefix != b[i].Prefix || a[i].ID != b[i].ID {
			t.Fatalf("probe %d differs with the offer order: %+v vs %+v", i, a[i], b[i])
		}
	}
	c := sample(forward, 2)
	same := 0
	for i := range a {
		if a[i].pos == c[i].pos {
			same++
		}
	}
	if same == len(a) {
		t.Fatal("another seed gave the same sample")
	}
}

// A document's source may view memory the caller reuses (a batch's column):
// the probe and its stratum keep copies.
func TestSamplerCopiesTheSource(t *testing.T) {
	s, err := NewSampler(ProbeParams{N: 1, PrefixTokens: 2, SuffixTokens: 2, Tokenizer: "cl100k_base", Seed: 1, StratifyBy: "source", Offset: "start"})
	if err != nil {
		t.Fatal(err)
	}
	buf := []byte("books")
	s.Offer(Doc{ID: "d1", Source: unsafe.String(&buf[0], len(buf)), Pos: 1, Text: []byte("one two three four five six")})
	copy(buf, "xxxxx")
	ps := s.Probes()
	if len(ps) != 1 || ps[0].Source != "books" || ps[0].Stratum != "books" {
		t.Fatalf("probes %+v", ps)
	}
}
