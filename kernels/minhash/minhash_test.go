package minhash

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cespare/xxhash/v2"

	"github.com/sluice-data/sluice/kernels/ngram"
	"github.com/sluice-data/sluice/kernels/normalize"
	"github.com/sluice-data/sluice/kernels/words"
)

func newHasher(t testing.TB, p Params) *Hasher {
	t.Helper()
	h, err := NewHasher(p)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func signature(h *Hasher, text string) []uint32 {
	var s Scratch
	sig := make([]uint32, h.Params().NumPerm)
	h.Signature(&s, []byte(text), sig)
	return sig
}

func shingles(h *Hasher, text string) []uint64 {
	var s Scratch
	return h.Shingles(&s, []byte(text), nil)
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		p    Params
		want []string // substrings of the error, one a problem; none for valid
	}{
		{"default", DefaultParams(), nil},
		{"one band", Params{NumPerm: 128, Bands: 1, NGram: 5}, nil},
		{"odd num_perm", Params{NumPerm: 7, Bands: 7, NGram: 1}, nil},
		{"bands not dividing", Params{NumPerm: 128, Bands: 10, NGram: 5}, []string{"bands 10 does not divide num_perm 128"}},
		{"bands above num_perm", Params{NumPerm: 8, Bands: 16, NGram: 5}, []string{"bands 16 does not divide num_perm 8"}},
		{"zero value", Params{}, []string{"num_perm 0 out of range", "bands 0 must be at least 1", "ngram 0 must be at least 1"}},
		{"negative", Params{NumPerm: -1, Bands: -2, NGram: -3}, []string{"num_perm -1", "bands -2", "ngram -3"}},
		{"too many permutations", Params{NumPerm: 1 << 20, Bands: 1, NGram: 5}, []string{"num_perm 1048576 out of range"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Validate()
			_, herr := NewHasher(tc.p)
			if len(tc.want) == 0 {
				if err != nil || herr != nil {
					t.Fatalf("Validate() = %v, NewHasher error %v; want nil", err, herr)
				}
				return
			}
			if err == nil || herr == nil {
				t.Fatalf("Validate() = %v, NewHasher error %v; want errors", err, herr)
			}
			msg := err.Error()
			if lines := strings.Count(msg, "\n") + 1; lines != len(tc.want) {
				t.Errorf("Validate() = %q: %d problems, want %d", msg, lines, len(tc.want))
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("Validate() = %q, want it to contain %q", msg, w)
				}
			}
			if !strings.HasPrefix(msg, "minhash: ") {
				t.Errorf("Validate() = %q, want the package prefix", msg)
			}
		})
	}
}

func TestThreshold(t *testing.T) {
	p := DefaultParams()
	if r := p.Rows(); r != 8 {
		t.Fatalf("Rows() = %d, want 8", r)
	}
	th := p.Threshold50()
	if math.Abs(th-0.7) > 0.03 {
		t.Errorf("Threshold50() = %v, want about 0.7", th)
	}
	if got := Probability(th, p.Bands, p.Rows()); math.Abs(got-0.5) > 1e-12 {
		t.Errorf("Probability(Threshold50()) = %v, want 0.5", got)
	}
	// The usual approximation lies a little above the exact midpoint.
	approx := math.Pow(1/float64(p.Bands), 1/float64(p.Rows()))
	if !(th < approx && approx-th < 0.05) {
		t.Errorf("Threshold50() = %v, (1/b)^(1/r) = %v", th, approx)
	}
	if th := (Params{NumPerm: 128, Bands: 10}).Threshold50(); !math.IsNaN(th) {
		t.Errorf("Threshold50() of invalid Params = %v, want NaN", th)
	}
	if r := (Params{NumPerm: 128}).Rows(); r != 0 {
		t.Errorf("Rows() without bands = %d, want 0", r)
	}
}

func TestProbability(t *testing.T) {
	cases := []struct {
		s           float64
		bands, rows int
		want        float64
	}{
		{0, 16, 8, 0},
		{1, 16, 8, 1},
		{0.5, 1, 1, 0.5},
		{0.5, 2, 1, 0.75},
		{0.8, 16, 8, 1 - math.Pow(1-math.Pow(0.8, 8), 16)},
		{0.3, 16, 8, 1 - math.Pow(1-math.Pow(0.3, 8), 16)},
		{1e-3, 20, 10, 20e-30}, // s^r tiny: 1-(1-x)^b ≈ b·x without rounding to 0
	}
	for _, tc := range cases {
		got := Probability(tc.s, tc.bands, tc.rows)
		if math.Abs(got-tc.want) > 1e-9*tc.want && math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("Probability(%v, %d, %d) = %v, want %v", tc.s, tc.bands, tc.rows, got, tc.want)
		}
	}
	// Monotone in s.
	prev := -1.0
	for s := 0.0; s <= 1; s += 0.01 {
		p := Probability(s, 16, 8)
		if p < prev {
			t.Fatalf("Probability(%v) = %v < Probability(%v) = %v", s, p, s-0.01, prev)
		}
		prev = p
	}
}

const sample = "The old mill stood at the bend of the river, where the water slowed " +
	"before the weir and spread into a wide, brown pool. For almost two hundred years " +
	"the miller's family had ground wheat there."

func TestIdentical(t *testing.T) {
	h := newHasher(t, DefaultParams())
	a, b := signature(h, sample), signature(h, strings.Clone(sample))
	if !slices.Equal(a, b) {
		t.Fatal("identical texts, different signatures")
	}
	if e := EstimateJaccard(a, b); e != 1 {
		t.Errorf("EstimateJaccard = %v, want 1", e)
	}
	if slices.Contains(a, Empty) {
		t.Errorf("signature of a text with words holds Empty: %v", a)
	}
}

func TestMatchFormVariants(t *testing.T) {
	h := newHasher(t, DefaultParams())
	base := "hello world it s fine the cafe s creme brulee was naive"
	variants := []string{
		base,
		"Hello, World! It's fine; the café's crème brûlée was naïve.",
		"HELLO WORLD — IT’S FINE: THE CAFÉ’S CRÈME BRÛLÉE WAS NAÏVE!!!",
		"  hello\tworld\n\nit's   fine...\r\nthe cafe\u0301's cre\u0300me brule\u0301e was nai\u0308ve  ",
		"Ｈｅｌｌｏ ｗｏｒｌｄ it’s ﬁne\u00AD the café s crème brûlée was naïve",
	}
	want := signature(h, base)
	wantSet := shingles(h, base)
	for _, v := range variants {
		if got := signature(h, v); !slices.Equal(got, want) {
			t.Errorf("signature of %q differs from that of %q", v, base)
		}
		if got := shingles(h, v); !slices.Equal(got, wantSet) {
			t.Errorf("shingles of %q differ from those of %q", v, base)
		}
	}
	// A different word is a different text.
	if got := signature(h, base+" indeed"); slices.Equal(got, want) {
		t.Error("an extra word left the signature unchanged")
	}
}

func TestShortText(t *testing.T) {
	h := newHasher(t, DefaultParams()) // 5-grams
	cases := []struct {
		text string
		want int // shingles
	}{
		{"", 0},
		{" \n\t ", 0},
		{"... !!! --- ???", 0},
		{"one", 1},
		{"one two three", 1},
		{"One, two; THREE four", 1},
		{"one two three four five", 1},
		{"one two three four five six", 2},
		{"one two three four five one two three four five", 5}, // 6 shingles, the first repeated
	}
	for _, tc := range cases {
		got := shingles(h, tc.text)
		if len(got) != tc.want {
			t.Errorf("Shingles(%q) has %d shingles, want %d", tc.text, len(got), tc.want)
		}
		sig := signature(h, tc.text)
		allEmpty := !slices.ContainsFunc(sig, func(v uint32) bool { return v != Empty })
		if allEmpty != (tc.want == 0) {
			t.Errorf("signature of %q all Empty = %v, want %v", tc.text, allEmpty, tc.want == 0)
		}
	}
	// A short text is the one shingle of all its words, in order: the
	// combination of its word hashes, as for a full shingle.
	got := shingles(h, "one two three")
	want := ngram.Combine([]uint64{xxhash.Sum64String("one"), xxhash.Sum64String("two"), xxhash.Sum64String("three")})
	if len(got) != 1 || got[0] != want {
		t.Errorf("Shingles(one two three) = %x, want [%x]", got, want)
	}
	if slices.Equal(shingles(h, "one two three"), shingles(h, "three two one")) {
		t.Error("word order is lost")
	}
	if slices.Equal(shingles(h, "one two"), shingles(h, "one two three")) {
		t.Error("short texts of different lengths share their shingle")
	}
	// A shingle is its words, not their bytes: "ab c" and "a bc" differ.
	if slices.Equal(shingles(h, "ab c"), shingles(h, "a bc")) {
		t.Error("word boundaries are lost")
	}
}

func TestEmptySignature(t *testing.T) {
	h := newHasher(t, DefaultParams())
	a, b := signature(h, ""), signature(h, "¡¿…!?")
	for i := range a {
		if a[i] != Empty || b[i] != Empty {
			t.Fatalf("empty signature holds %d, %d at %d", a[i], b[i], i)
		}
	}
	if e := EstimateJaccard(a, b); e != 1 {
		t.Errorf("EstimateJaccard of two empty signatures = %v, want 1", e)
	}
	if j := Jaccard[uint64](nil, nil); j != 1 {
		t.Errorf("Jaccard of two empty sets = %v, want 1", j)
	}
	if e := EstimateJaccard(a, signature(h, sample)); e != 0 {
		t.Errorf("EstimateJaccard(empty, sample) = %v, want 0", e)
	}
}

// rng is a small deterministic generator for test texts.
type rng uint64

func (r *rng) next() uint64 { return splitmix64((*uint64)(r)) }

func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// vocabulary returns the distinct lowercase words of testdata/prose.txt.
func vocabulary(t testing.TB) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/prose.txt")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.FieldsFunc(strings.ToLower(string(b)), func(r rune) bool { return r < 'a' || r > 'z' })
	slices.Sort(f)
	return slices.Compact(f)
}

// pair returns a text of n words drawn from vocab and a copy in which a
// fraction q of the words, at random positions, is replaced by words found
// nowhere else.
func pair(r *rng, vocab []string, n int, q float64) (string, string) {
	a := make([]string, n)
	for i := range a {
		a[i] = vocab[r.intn(len(vocab))]
	}
	b := slices.Clone(a)
	for range int(math.Round(q * float64(n))) {
		b[r.intn(n)] = fmt.Sprintf("zz%dq", r.next()%1e9)
	}
	return strings.Join(a, " "), strings.Join(b, " ")
}

// replaceRate returns the word replacement probability that gives 5-gram
// shingle sets of Jaccard similarity j: a shingle survives when none of
// its words is replaced, and j = s/(2-s) for a shared fraction s.
func replaceRate(j float64) float64 {
	s := 2 * j / (1 + j)
	return 1 - math.Pow(s, 1.0/5)
}

func TestEstimateJaccard(t *testing.T) {
	h := newHasher(t, DefaultParams())
	vocab := vocabulary(t)
	r := rng(1)
	var s Scratch
	sa := make([]uint32, 128)
	sb := make([]uint32, 128)
	for _, target := range []float64{0.9, 0.5, 0.2} {
		// The estimate of a single pair is within ±0.1; over many pairs
		// its mean is unbiased and its spread is that of 128 independent
		// trials, sqrt(J(1-J)/128): the permutations behave as
		// independent min-wise hash functions.
		const pairs = 300
		var sum, sumSq, binom float64
		for i := range pairs {
			ta, tb := pair(&r, vocab, 1000, replaceRate(target))
			j := Jaccard(h.Shingles(&s, []byte(ta), nil), h.Shingles(&s, []byte(tb), nil))
			if math.Abs(j-target) > 0.1 {
				t.Fatalf("generated pair has Jaccard %.3f, want about %.1f", j, target)
			}
			h.Signature(&s, []byte(ta), sa)
			h.Signature(&s, []byte(tb), sb)
			e := EstimateJaccard(sa, sb)
			if i == 0 && math.Abs(e-j) > 0.1 {
				t.Errorf("J %.3f: estimate %.3f off by more than 0.1", j, e)
			}
			sum += e - j
			sumSq += (e - j) * (e - j)
			binom += j * (1 - j) / 128
		}
		bias := sum / pairs
		rmse := math.Sqrt(sumSq / pairs)
		want := math.Sqrt(binom / pairs)
		t.Logf("J ≈ %.1f: bias %+.4f, rms error %.4f, binomial %.4f", target, bias, rmse, want)
		if math.Abs(bias) > 3*want/math.Sqrt(pairs)+0.002 {
			t.Errorf("J ≈ %.1f: mean error %+.4f, want about 0", target, bias)
		}
		if rmse > 1.2*want || rmse < 0.8*want {
			t.Errorf("J ≈ %.1f: rms error %.4f, want about %.4f", target, rmse, want)
		}
	}
}

func TestSeeds(t *testing.T) {
	p := DefaultParams()
	p.Seed = 42
	h1, h2 := newHasher(t, p), newHasher(t, p)
	p.Seed = 43
	h3 := newHasher(t, p)
	a, b, c := signature(h1, sample), signature(h2, sample), signature(h3, sample)
	if !slices.Equal(a, b) {
		t.Fatal("two Hashers with the same seed disagree")
	}
	if e := EstimateJaccard(a, c); e > 0.05 {
		t.Errorf("seeds 42 and 43 agree on a fraction %v of positions", e)
	}
	// Shingle hashes do not depend on the seed.
	if !slices.Equal(shingles(h1, sample), shingles(h3, sample)) {
		t.Error("shingles depend on the seed")
	}
	// Pinned values: changing them changes every stored signature.
	if got, want := fmt.Sprint(a[:6]), "[240331744 259762934 60166879 53338239 163353766 40996341]"; got != want {
		t.Errorf("signature of the sample, seed 42: %s..., want %s...", got, want)
	}
	if got, want := fmt.Sprintf("%x", h1.BandHashes(a, nil)[:2]), "[3505a99ca32f380f c732a2bcc46769]"; got != want {
		t.Errorf("band hashes of the sample, seed 42: %s..., want %s...", got, want)
	}
}

// A signature of k values is the first k values of a longer one with the
// same seed, whatever k.
func TestNumPermPrefix(t *testing.T) {
	full := signature(newHasher(t, DefaultParams()), sample)
	for k := 1; k <= 12; k++ {
		h := newHasher(t, Params{NumPerm: k, Bands: 1, NGram: 5})
		if got := signature(h, sample); !slices.Equal(got, full[:k]) {
			t.Errorf("NumPerm %d: %v, want %v", k, got, full[:k])
		}
	}
}

func TestSignatureLeavesTail(t *testing.T) {
	h := newHasher(t, Params{NumPerm: 6, Bands: 2, NGram: 2})
	var s Scratch
	sig := make([]uint32, 9)
	for i := range sig {
		sig[i] = 7
	}
	h.Signature(&s, []byte(sample), sig)
	if !slices.Equal(sig[6:], []uint32{7, 7, 7}) {
		t.Errorf("Signature wrote past NumPerm: %v", sig)
	}
}

func TestSignaturesColumn(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	texts := []string{"head of the column", "", sample, "Another text, with six words.", "x", "tail of the column"}
	valid := []bool{true, false, true, true, true, true}
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.AppendValues(texts, valid)
	arr := b.NewStringArray()
	defer arr.Release()
	n := arr.Len()
	sliced := array.NewSlice(arr, 1, int64(n-1)).(*array.String)
	defer sliced.Release()

	h := newHasher(t, DefaultParams())
	k := h.Params().NumPerm
	var s Scratch
	prefix := []uint32{1, 2, 3}
	for _, col := range []*array.String{arr, sliced} {
		got := h.Signatures(&s, col, slices.Clone(prefix))
		if len(got) != len(prefix)+col.Len()*k {
			t.Fatalf("Signatures has %d values, want %d", len(got), len(prefix)+col.Len()*k)
		}
		if !slices.Equal(got[:len(prefix)], prefix) {
			t.Errorf("Signatures overwrote dst: %v", got[:len(prefix)])
		}
		got = got[len(prefix):]
		for i := range col.Len() {
			want := signature(h, "")
			if col.IsValid(i) {
				want = signature(h, col.Value(i))
			}
			if !slices.Equal(got[i*k:(i+1)*k], want) {
				t.Errorf("row %d (%q): signature differs from Signature's", i, col.Value(i))
			}
		}
	}
	empty := array.NewSlice(arr, 2, 2).(*array.String)
	defer empty.Release()
	if got := h.Signatures(&s, empty, nil); len(got) != 0 {
		t.Errorf("Signatures of an empty column = %d values", len(got))
	}
}

// Signatures do not depend on which goroutine, or which Scratch, computes
// them.
func TestConcurrent(t *testing.T) {
	h := newHasher(t, DefaultParams())
	docs := proseDocs(t, 16, 1500)
	want := make([][]uint32, len(docs))
	for i, d := range docs {
		want[i] = signature(h, d)
	}
	var wg sync.WaitGroup
	got := make([][]uint32, len(docs))
	for w := range 4 {
		wg.Go(func() {
			var s Scratch
			for i := w; i < len(docs); i += 4 {
				got[i] = make([]uint32, 128)
				h.Signature(&s, []byte(docs[i]), got[i])
			}
		})
	}
	wg.Wait()
	for i := range docs {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("doc %d: signature depends on the goroutine", i)
		}
	}
}

func TestBandHashes(t *testing.T) {
	h := newHasher(t, DefaultParams())
	r := h.Params().Rows()
	a := signature(h, sample)
	b := signature(h, "an unrelated text about something else entirely, in other words")
	for k := range h.Params().Bands {
		// c equals a in band k only.
		c := slices.Clone(b)
		copy(c[k*r:(k+1)*r], a[k*r:(k+1)*r])
		ha, hc := h.BandHashes(a, nil), h.BandHashes(c, nil)
		for i := range ha {
			if (ha[i] == hc[i]) != (i == k) {
				t.Errorf("band %d equal: band hash %d equal = %v", k, i, ha[i] == hc[i])
			}
		}
	}
	// The band index is mixed in: equal values in different bands give
	// different hashes.
	same := make([]uint32, 128)
	hs := h.BandHashes(same, nil)
	sorted := slices.Clone(hs)
	slices.Sort(sorted)
	if len(slices.Compact(sorted)) != len(hs) {
		t.Errorf("equal bands at different indexes collide: %x", hs)
	}
	// Appends to dst.
	if got := h.BandHashes(a, []uint64{9}); len(got) != 17 || got[0] != 9 {
		t.Errorf("BandHashes did not append: %x", got)
	}
}

// BandHashes hashes the bytes its documentation describes, whatever the
// band length.
func TestBandHashesBytes(t *testing.T) {
	for _, p := range []Params{
		{NumPerm: 128, Bands: 16, NGram: 5},
		{NumPerm: 128, Bands: 1, NGram: 5},
		{NumPerm: 93, Bands: 3, NGram: 5},
		{NumPerm: 60, Bands: 2, NGram: 5},
		{NumPerm: 62, Bands: 2, NGram: 5},
	} {
		h := newHasher(t, p)
		sig := signature(h, sample)
		got := h.BandHashes(sig, nil)
		r := p.Rows()
		for k := range p.Bands {
			buf := binary.LittleEndian.AppendUint32(nil, uint32(k))
			for _, v := range sig[k*r : (k+1)*r] {
				buf = binary.LittleEndian.AppendUint32(buf, v)
			}
			if want := xxhash.Sum64(buf); got[k] != want {
				t.Errorf("%+v band %d: %x, want %x", p, k, got[k], want)
			}
		}
	}
}

func TestJaccard(t *testing.T) {
	cases := []struct {
		a, b []uint64
		want float64
	}{
		{nil, nil, 1},
		{[]uint64{1}, nil, 0},
		{[]uint64{1, 2, 3}, []uint64{1, 2, 3}, 1},
		{[]uint64{1, 2, 3}, []uint64{4, 5}, 0},
		{[]uint64{1, 2, 3, 4}, []uint64{3, 4, 5, 6}, 2.0 / 6},
		{[]uint64{1, 5, 9}, []uint64{0, 5, 10, 11}, 1.0 / 6},
	}
	for _, tc := range cases {
		if got := Jaccard(tc.a, tc.b); got != tc.want {
			t.Errorf("Jaccard(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := Jaccard(tc.b, tc.a); got != tc.want {
			t.Errorf("Jaccard(%v, %v) = %v, want %v", tc.b, tc.a, got, tc.want)
		}
	}
	h := newHasher(t, DefaultParams())
	a := shingles(h, "one two three four five six seven")
	b := shingles(h, "one two three four five six eight")
	// {12345, 23456, 34567} and {12345, 23456, 34568}.
	if got := Jaccard(a, b); got != 0.5 {
		t.Errorf("Jaccard of shingles = %v, want 0.5", got)
	}
	if !slices.IsSorted(a) {
		t.Error("Shingles not sorted")
	}
}

func TestEstimateJaccardLengths(t *testing.T) {
	if e := EstimateJaccard(nil, nil); e != 0 {
		t.Errorf("EstimateJaccard(nil, nil) = %v, want 0", e)
	}
	if e := EstimateJaccard([]uint32{1, 2, 3, 4}, []uint32{1, 0, 3, 0}); e != 0.5 {
		t.Errorf("EstimateJaccard = %v, want 0.5", e)
	}
	defer func() {
		if recover() == nil {
			t.Error("EstimateJaccard of different lengths did not panic")
		}
	}()
	EstimateJaccard([]uint32{1}, []uint32{1, 2})
}

func TestAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts need a warm pool")
	}
	h := newHasher(t, DefaultParams())
	doc := []byte(proseDocs(t, 1, 3000)[0] + " Crème brûlée, naïve café.")
	var s Scratch
	sig := make([]uint32, 128)
	bands := make([]uint64, 0, 16)
	set := make([]uint64, 0, 1024)
	h.Signature(&s, doc, sig)
	if n := testing.AllocsPerRun(20, func() { h.Signature(&s, doc, sig) }); n != 0 {
		t.Errorf("Signature allocates %v times a text", n)
	}
	if n := testing.AllocsPerRun(20, func() { h.BandHashes(sig, bands[:0]) }); n != 0 {
		t.Errorf("BandHashes allocates %v times", n)
	}
	if n := testing.AllocsPerRun(20, func() { h.Shingles(&s, doc, set[:0]) }); n != 0 {
		t.Errorf("Shingles allocates %v times", n)
	}
}

// proseDocs builds n English documents of about size bytes each: the
// sentences of testdata/prose.txt in a different order for each document,
// four to a line and a blank line now and then.
func proseDocs(t testing.TB, n, size int) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/prose.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	r := rng(7)
	docs := make([]string, n)
	for d := range docs {
		order := make([]int, len(lines))
		for i := range order {
			order[i] = i
		}
		for i := len(order) - 1; i > 0; i-- {
			j := r.intn(i + 1)
			order[i], order[j] = order[j], order[i]
		}
		var sb strings.Builder
		for k, i := 0, 0; sb.Len() < size; i++ {
			sb.WriteString(lines[order[i%len(order)]])
			k++
			switch {
			case k%9 == 0:
				sb.WriteString("\n\n")
			case k%4 == 0:
				sb.WriteString("\n")
			default:
				sb.WriteString(" ")
			}
		}
		docs[d] = strings.TrimSpace(sb.String())
	}
	return docs
}

// benchDocs returns 1000 English documents of about 3 KB and their total
// size in bytes.
func benchDocs(b *testing.B) ([][]byte, int64) {
	docs := proseDocs(b, 1000, 3000)
	out := make([][]byte, len(docs))
	var size int64
	for i, d := range docs {
		out[i] = []byte(d)
		size += int64(len(d))
	}
	return out, size
}

// reportDocs adds the docs/s metric for a benchmark that processes n
// documents an iteration.
func reportDocs(b *testing.B, n int) {
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

func BenchmarkSignature(b *testing.B) {
	docs, size := benchDocs(b)
	h := newHasher(b, DefaultParams())
	var s Scratch
	sig := make([]uint32, h.Params().NumPerm)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range docs {
			h.Signature(&s, d, sig)
		}
	}
	reportDocs(b, len(docs))
}

func BenchmarkSignatures(b *testing.B) {
	docs, size := benchDocs(b)
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	for _, d := range docs {
		sb.BinaryBuilder.Append(d)
	}
	col := sb.NewStringArray()
	sb.Release()
	defer col.Release()
	h := newHasher(b, DefaultParams())
	var s Scratch
	var dst []uint32
	var bands []uint64
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		dst = h.Signatures(&s, col, dst[:0])
		bands = bands[:0]
		for i := range len(docs) {
			bands = h.BandHashes(dst[i*128:(i+1)*128], bands)
		}
	}
	reportDocs(b, len(docs))
}

// BenchmarkStages times the steps of Signature one after the other, each
// from the output of the one before.
func BenchmarkStages(b *testing.B) {
	docs, size := benchDocs(b)
	h := newHasher(b, DefaultParams())
	var s Scratch
	sig := make([]uint32, h.Params().NumPerm)
	forms := make([][]byte, len(docs))
	xs := make([][]uint64, len(docs))
	for i, d := range docs {
		forms[i] = normalize.AppendMatchForm(nil, d)
		xs[i] = slices.Clone(h.shingleHashes(&s, d))
	}
	var form []byte
	var spans []words.Span
	b.Run("match_form", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			for _, d := range docs {
				form = normalize.AppendMatchForm(form[:0], d)
			}
		}
		reportDocs(b, len(docs))
	})
	b.Run("split", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			for _, f := range forms {
				spans = words.Split(f, spans[:0])
			}
		}
		reportDocs(b, len(docs))
	})
	b.Run("shingle_hashes", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			for _, d := range docs {
				h.shingleHashes(&s, d)
			}
		}
		reportDocs(b, len(docs))
	})
	n := 0
	for _, x := range xs {
		n += len(x)
	}
	minima := func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			for _, x := range xs {
				h.minima(x, sig)
			}
		}
		reportDocs(b, len(docs))
		b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(n), "ns/shingle")
	}
	b.Run("minima", minima)
	if useAVX512 {
		b.Run("minima_avx2", func(b *testing.B) {
			useAVX512 = false
			defer func() { useAVX512 = true }()
			minima(b)
		})
	}
	if useAVX2 {
		b.Run("minima_go", func(b *testing.B) {
			avx2, avx512 := useAVX2, useAVX512
			useAVX2, useAVX512 = false, false
			defer func() { useAVX2, useAVX512 = avx2, avx512 }()
			minima(b)
		})
	}
}

// The assembly kernels and the Go code of the minima agree, for any
// number of shingles.
func TestMinimaKernels(t *testing.T) {
	kernels := asmKernels()
	if len(kernels) == 0 {
		t.Skip("no assembly kernel runs here: only the Go code")
	}
	h := newHasher(t, Params{NumPerm: 96, Bands: 1, NGram: 5, Seed: 3})
	r := rng(5)
	for _, n := range []int{1, 2, 3, 4, 5, 7, 64, 127, 128, 129, 1000, 1001} {
		xs := make([]uint64, n)
		for i := range xs {
			xs[i] = r.next()
		}
		if n == 7 { // extremes
			xs[0], xs[1], xs[2] = 0, math.MaxUint64, 1<<32-1
		}
		for i := 0; i < len(h.coef)/blockWords; i++ {
			blk := (*[blockWords]uint64)(h.coef[i*blockWords:])
			var want [blockValues]uint32
			minimaBlockGeneric(blk, xs, &want)
			for name, kernel := range kernels {
				var got [blockValues]uint32
				kernel(blk, xs, &got)
				if got != want {
					t.Fatalf("%d shingles, block %d: %s %v, Go %v", n, i, name, got, want)
				}
			}
		}
	}
	// A position is the minimum of its half of a_j*x + b_j.
	xs := []uint64{r.next(), r.next(), r.next()}
	sig := make([]uint32, 96)
	h.minima(xs, sig)
	for j := range 48 {
		blk := h.coef[j/blockMaps*blockWords:]
		a, b := blk[j%blockMaps], blk[blockMaps+j%blockMaps]
		lo, hi := uint32(math.MaxUint32), uint32(math.MaxUint32)
		for _, x := range xs {
			p := a*x + b
			lo, hi = min(lo, uint32(p)), min(hi, uint32(p>>32))
		}
		if sig[2*j] != lo || sig[2*j+1] != hi || a >= 1<<32 || a&1 == 0 {
			t.Fatalf("map %d (a %x): %d %d, want %d %d", j, a, sig[2*j], sig[2*j+1], lo, hi)
		}
	}
}
