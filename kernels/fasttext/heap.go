package fasttext

// The k best predictions are kept the way fastText keeps them: a binary
// heap on std::push_heap, std::pop_heap and std::sort_heap of libstdc++
// with fastText's comparison (a > b on the log-probability). Labels of
// equal probability then come out in the order fastText prints them,
// which matters where the binary losses give many labels the same
// probability.

// worse is fastText's comparePairs: a sorts before b when a's score is
// higher, which makes the heap's front its lowest score.
func worse(a, b Prediction) bool { return a.Prob > b.Prob }

// pushHeap is std::push_heap on h, whose last element is the new one.
func pushHeap(h []Prediction) {
	siftUp(h, len(h)-1, 0, h[len(h)-1])
}

// siftUp is libstdc++'s __push_heap.
func siftUp(h []Prediction, hole, top int, v Prediction) {
	parent := (hole - 1) / 2
	for hole > top && worse(h[parent], v) {
		h[hole] = h[parent]
		hole = parent
		parent = (hole - 1) / 2
	}
	h[hole] = v
}

// popHeap is std::pop_heap: the front moves to the end, the rest stays a
// heap.
func popHeap(h []Prediction) {
	if len(h) > 1 {
		last := len(h) - 1
		v := h[last]
		h[last] = h[0]
		adjustHeap(h[:last], 0, v)
	}
}

// adjustHeap is libstdc++'s __adjust_heap over all of h.
func adjustHeap(h []Prediction, hole int, v Prediction) {
	n, top, child := len(h), hole, hole
	for child < (n-1)/2 {
		child = 2 * (child + 1)
		if worse(h[child], h[child-1]) {
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
	siftUp(h, hole, top, v)
}

// sortHeap is std::sort_heap: best first.
func sortHeap(h []Prediction) {
	for n := len(h); n > 1; n-- {
		popHeap(h[:n])
	}
}

// pushBest adds c to the heap of at most k best predictions, as
// fastText's findKBest and dfs do once c has passed their tests.
func pushBest(h []Prediction, k int, c Prediction) []Prediction {
	h = append(h, c)
	pushHeap(h)
	if len(h) > k {
		popHeap(h)
		h = h[:len(h)-1]
	}
	return h
}
