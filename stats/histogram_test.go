package stats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// nearestRank is the exact quantile that Histogram.Quantile approximates.
func nearestRank(sorted []int64, q float64) int64 {
	rank := int(math.Ceil(q * float64(len(sorted))))
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}

func TestHistogramQuantilesWithinOnePercent(t *testing.T) {
	rng := func() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }
	cases := []struct {
		name string
		gen  func(r *rand.Rand, i int) int64
		n    int
	}{
		{"single value", func(*rand.Rand, int) int64 { return 4711 }, 1},
		{"constant", func(*rand.Rand, int) int64 { return 123456 }, 1000},
		{"zeros", func(*rand.Rand, int) int64 { return 0 }, 100},
		{"exact range 0..1023", func(r *rand.Rand, _ int) int64 { return r.Int64N(1024) }, 20000},
		{"sequence 0..4999", func(_ *rand.Rand, i int) int64 { return int64(i) }, 5000},
		{"uniform up to 1e6", func(r *rand.Rand, _ int) int64 { return r.Int64N(1_000_000) }, 50000},
		{"exponential mean 2000", func(r *rand.Rand, _ int) int64 { return int64(r.ExpFloat64() * 2000) }, 50000},
		{"lognormal text lengths", func(r *rand.Rand, _ int) int64 { return int64(math.Exp(7 + 1.5*r.NormFloat64())) }, 50000},
		{"powers of two", func(_ *rand.Rand, i int) int64 { return int64(1) << (i % 62) }, 620},
		{"huge values", func(r *rand.Rand, _ int) int64 { return 1<<50 + r.Int64N(1<<50) }, 1000},
		{"largest int64", func(*rand.Rand, int) int64 { return math.MaxInt64 }, 1},
	}
	qs := []float64{0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := rng()
			var h Histogram
			vals := make([]int64, tc.n)
			var sum int64
			for i := range vals {
				vals[i] = tc.gen(r, i)
				h.Add(vals[i])
				sum += vals[i]
			}
			slices.Sort(vals)
			if h.Count() != int64(tc.n) || h.Min() != vals[0] || h.Max() != vals[len(vals)-1] || h.Sum() != sum {
				t.Fatalf("count/min/max/sum = %d/%d/%d/%d, want %d/%d/%d/%d",
					h.Count(), h.Min(), h.Max(), h.Sum(), tc.n, vals[0], vals[len(vals)-1], sum)
			}
			for _, q := range qs {
				want := nearestRank(vals, q)
				got := h.Quantile(q)
				if want < exactLimit && got != want {
					t.Errorf("Quantile(%v) = %d, want exactly %d", q, got, want)
				}
				if diff := math.Abs(float64(got) - float64(want)); diff > 0.01*float64(want) {
					t.Errorf("Quantile(%v) = %d, want %d within 1%% (off by %.3f%%)", q, got, want, 100*diff/float64(want))
				}
			}
		})
	}
}

func TestHistogramMergeEqualsAddingAll(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var all, a, b, empty Histogram
	for i := 0; i < 30000; i++ {
		v := int64(math.Exp(6 + 2*r.NormFloat64()))
		all.Add(v)
		if i%3 == 0 {
			a.Add(v)
		} else {
			b.Add(v)
		}
	}
	var merged Histogram
	merged.Merge(&empty)
	merged.Merge(&a)
	merged.Merge(&b)
	merged.Merge(&empty)
	if merged.Count() != all.Count() || merged.Sum() != all.Sum() || merged.Min() != all.Min() || merged.Max() != all.Max() {
		t.Fatalf("merged count/sum/min/max %d/%d/%d/%d, want %d/%d/%d/%d", merged.Count(), merged.Sum(),
			merged.Min(), merged.Max(), all.Count(), all.Sum(), all.Min(), all.Max())
	}
	for _, q := range []float64{0, 0.1, 0.5, 0.9, 0.99, 1} {
		if got, want := merged.Quantile(q), all.Quantile(q); got != want {
			t.Errorf("merged Quantile(%v) = %d, want %d", q, got, want)
		}
	}
}

func TestHistogramEmptyAndNegative(t *testing.T) {
	var h Histogram
	if h.Quantile(0.5) != 0 || h.Min() != 0 || h.Max() != 0 || h.Mean() != 0 {
		t.Fatal("empty histogram should report zeros")
	}
	h.Add(-5)
	h.Add(10)
	if h.Min() != 0 || h.Max() != 10 || h.Quantile(0.5) != 0 || h.Mean() != 5 {
		t.Fatalf("min %d max %d p50 %d mean %v, want 0 10 0 5", h.Min(), h.Max(), h.Quantile(0.5), h.Mean())
	}
}

func TestHistogramBucketsCoverEveryValueOnce(t *testing.T) {
	// Bucket indexes rise with the value and each representative value
	// falls back into its own bucket.
	prev := -1
	for v := int64(0); v < 1<<16; v++ {
		b := bucketOf(v)
		if b < prev || b > prev+1 {
			t.Fatalf("bucketOf(%d) = %d after %d", v, b, prev)
		}
		if bucketOf(bucketValue(b)) != b {
			t.Fatalf("bucketValue(%d) = %d lies outside its bucket", b, bucketValue(b))
		}
		prev = b
	}
}

// A histogram written as JSON by one process and read by another merges
// as if both had added every value themselves.
func TestHistogramJSONRoundTripMerges(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var all, a, b Histogram
	for i := 0; i < 20000; i++ {
		v := int64(math.Exp(5 + 2*r.NormFloat64()))
		all.Add(v)
		if i%2 == 0 {
			a.Add(v)
		} else {
			b.Add(v)
		}
	}
	var merged Histogram
	for _, h := range []*Histogram{&a, &b} {
		data, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		var back Histogram
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		merged.Merge(&back)
	}
	if merged.Count() != all.Count() || merged.Sum() != all.Sum() || merged.Min() != all.Min() || merged.Max() != all.Max() {
		t.Fatalf("merged count/sum/min/max %d/%d/%d/%d, want %d/%d/%d/%d", merged.Count(), merged.Sum(),
			merged.Min(), merged.Max(), all.Count(), all.Sum(), all.Min(), all.Max())
	}
	for _, q := range []float64{0.1, 0.5, 0.9, 0.99} {
		if got, want := merged.Quantile(q), all.Quantile(q); got != want {
			t.Errorf("Quantile(%v) = %d after the round trip, want %d", q, got, want)
		}
	}
	var empty Histogram
	data, _ := json.Marshal(empty)
	if err := json.Unmarshal(data, &merged); err != nil || merged.Count() != 0 {
		t.Errorf("empty histogram read back as %d values, err %v", merged.Count(), err)
	}
	for _, bad := range []string{`{"count":2,"buckets":[[3,1]]}`, `{"count":1,"buckets":[[-1,1]]}`, `{"count":1,"buckets":[[99999,1]]}`} {
		if err := json.Unmarshal([]byte(bad), &merged); err == nil {
			t.Errorf("%s read without an error", bad)
		}
	}
}
