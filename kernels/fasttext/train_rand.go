package fasttext

import "math/bits"

// The random numbers and the sort of training come from libstdc++: a
// model trained with one thread and a seed is the model `fasttext
// supervised -thread 1 -seed N` trains only if every draw and every tie
// among equal word counts comes out the same. These are ports of the
// parts fastText 0.9.2 uses.

// minstd is std::minstd_rand: x = x * 48271 mod 2^31-1.
type minstd struct{ x uint64 }

const minstdM = 2147483647

// newMinstd seeds the generator as std::minstd_rand(seed) does: the seed,
// an int converted to the engine's unsigned type, modulo m; 0 becomes 1.
func newMinstd(seed int32) minstd {
	s := uint64(int64(seed)) % minstdM
	if s == 0 {
		s = 1
	}
	return minstd{x: s}
}

func (r *minstd) next() uint64 {
	r.x = r.x * 48271 % minstdM
	return r.x
}

// minstd's range: min() is 1, max() is m-1.
const (
	minstdMin   = 1
	minstdRange = minstdM - 1 - minstdMin // max - min
)

// uniformInt is std::uniform_int_distribution<>(a, b)(r) for the ranges
// smaller than the generator's: libstdc++ scales down by division and
// rejects the draws past the last whole multiple.
func (r *minstd) uniformInt(a, b uint64) uint64 {
	urange := b - a
	if urange >= minstdRange {
		panic("fasttext: uniform range larger than the generator's")
	}
	uerange := urange + 1
	scaling := minstdRange / uerange
	past := uerange * scaling
	for {
		ret := r.next() - minstdMin
		if ret < past {
			return ret/scaling + a
		}
	}
}

// canonical is std::generate_canonical<double, 53>(r): two draws.
func (r *minstd) canonical() float64 {
	const rng = float64(minstdRange + 1)
	sum := float64(r.next() - minstdMin)
	tmp := rng
	sum += float64(r.next()-minstdMin) * tmp
	tmp *= rng
	ret := sum / tmp
	if ret >= 1 {
		ret = 0.9999999999999999 // nextafter(1, 0)
	}
	return ret
}

// uniformReal is std::uniform_real_distribution<double>(a, b)(r).
func (r *minstd) uniformReal(a, b float64) float64 {
	return r.canonical()*(b-a) + a
}

// sortEntries sorts as std::sort of libstdc++ does (introsort, median of
// three, insertion sort under 16 elements, heap sort past the depth
// limit), with less as the comparison. Equal elements end up where that
// implementation puts them, which is what makes fastText's word order.
func sortEntries[T any](s []T, less func(a, b *T) bool) {
	if len(s) < 2 {
		return
	}
	introsortLoop(s, 0, len(s), 2*(bits.Len(uint(len(s)))-1), less)
	finalInsertionSort(s, 0, len(s), less)
}

const sortThreshold = 16

func introsortLoop[T any](s []T, first, last, depth int, less func(a, b *T) bool) {
	for last-first > sortThreshold {
		if depth == 0 {
			heapSortRange(s[first:last], less)
			return
		}
		depth--
		cut := partitionPivot(s, first, last, less)
		introsortLoop(s, cut, last, depth, less)
		last = cut
	}
}

func partitionPivot[T any](s []T, first, last int, less func(a, b *T) bool) int {
	mid := first + (last-first)/2
	moveMedianToFirst(s, first, first+1, mid, last-1, less)
	return unguardedPartition(s, first+1, last, first, less)
}

func moveMedianToFirst[T any](s []T, result, a, b, c int, less func(a, b *T) bool) {
	var m int
	switch {
	case less(&s[a], &s[b]):
		switch {
		case less(&s[b], &s[c]):
			m = b
		case less(&s[a], &s[c]):
			m = c
		default:
			m = a
		}
	case less(&s[a], &s[c]):
		m = a
	case less(&s[b], &s[c]):
		m = c
	default:
		m = b
	}
	s[result], s[m] = s[m], s[result]
}

func unguardedPartition[T any](s []T, first, last, pivot int, less func(a, b *T) bool) int {
	for {
		for less(&s[first], &s[pivot]) {
			first++
		}
		last--
		for less(&s[pivot], &s[last]) {
			last--
		}
		if first >= last {
			return first
		}
		s[first], s[last] = s[last], s[first]
		first++
	}
}

func finalInsertionSort[T any](s []T, first, last int, less func(a, b *T) bool) {
	if last-first > sortThreshold {
		insertionSort(s, first, first+sortThreshold, less)
		for i := first + sortThreshold; i < last; i++ {
			unguardedLinearInsert(s, i, less)
		}
		return
	}
	insertionSort(s, first, last, less)
}

func insertionSort[T any](s []T, first, last int, less func(a, b *T) bool) {
	if first == last {
		return
	}
	for i := first + 1; i < last; i++ {
		if less(&s[i], &s[first]) {
			v := s[i]
			copy(s[first+1:i+1], s[first:i])
			s[first] = v
		} else {
			unguardedLinearInsert(s, i, less)
		}
	}
}

func unguardedLinearInsert[T any](s []T, last int, less func(a, b *T) bool) {
	v := s[last]
	next := last - 1
	for less(&v, &s[next]) {
		s[last] = s[next]
		last = next
		next--
	}
	s[last] = v
}

// heapSortRange is std::partial_sort(first, last, last): make_heap, then
// sort_heap.
func heapSortRange[T any](h []T, less func(a, b *T) bool) {
	n := len(h)
	if n >= 2 {
		for parent := (n - 2) / 2; ; parent-- {
			adjustHeapT(h, parent, n, h[parent], less)
			if parent == 0 {
				break
			}
		}
	}
	for last := n - 1; last > 0; last-- {
		v := h[last]
		h[last] = h[0]
		adjustHeapT(h, 0, last, v, less)
	}
}

func adjustHeapT[T any](h []T, hole, n int, v T, less func(a, b *T) bool) {
	top, child := hole, hole
	for child < (n-1)/2 {
		child = 2 * (child + 1)
		if less(&h[child], &h[child-1]) {
			child--
		}
		h[hole] = h[child]
		hole = child
	}
	if n&1 == 0 && child == (n-2)/2 {
		child = 2 * (child + 1)
		h[hole] = h[child-1]
		hole = child - 1
	}
	parent := (hole - 1) / 2
	for hole > top && less(&h[parent], &v) {
		h[hole] = h[parent]
		hole = parent
		parent = (hole - 1) / 2
	}
	h[hole] = v
}
