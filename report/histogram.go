package report

import (
	"math"
)

// A signal's values are counted while the rows are read in fine bins
// (fineHist), split by the rows' verdict, so that a bar of the chart
// that straddles a threshold shows its kept and its removed rows apart.
// The chart then merges the fine bins into displayBins bars on a linear
// axis, or, when the values are skewed (most rows in one linear bar) and
// none is negative, on a log axis of 1+v.

// The sides of a row: kept by every threshold of its signal, or removed
// by one of them.
const (
	keptSide = iota
	removedSide
)

// fineHist counts values in fineBins equal bins over [lo, hi], and, when
// lo >= 0, in fineBins bins equal on the scale of log(1+v); each by side.
type fineHist struct {
	lo, hi float64
	lin    [2][]int64
	log    [2][]int64 // nil when a value may be negative
}

func newFineHist(lo, hi float64) fineHist {
	h := fineHist{lo: lo, hi: hi}
	for side := range h.lin {
		h.lin[side] = make([]int64, fineBins)
		if lo >= 0 {
			h.log[side] = make([]int64, fineBins)
		}
	}
	return h
}

func (h *fineHist) add(v float64, side int) {
	h.lin[side][fineIndex(v, h.lo, h.hi)]++
	if h.log[side] != nil {
		h.log[side][fineIndex(math.Log1p(v), math.Log1p(h.lo), math.Log1p(h.hi))]++
	}
}

func (h *fineHist) merge(o *fineHist) {
	for side := range h.lin {
		addInto(h.lin[side], o.lin[side])
		addInto(h.log[side], o.log[side])
	}
}

func addInto(dst, src []int64) {
	for i := range dst {
		dst[i] += src[i]
	}
}

// fineIndex is the fine bin of v over [lo, hi].
func fineIndex(v, lo, hi float64) int {
	b := 0
	if hi > lo {
		b = int((v - lo) / (hi - lo) * fineBins)
	}
	return min(max(b, 0), fineBins-1)
}

// axisSpace is the scale bars are equal on: linear, or log(1+v).
type axisSpace struct {
	log bool
}

func (a axisSpace) to(v float64) float64 {
	if a.log {
		return math.Log1p(v)
	}
	return v
}

func (a axisSpace) from(v float64) float64 {
	if a.log {
		return math.Expm1(v)
	}
	return v
}

// counts are the fine bins of h in space a, by side, and their range in
// that space.
func (h *fineHist) counts(a axisSpace) (bins [2][]int64, lo, hi float64) {
	if a.log {
		return h.log, math.Log1p(h.lo), math.Log1p(h.hi)
	}
	return h.lin, h.lo, h.hi
}

// Bin is one bar of a signal's histogram: the rows with a value in
// [Lo, Hi), on the kept side of every threshold and on the removed side
// of one.
type Bin struct {
	Lo, Hi        float64
	Kept, Removed int64
}

// Rows is the rows of the bar.
func (b Bin) Rows() int64 { return b.Kept + b.Removed }

// histogram is the bars of a signal: their bins, and the scales of the
// axes.
type histogram struct {
	Bins       []Bin
	LogX, LogY bool
	perValue   bool // an integer signal with a bar per value
}

// layout chooses the bars of s: displayBins equal bins over where the
// rows are, on a log axis when a linear one would squash them into one
// bar, a log count axis when one bar still holds most of them.
func (s *Signal) layout() histogram {
	lin := s.bars(axisSpace{})
	out := lin
	if s.h.log[0] != nil && !lin.perValue && maxShare(lin.Bins, s.Rows) > 0.5 {
		if lg := s.bars(axisSpace{log: true}); maxShare(lg.Bins, s.Rows) < maxShare(lin.Bins, s.Rows) {
			out = lg
		}
	}
	out.LogY = maxShare(out.Bins, s.Rows) > 0.5 && nonEmpty(out.Bins) > 1
	return out
}

// nonEmpty is the number of bars with rows.
func nonEmpty(bins []Bin) int {
	n := 0
	for _, b := range bins {
		if b.Rows() > 0 {
			n++
		}
	}
	return n
}

// maxShare is the share of rows of the tallest bar.
func maxShare(bins []Bin, rows int64) float64 {
	var m int64
	for _, b := range bins {
		m = max(m, b.Rows())
	}
	return float64(m) / math.Max(1, float64(rows))
}

// bars merges the fine bins of s in space a into the bars of its chart.
func (s *Signal) bars(a axisSpace) histogram {
	lo, hi := s.displayRange(a)
	n := displayBins
	h := histogram{LogX: a.log}
	if !a.log && s.integer && hi-lo+1 <= displayBins {
		lo, hi = math.Floor(lo)-0.5, math.Floor(hi)+0.5
		n = int(hi - lo)
		h.perValue = true
	}
	h.Bins = make([]Bin, n)
	w := (hi - lo) / float64(n)
	for i := range h.Bins {
		h.Bins[i].Lo, h.Bins[i].Hi = a.from(lo+float64(i)*w), a.from(lo+float64(i+1)*w)
	}
	bins, flo, fhi := s.h.counts(a)
	for side, counts := range bins {
		for i, c := range rebin(counts, flo, fhi, lo, hi, n) {
			if side == keptSide {
				h.Bins[i].Kept += c
			} else {
				h.Bins[i].Removed += c
			}
		}
	}
	return h
}

// displayRange is the range, in space a, that a signal's chart shows:
// where the middle 99% of the rows are, widened to the thresholds within
// the data's range.
func (s *Signal) displayRange(a axisSpace) (lo, hi float64) {
	bins, flo, fhi := s.h.counts(a)
	if fhi <= flo {
		return flo - 0.5, fhi + 0.5
	}
	total := make([]int64, fineBins)
	for _, b := range bins {
		addInto(total, b)
	}
	w := (fhi - flo) / fineBins
	lo, hi = flo, fhi
	cut := s.Rows / 200
	var cum int64
	for i, n := range total {
		if cum += n; cum > cut {
			lo = flo + float64(i)*w
			break
		}
	}
	cum = 0
	for i := len(total) - 1; i >= 0; i-- {
		if cum += total[i]; cum > cut {
			hi = flo + float64(i+1)*w
			break
		}
	}
	for _, t := range s.Thresholds {
		if t.Value >= s.h.lo && t.Value <= s.h.hi {
			v := a.to(t.Value)
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if hi <= lo {
		hi = lo + w
	}
	return lo, hi
}

// rebin counts the rows of fine bins over [flo, fhi] in n equal bins over
// [lo, hi]; rows outside go to the end bins.
func rebin(fine []int64, flo, fhi, lo, hi float64, n int) []int64 {
	out := make([]int64, n)
	w := (fhi - flo) / fineBins
	for i, c := range fine {
		if c == 0 {
			continue
		}
		mid := flo + (float64(i)+0.5)*w
		if fhi <= flo {
			mid = flo
		}
		b := int((mid - lo) / (hi - lo) * float64(n))
		out[min(max(b, 0), n-1)] += c
	}
	return out
}
