package fasttext

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// TrainArgs are the arguments of supervised training, named and
// defaulting as `fasttext supervised` names them (DefaultTrainArgs).
type TrainArgs struct {
	// LR is the learning rate at the start; it decays linearly to 0.
	// fastText's default is the double 0.1, but a -lr given on its command
	// line is read as a float: RoundLR rounds the same way.
	LR            float64
	LRUpdateRate  int // tokens between learning-rate updates
	Dim           int // size of the word vectors
	WS            int // context window (stored in the model; unused by supervised training)
	Epoch         int
	MinCount      int // words seen fewer times are dropped
	MinCountLabel int // labels seen fewer times are dropped
	Neg           int // negatives sampled per example (ns)
	WordNgrams    int // word n-grams up to this length
	Loss          Loss
	Bucket        int // hash buckets of word and character n-grams
	MinN, MaxN    int // character n-grams of MinN..MaxN characters; MaxN 0: none
	Thread        int
	T             float64 // sampling threshold (stored in the model; unused by supervised training)
	Seed          int
}

// DefaultTrainArgs returns fastText 0.9.2's defaults for `fasttext
// supervised`.
func DefaultTrainArgs() TrainArgs {
	return TrainArgs{
		LR: 0.1, LRUpdateRate: 100, Dim: 100, WS: 5, Epoch: 5, MinCount: 1, MinCountLabel: 0,
		Neg: 5, WordNgrams: 1, Loss: LossSoftmax, Bucket: 2000000, MinN: 0, MaxN: 0, Thread: 12, T: 1e-4, Seed: 0,
	}
}

// RoundLR rounds a learning rate given on a command line as fastText
// rounds -lr (std::stof), so that both train the same model.
func RoundLR(lr float64) float64 { return float64(float32(lr)) }

// ParseLoss reads a loss as fastText's -loss names it: softmax, hs, ns,
// one-vs-all or ova.
func ParseLoss(s string) (Loss, error) {
	switch s {
	case "softmax":
		return LossSoftmax, nil
	case "hs":
		return LossHS, nil
	case "ns":
		return LossNS, nil
	case "one-vs-all", "ova":
		return LossOVA, nil
	}
	return 0, fmt.Errorf("unknown loss %q: softmax, hs, ns or ova (one-vs-all)", s)
}

// check validates the arguments and applies fastText's rule that a model
// without word or character n-grams has no buckets.
func (a *TrainArgs) check() error {
	switch {
	case a.Dim <= 0:
		return fmt.Errorf("dim %d: must be at least 1", a.Dim)
	case a.Epoch <= 0:
		return fmt.Errorf("epoch %d: must be at least 1", a.Epoch)
	case !(a.LR > 0) || math.IsInf(a.LR, 0):
		return fmt.Errorf("lr %g: must be positive", a.LR)
	case a.LRUpdateRate <= 0:
		return fmt.Errorf("lr-update-rate %d: must be at least 1", a.LRUpdateRate)
	case a.WordNgrams <= 0:
		return fmt.Errorf("word-ngrams %d: must be at least 1", a.WordNgrams)
	case a.MinN < 0 || a.MaxN < 0 || (a.MaxN > 0 && a.MinN > a.MaxN) || a.MaxN > 1<<10:
		return fmt.Errorf("minn %d, maxn %d: character n-grams need 0 < minn <= maxn, or maxn 0 for none", a.MinN, a.MaxN)
	case a.Bucket < 0 || a.Bucket > math.MaxInt32:
		return fmt.Errorf("bucket %d: must be between 0 and 2^31-1", a.Bucket)
	case a.Thread <= 0:
		return fmt.Errorf("thread %d: must be at least 1", a.Thread)
	case a.Neg <= 0 && a.Loss == LossNS:
		return fmt.Errorf("neg %d: negative sampling needs at least 1", a.Neg)
	case a.Loss < LossHS || a.Loss > LossOVA:
		return fmt.Errorf("unknown loss %d", int32(a.Loss))
	case a.Seed < math.MinInt32 || a.Seed > math.MaxInt32:
		return fmt.Errorf("seed %d: must fit in 32 bits", a.Seed)
	}
	if a.WordNgrams <= 1 && a.MaxN == 0 {
		a.Bucket = 0
	} else if a.Bucket == 0 {
		return errors.New("bucket 0: word n-grams (word-ngrams > 1) and character n-grams (maxn > 0) need buckets")
	}
	return nil
}

// Progress is what training reports as it goes.
type Progress struct {
	Fraction    float64 // of the tokens to read, 0 to 1
	LR          float64 // the current learning rate
	Loss        float64 // mean loss of the examples the first thread saw
	Tokens      int64   // tokens read so far, all threads
	WordsPerSec float64 // per thread
	Elapsed     time.Duration
}

// TrainStats describe a training run.
type TrainStats struct {
	Examples    int
	Tokens      int64 // tokens of the corpus (one epoch), </s> and labels included
	Words       int   // words kept in the dictionary
	DroppedWord int   // distinct words under MinCount
	Labels      []string
	LabelCounts []int64
	Loss        float64 // mean loss at the end, as fastText reports it
	Elapsed     time.Duration
	// WordsPerSec is the training speed per thread: tokens read over all
	// epochs, divided by the training time and the threads.
	WordsPerSec float64
}

// ErrNoLabels is the cause of an error for a corpus whose examples have
// no label (left) after thresholding.
var ErrNoLabels = errors.New("no labels")

// Train trains a supervised model on c, as `fasttext supervised` trains
// one on the equivalent file: the same dictionary, initialization,
// examples in the same order, losses and learning-rate schedule. With
// one thread and a seed the model is the same, byte for byte, every time
// (and the one fastText trains with -thread 1, but for the rounding of a
// few exponentials); more threads update the shared weights without locks
// (Hogwild), as fastText's threads do. progress, when not nil, is called
// from time to time from the first thread.
func Train(ctx context.Context, c *Corpus, a TrainArgs, progress func(Progress)) (*Trained, error) {
	return TrainEpochs(ctx, c, a, progress, nil)
}

// TrainEpochs is Train that also calls epoch, from the first thread, each
// time the tokens read reach the end of an epoch but the last, with the
// model as it stands (its weights are the live ones: other threads go on
// updating them while epoch runs, and it must not keep the model). The
// calls take nothing from the random draws, so with one thread the model
// is the same with or without them. With more threads, the others may
// finish epochs while epoch runs: those are not reported.
func TrainEpochs(ctx context.Context, c *Corpus, a TrainArgs, progress func(Progress), epoch func(n int, m *Model)) (*Trained, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	if c.Examples() == 0 {
		return nil, errors.New("no training examples")
	}
	d := buildDict(c, &a)
	if d.nlabels == 0 {
		return nil, fmt.Errorf("%w in %d examples (labels are tokens starting with __label__)", ErrNoLabels, c.Examples())
	}
	if d.nwords == 0 {
		return nil, errors.New("empty vocabulary: no word occurs min-count times")
	}
	t := &trainer{
		a: a, c: c, d: d,
		dim:   a.Dim,
		input: make([]float32, (int64(d.nwords)+int64(a.Bucket))*int64(a.Dim)),
		out:   make([]float32, int64(d.nlabels)*int64(a.Dim)),
	}
	t.initInput()
	t.initLoss()
	t.onEpoch = epoch
	if err := t.run(ctx, progress); err != nil {
		return nil, err
	}
	return &Trained{args: a, dict: d, input: t.input, output: t.out, stats: t.stats}, nil
}

type trainer struct {
	a     TrainArgs
	c     *Corpus
	d     *trainDict
	dim   int
	input []float32 // (nwords + bucket) x dim
	out   []float32 // nlabels x dim

	sigmoid [sigmoidTableSize + 1]float32
	logT    [logTableSize + 1]float32
	// hierarchical softmax
	paths [][]int32
	codes [][]bool
	// negative sampling
	negatives []int32

	tokenCount atomic.Int64
	nanErr     atomic.Bool
	loss       atomic.Uint64 // float64 bits: thread 0's mean loss
	stats      TrainStats
	onEpoch    func(int, *Model)
}

const logTableSize = 512

// initInput fills the input matrix as DenseMatrix::uniform does: ten
// blocks of a tenth each, block b drawn from minstd_rand(b + seed), and
// only the blocks of threads that exist (with fewer than ten threads the
// rest stays zero, as in fastText).
func (t *trainer) initInput() {
	a := float64(float32(1.0 / float64(t.a.Dim)))
	n := int64(len(t.input))
	blockSize := n / 10
	fill := func(block int) {
		rng := newMinstd(int32(block + t.a.Seed))
		for i := blockSize * int64(block); i < n && i < blockSize*int64(block+1); i++ {
			t.input[i] = float32(rng.uniformReal(-a, a))
		}
	}
	if t.a.Thread <= 1 {
		fill(0)
		return
	}
	var wg sync.WaitGroup
	for b := range t.a.Thread {
		wg.Add(1)
		go func() { defer wg.Done(); fill(b) }()
	}
	wg.Wait()
}

func (t *trainer) initLoss() {
	for i := range t.sigmoid {
		x := float32(i*2*maxSigmoid)/sigmoidTableSize - maxSigmoid
		t.sigmoid[i] = float32(1.0 / (1.0 + float64(float32(math.Exp(float64(-x))))))
	}
	for i := range t.logT {
		x := float32((float64(i) + 1e-5) / logTableSize)
		t.logT[i] = float32(math.Log(float64(x)))
	}
	switch t.a.Loss {
	case LossHS:
		t.buildTree(t.d.labelCounts)
	case LossNS:
		var z float32
		for _, c := range t.d.labelCounts {
			z = float32(float64(z) + math.Sqrt(float64(c)))
		}
		for i, c := range t.d.labelCounts {
			cf := float32(math.Sqrt(float64(c)))
			lim := cf * negativeTableSize / z
			for j := 0; float32(j) < lim; j++ {
				t.negatives = append(t.negatives, int32(i))
			}
		}
	}
}

const negativeTableSize = 10000000

// buildTree builds the Huffman tree of hierarchical softmax and every
// label's path and code (HierarchicalSoftmaxLoss::buildTree).
func (t *trainer) buildTree(counts []int64) {
	osz := len(counts)
	tree := huffmanTree(counts)
	t.paths = make([][]int32, osz)
	t.codes = make([][]bool, osz)
	for i := range osz {
		for j := i; tree[j].parent != -1; j = int(tree[j].parent) {
			t.paths[i] = append(t.paths[i], tree[j].parent-int32(osz))
			t.codes[i] = append(t.codes[i], tree[j].binary)
		}
	}
}

// run starts the threads and waits for them.
func (t *trainer) run(ctx context.Context, progress func(Progress)) error {
	start := time.Now()
	total := int64(t.a.Epoch) * t.d.ntokens
	var wg sync.WaitGroup
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			stop.Store(true)
		case <-done:
		}
	}()
	nlines := t.c.Examples()
	for id := range t.a.Thread {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// fastText's thread i starts reading at byte i/threads of the
			// file; here at the line i/threads of the way through.
			first := int(int64(id) * int64(nlines) / int64(t.a.Thread))
			t.thread(id, first, total, start, &stop, progress)
		}()
	}
	wg.Wait()
	close(done)
	if err := ctx.Err(); err != nil {
		return err
	}
	if t.nanErr.Load() {
		return errors.New("training diverged: a weight became NaN (lower the learning rate)")
	}
	el := time.Since(start)
	labels, counts := make([]string, len(t.d.labelNames)), t.d.labelCounts
	for i, l := range t.d.labelNames {
		labels[i] = l[len(labelPrefix):]
	}
	t.stats = TrainStats{
		Examples: nlines, Tokens: t.d.ntokens, Words: int(t.d.nwords), DroppedWord: t.d.droppedWords,
		Labels: labels, LabelCounts: counts,
		Loss:    math.Float64frombits(t.loss.Load()),
		Elapsed: el,
	}
	if s := el.Seconds(); s > 0 {
		t.stats.WordsPerSec = float64(t.tokenCount.Load()) / s / float64(t.a.Thread)
	}
	return nil
}

// state is one thread's Model::State.
type state struct {
	hidden, grad, output []float32
	rng                  minstd
	lossSum              float32
	nexamples            int64
}

func (t *trainer) thread(id, first int, total int64, start time.Time, stop *atomic.Bool, progress func(Progress)) {
	d := t.d
	s := &state{
		hidden: make([]float32, t.dim),
		grad:   make([]float32, t.dim),
		output: make([]float32, d.nlabels),
		rng:    newMinstd(int32(id + t.a.Seed)),
	}
	var words, labels, hashes []int32
	nlines := t.c.Examples()
	li := first
	var local int64
	lrBase := t.a.LR
	lastReport := time.Now()
	epochsSeen := 0
	for n := 0; t.tokenCount.Load() < total; n++ {
		if n&1023 == 0 && (stop.Load() || t.nanErr.Load()) {
			break
		}
		tc := t.tokenCount.Load()
		progressF := float32(tc) / float32(total)
		lr := float32(lrBase * (1.0 - float64(progressF)))
		toks := t.c.line(li)
		li++
		if li == nlines {
			li = 0
		}
		words, labels, hashes = d.line(toks, t.a.WordNgrams, words, labels, hashes)
		local += int64(len(toks))
		if len(labels) > 0 && len(words) > 0 {
			target := int32(-1)
			if t.a.Loss != LossOVA {
				target = int32(s.rng.uniformInt(0, uint64(len(labels)-1)))
			}
			if !t.update(s, words, labels, target, lr) {
				t.nanErr.Store(true)
				break
			}
		}
		if local > int64(t.a.LRUpdateRate) {
			tc = t.tokenCount.Add(local)
			local = 0
			if id == 0 && t.onEpoch != nil {
				for done := int(tc / d.ntokens); epochsSeen < done && epochsSeen+1 < t.a.Epoch; {
					epochsSeen++
					t.onEpoch(epochsSeen, t.liveModel())
				}
			}
			if id == 0 {
				t.loss.Store(math.Float64bits(s.loss()))
				if progress != nil && time.Since(lastReport) > 200*time.Millisecond {
					lastReport = time.Now()
					el := time.Since(start)
					p := Progress{Fraction: min(1, float64(tc)/float64(total)), LR: float64(lr), Loss: s.loss(), Tokens: tc, Elapsed: el}
					if el > 0 {
						p.WordsPerSec = float64(tc) / el.Seconds() / float64(t.a.Thread)
					}
					progress(p)
				}
			}
		}
	}
	if id == 0 {
		t.loss.Store(math.Float64bits(s.loss()))
	}
}

func (s *state) loss() float64 {
	if s.nexamples == 0 {
		return 0
	}
	return float64(s.lossSum / float32(s.nexamples))
}

// update is Model::update: the hidden vector, the loss's forward and
// backward pass, and the gradient added to every input row. It reports
// false when a dot product came out NaN (fastText stops training then).
func (t *trainer) update(s *state, words, labels []int32, target int32, lr float32) bool {
	dim := t.dim
	h := s.hidden
	clear(h)
	for _, w := range words {
		addTo(h, t.input[int(w)*dim:int(w)*dim+dim])
	}
	scale(h, float32(1.0/float64(len(words))))
	clear(s.grad)
	var loss float32
	var ok bool
	switch t.a.Loss {
	case LossSoftmax:
		loss, ok = t.softmax(s, labels[target], lr)
	case LossNS:
		loss, ok = t.negativeSampling(s, labels[target], lr)
	case LossHS:
		loss, ok = t.hierarchical(s, labels[target], lr)
	case LossOVA:
		loss, ok = t.oneVsAll(s, labels, lr)
	}
	if !ok {
		return false
	}
	s.lossSum += loss
	s.nexamples++
	scale(s.grad, float32(1.0/float64(len(words))))
	for _, w := range words {
		addTo(t.input[int(w)*dim:int(w)*dim+dim], s.grad)
	}
	return true
}

func (t *trainer) row(i int32) []float32 {
	return t.out[int(i)*t.dim : int(i)*t.dim+t.dim]
}

func (t *trainer) logOf(x float32) float32 {
	if x > 1.0 {
		return 0
	}
	return t.logT[int64(x*logTableSize)]
}

func (t *trainer) sigmoidOf(x float32) float32 {
	if x < -maxSigmoid {
		return 0
	}
	if x > maxSigmoid {
		return 1
	}
	v := x + maxSigmoid
	v *= sigmoidTableSize
	v /= maxSigmoid
	v /= 2
	return t.sigmoid[int64(v)]
}

func (t *trainer) softmax(s *state, target int32, lr float32) (float32, bool) {
	out := s.output
	for i := range out {
		v := dot(t.row(int32(i)), s.hidden)
		if v != v {
			return 0, false
		}
		out[i] = v
	}
	mx := out[0]
	for _, v := range out {
		mx = max(mx, v)
	}
	var z float32
	for i, v := range out {
		out[i] = float32(math.Exp(float64(v - mx)))
		z += out[i]
	}
	for i := range out {
		out[i] /= z
	}
	for i := range out {
		label := float32(0)
		if int32(i) == target {
			label = 1
		}
		alpha := lr * (label - out[i])
		row := t.row(int32(i))
		axpy(s.grad, row, alpha)
		axpy(row, s.hidden, alpha)
	}
	return -t.logOf(out[target]), true
}

func (t *trainer) binaryLogistic(s *state, target int32, positive bool, lr float32) (float32, bool) {
	row := t.row(target)
	f := dot(row, s.hidden)
	if f != f {
		return 0, false
	}
	score := t.sigmoidOf(f)
	label := float32(0)
	if positive {
		label = 1
	}
	alpha := lr * (label - score)
	axpy(s.grad, row, alpha)
	axpy(row, s.hidden, alpha)
	if positive {
		return -t.logOf(score), true
	}
	return -t.logOf(float32(1.0 - float64(score))), true
}

func (t *trainer) negativeSampling(s *state, target int32, lr float32) (float32, bool) {
	loss, ok := t.binaryLogistic(s, target, true, lr)
	if !ok {
		return 0, false
	}
	for range t.a.Neg {
		var neg int32
		for {
			neg = t.negatives[s.rng.uniformInt(0, uint64(len(t.negatives)-1))]
			if neg != target {
				break
			}
		}
		l, ok := t.binaryLogistic(s, neg, false, lr)
		if !ok {
			return 0, false
		}
		loss += l
	}
	return loss, true
}

func (t *trainer) hierarchical(s *state, target int32, lr float32) (float32, bool) {
	var loss float32
	for i, node := range t.paths[target] {
		l, ok := t.binaryLogistic(s, node, t.codes[target][i], lr)
		if !ok {
			return 0, false
		}
		loss += l
	}
	return loss, true
}

func (t *trainer) oneVsAll(s *state, labels []int32, lr float32) (float32, bool) {
	var loss float32
	for i := range t.d.nlabels {
		match := false
		for _, l := range labels {
			if l == i {
				match = true
				break
			}
		}
		l, ok := t.binaryLogistic(s, i, match, lr)
		if !ok {
			return 0, false
		}
		loss += l
	}
	return loss, true
}

// DefaultThreads is the number of threads worth using here: fastText's
// default of 12 is kept for the arguments, but a caller may prefer the
// cores there are.
func DefaultThreads() int { return runtime.GOMAXPROCS(0) }

// liveModel returns a Model that predicts with the weights being trained.
func (t *trainer) liveModel() *Model {
	td := t.d
	d := dictionary{nwords: td.nwords, nlabels: td.nlabels, pruneSize: -1, maxPruned: -1, offsets: []int32{0}}
	for i, w := range td.words {
		d.words = append(d.words, w...)
		d.offsets = append(d.offsets, int32(len(d.words)))
		if int32(i) >= td.nwords {
			d.labels = append(d.labels, w)
			d.labelCounts = append(d.labelCounts, td.counts[i])
		}
	}
	d.table = make([]int32, int(math.Ceil(float64(len(td.words))/0.7)))
	for i := range d.table {
		d.table[i] = -1
	}
	for i := range int32(len(td.words)) {
		w := d.entry(i)
		d.table[d.find(w, hash(w))] = i
	}
	a := t.a
	m := &Model{
		args:   Args{Dim: a.Dim, WordNgrams: a.WordNgrams, Loss: a.Loss, Model: modelSupervised, Bucket: a.Bucket, MinN: a.MinN, MaxN: a.MaxN, Version: fileVersion},
		dict:   d,
		input:  matrix{rows: int64(td.nwords) + int64(a.Bucket), cols: int64(a.Dim), dense: t.input},
		output: matrix{rows: int64(td.nlabels), cols: int64(a.Dim), dense: t.out},
	}
	m.initSigmoid()
	if a.Loss == LossHS {
		m.buildTree()
	}
	return m
}
