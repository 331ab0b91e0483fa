package fasttext

import (
	"math"
	"unsafe"
)

// Prediction is one predicted label and its probability.
type Prediction struct {
	Label int     // index into the model's labels
	Prob  float32 // as fastText reports it: exp(log(p + 1e-5))
}

// Predictor predicts with one model from one goroutine, reusing its
// buffers from call to call.
type Predictor struct {
	m      *Model
	hidden []float32
	output []float32
	hashes []int32  // word hashes of the tokens, for word n-grams
	word   []byte   // "<" + token + ">"
	subs   []uint32 // the hashes of word's character n-grams
	n      int      // rows summed into hidden
	eosID  int32
	eosH   uint32
}

// NewPredictor returns a predictor for m.
func (m *Model) NewPredictor() *Predictor {
	h := hash([]byte(eos))
	return &Predictor{
		m:      m,
		hidden: make([]float32, m.args.Dim),
		output: make([]float32, m.dict.nlabels),
		eosH:   h,
		eosID:  m.dict.id([]byte(eos), h),
	}
}

// Predict returns the k most probable labels of text whose probability is
// at least threshold, most probable first, appended to dst[:0]. k < 0
// means every label. Nothing is returned for a text with no feature the
// model knows (fastText predicts nothing then either).
func (p *Predictor) Predict(text []byte, k int, threshold float32, dst []Prediction) []Prediction {
	dst = dst[:0]
	if k == 0 {
		return dst
	}
	if k < 0 || k > int(p.m.dict.nlabels) {
		k = int(p.m.dict.nlabels)
	}
	if !p.hide(text) {
		return dst
	}
	if p.m.args.Loss == LossHS {
		dst = p.dfs(k, threshold, int32(2*p.m.dict.nlabels-2), 0, dst)
	} else {
		p.computeOutput()
		for i, v := range p.output {
			if v < threshold {
				continue
			}
			score := stdLog(v)
			if len(dst) == k && score < dst[0].Prob {
				continue
			}
			dst = pushBest(dst, k, Prediction{Label: i, Prob: score})
		}
	}
	sortHeap(dst)
	for i := range dst {
		dst[i].Prob = float32(math.Exp(float64(dst[i].Prob)))
	}
	return dst
}

// PredictString is Predict for a string; text is only read.
func (p *Predictor) PredictString(text string, k int, threshold float32, dst []Prediction) []Prediction {
	return p.Predict(unsafe.Slice(unsafe.StringData(text), len(text)), k, threshold, dst)
}

// Predict is a convenience for one-off predictions: it makes a new
// Predictor on every call. Loops should keep a Predictor instead.
func (m *Model) Predict(text string, k int, threshold float32) []Prediction {
	return m.NewPredictor().PredictString(text, k, threshold, nil)
}

func stdLog(x float32) float32 { return float32(math.Log(float64(x) + 1e-5)) }

// isSpace reports the bytes that end a token in fastText's readWord.
func isSpace(c byte) bool {
	switch c {
	case ' ', '\n', '\r', '\t', '\v', '\f', 0:
		return true
	}
	return false
}

// hide computes the hidden vector of text: the mean of the rows of its
// tokens, their character n-grams and its word n-grams, in fastText's
// order. It reports false when no row was found.
func (p *Predictor) hide(text []byte) bool {
	clear(p.hidden)
	p.n = 0
	p.hashes = p.hashes[:0]
	d := &p.m.dict
	for i := 0; i < len(text); {
		if isSpace(text[i]) {
			i++
			continue
		}
		start := i
		for i < len(text) && !isSpace(text[i]) {
			i++
		}
		tok := text[start:i]
		h := hash(tok)
		wid := d.id(tok, h)
		if wid >= d.nwords || (wid < 0 && hasLabelPrefix(tok)) {
			continue // a label, not a feature
		}
		p.hashes = append(p.hashes, int32(h))
		if wid >= 0 {
			p.addRow(int64(wid))
		}
		if p.m.args.MaxN > 0 && string(tok) != eos {
			p.addSubwords(tok)
		}
	}
	// The end of the line.
	p.hashes = append(p.hashes, int32(p.eosH))
	if p.eosID >= 0 && p.eosID < d.nwords {
		p.addRow(int64(p.eosID))
	}
	p.addWordNgrams()
	if p.n == 0 {
		return false
	}
	scale := float32(1.0 / float64(p.n))
	for j := range p.hidden {
		p.hidden[j] *= scale
	}
	return true
}

func hasLabelPrefix(tok []byte) bool {
	return len(tok) >= len(labelPrefix) && string(tok[:len(labelPrefix)]) == labelPrefix
}

func (p *Predictor) addRow(row int64) {
	p.m.input.addRow(p.hidden, row)
	p.n++
}

// addBucket adds the row of bucket id, if the model kept it.
func (p *Predictor) addBucket(id int32) {
	d := &p.m.dict
	if d.pruneSize == 0 || id < 0 {
		return
	}
	if d.pruneSize > 0 {
		var ok bool
		if id, ok = d.pruned.get(id); !ok {
			return
		}
	}
	p.addRow(int64(d.nwords) + int64(id))
}

// addSubwords adds the character n-grams of "<" + tok + ">" of minn to
// maxn characters (UTF-8 sequences), except the lone "<" and ">". The
// hash of each n-gram extends the hash of the one before it.
func (p *Predictor) addSubwords(tok []byte) {
	a := &p.m.args
	if a.Bucket == 0 {
		return
	}
	p.word = append(append(append(p.word[:0], '<'), tok...), '>')
	p.subs = charNgramHashes(p.subs[:0], p.word, a.MinN, a.MaxN)
	for _, h := range p.subs {
		p.addBucket(int32(h % uint32(a.Bucket)))
	}
}

// charNgramHashes appends the hashes of the character n-grams of w
// ("<" + word + ">") of minn to maxn characters, as fastText's
// Dictionary::computeSubwords makes them: UTF-8 sequences kept whole, and
// the one-character n-grams "<" and ">" left out.
func charNgramHashes(dst []uint32, w []byte, minn, maxn int) []uint32 {
	for i := range w {
		if w[i]&0xC0 == 0x80 {
			continue
		}
		h := uint32(2166136261)
		j := i
		for n := 1; j < len(w) && n <= maxn; n++ {
			h = (h ^ uint32(int32(int8(w[j])))) * 16777619
			j++
			for j < len(w) && w[j]&0xC0 == 0x80 {
				h = (h ^ uint32(int32(int8(w[j])))) * 16777619
				j++
			}
			if n >= minn && !(n == 1 && (i == 0 || j == len(w))) {
				dst = append(dst, h)
			}
		}
	}
	return dst
}

// addWordNgrams adds the word n-grams of 2 to wordNgrams tokens. fastText
// keeps the 32-bit token hashes as int32 and widens them with sign
// extension, which the arithmetic here repeats.
func (p *Predictor) addWordNgrams() {
	a := &p.m.args
	if a.WordNgrams <= 1 || a.Bucket == 0 {
		return
	}
	bucket := uint64(a.Bucket)
	hs := p.hashes
	for i := range hs {
		h := uint64(int64(hs[i]))
		for j := i + 1; j < len(hs) && j < i+a.WordNgrams; j++ {
			h = h*116049371 + uint64(int64(hs[j]))
			p.addBucket(int32(h % bucket))
		}
	}
}

// computeOutput fills output with the label probabilities of the softmax
// or binary logistic losses.
func (p *Predictor) computeOutput() {
	m := p.m
	out := p.output
	for i := range out {
		out[i] = m.output.dotRow(p.hidden, int64(i))
	}
	if m.args.Loss == LossSoftmax {
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
		return
	}
	for i, v := range out {
		out[i] = m.sigmoidOf(v)
	}
}

// dfs walks the hierarchical softmax tree from node with log-probability
// score, keeping the k best leaves (fastText's HierarchicalSoftmaxLoss).
func (p *Predictor) dfs(k int, threshold float32, node int32, score float32, best []Prediction) []Prediction {
	if score < stdLog(threshold) {
		return best
	}
	if len(best) == k && score < best[0].Prob {
		return best
	}
	t := &p.m.tree[node]
	if t.left == -1 && t.right == -1 {
		return pushBest(best, k, Prediction{Label: int(node), Prob: score})
	}
	f := p.m.output.dotRow(p.hidden, int64(node)-int64(p.m.dict.nlabels))
	f = float32(1.0 / float64(1+float32(math.Exp(float64(-f)))))
	best = p.dfs(k, threshold, t.left, score+float32(math.Log(1.0-float64(f)+1e-5)), best)
	return p.dfs(k, threshold, t.right, score+float32(math.Log(float64(f)+1e-5)), best)
}
