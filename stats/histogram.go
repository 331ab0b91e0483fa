// Package stats holds small, mergeable summaries of large streams of
// numbers, so commands can report distributions (text lengths, token
// counts) over a whole corpus in constant memory.
package stats

import (
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
)

const (
	// exactLimit is the first value that shares its bucket with others:
	// every value below it is counted exactly.
	exactLimit = 1024
	exactBits  = 10 // exactLimit == 1 << exactBits
	// subBits sets the buckets per power of two above exactLimit: 128, so
	// a bucket is at most 1/128 (0.78%) of its lower bound wide and its
	// representative value is within 0.4% of any value in it.
	subBits = 7
	subMask = 1<<subBits - 1
)

// Histogram summarizes non-negative integers in log-spaced buckets: exact
// below 1024, then 128 buckets per power of two, so a quantile is within 1%
// of the true value (within 0.4% in fact) whatever the distribution.
// Min, Max, Sum and Count are exact. Memory grows with the logarithm of the
// largest value (about 8 KB for values up to a million), not with the
// number of values. Histograms merge, so workers or shards can each keep
// one. The zero value is an empty histogram; a Histogram is not safe for
// concurrent use.
type Histogram struct {
	counts   []int64 // by bucket index; grown to the largest bucket used
	n        int64
	sum      int64
	min, max int64
}

// bucketOf returns the index of v's bucket; v must be non-negative.
func bucketOf(v int64) int {
	if v < exactLimit {
		return int(v)
	}
	e := bits.Len64(uint64(v)) - 1 // exactBits <= e <= 62
	sub := int(uint64(v)>>(e-subBits)) & subMask
	return exactLimit + (e-exactBits)<<subBits + sub
}

// bucketValue returns the value that stands for bucket i: the value itself
// below exactLimit, the middle of the bucket above.
func bucketValue(i int) int64 {
	if i < exactLimit {
		return int64(i)
	}
	j := i - exactLimit
	e := j>>subBits + exactBits
	width := int64(1) << (e - subBits)
	lo := int64(1)<<e + int64(j&subMask)*width
	return lo + (width-1)/2
}

// Add records v. Negative values are recorded as 0.
func (h *Histogram) Add(v int64) {
	v = max(v, 0)
	b := bucketOf(v)
	if b >= len(h.counts) {
		h.grow(b + 1)
	}
	h.counts[b]++
	if h.n == 0 || v < h.min {
		h.min = v
	}
	if h.n == 0 || v > h.max {
		h.max = v
	}
	h.n++
	h.sum += v
}

func (h *Histogram) grow(n int) {
	if n <= cap(h.counts) {
		h.counts = h.counts[:n]
		return
	}
	c := make([]int64, n, max(n, 2*cap(h.counts)))
	copy(c, h.counts)
	h.counts = c
}

// Merge adds every value recorded in o to h. o is not changed.
func (h *Histogram) Merge(o *Histogram) {
	if o.n == 0 {
		return
	}
	if len(o.counts) > len(h.counts) {
		h.grow(len(o.counts))
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	if h.n == 0 || o.max > h.max {
		h.max = o.max
	}
	h.n += o.n
	h.sum += o.sum
}

// Count returns the number of values recorded.
func (h *Histogram) Count() int64 { return h.n }

// Sum returns the sum of the values recorded.
func (h *Histogram) Sum() int64 { return h.sum }

// Min returns the smallest value recorded, or 0 when there is none.
func (h *Histogram) Min() int64 { return h.min }

// Max returns the largest value recorded, or 0 when there is none.
func (h *Histogram) Max() int64 { return h.max }

// Mean returns the mean of the values recorded, or 0 when there is none.
func (h *Histogram) Mean() float64 {
	if h.n == 0 {
		return 0
	}
	return float64(h.sum) / float64(h.n)
}

// Quantile returns the q-quantile (0 <= q <= 1) by nearest rank: the
// value at rank ceil(q*Count) in sorted order, as its bucket's
// representative value, clamped to [Min, Max]. Quantile(0) is Min and
// Quantile(1) is Max; an empty histogram returns 0.
func (h *Histogram) Quantile(q float64) int64 {
	switch {
	case h.n == 0:
		return 0
	case q <= 0:
		return h.min
	case q >= 1:
		return h.max
	}
	rank := int64(math.Ceil(q * float64(h.n)))
	rank = min(max(rank, 1), h.n)
	var seen int64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return min(max(bucketValue(i), h.min), h.max)
		}
	}
	return h.max
}

// histogramJSON is how a Histogram is written: its exact totals and its
// non-empty buckets as [index, count] pairs, so a histogram written by one
// process (a shard's manifest) merges exactly in another.
type histogramJSON struct {
	Count   int64      `json:"count"`
	Sum     int64      `json:"sum"`
	Min     int64      `json:"min"`
	Max     int64      `json:"max"`
	Buckets [][2]int64 `json:"buckets"`
}

// MarshalJSON writes h with its buckets, so that it can be read back and
// merged (UnmarshalJSON).
func (h Histogram) MarshalJSON() ([]byte, error) {
	j := histogramJSON{Count: h.n, Sum: h.sum, Min: h.min, Max: h.max, Buckets: [][2]int64{}}
	for i, c := range h.counts {
		if c != 0 {
			j.Buckets = append(j.Buckets, [2]int64{int64(i), c})
		}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON wrote, checking that the buckets
// add up to the count.
func (h *Histogram) UnmarshalJSON(b []byte) error {
	var j histogramJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	var r Histogram
	var total int64
	for _, bc := range j.Buckets {
		i, c := bc[0], bc[1]
		if i < 0 || i > int64(bucketOf(math.MaxInt64)) || c < 0 {
			return fmt.Errorf("histogram: bucket [%d, %d] out of range", i, c)
		}
		if int(i) >= len(r.counts) {
			r.grow(int(i) + 1)
		}
		r.counts[i] += c
		total += c
	}
	if total != j.Count {
		return fmt.Errorf("histogram: buckets hold %d values, count says %d", total, j.Count)
	}
	r.n, r.sum, r.min, r.max = j.Count, j.Sum, j.Min, j.Max
	*h = r
	return nil
}
