package fasttext

import (
	"bytes"
	"fmt"
	"io"
	"math"

	"github.com/sluice-data/sluice/internal/sidefile"
)

// File format constants of fastText 0.9.x.
const (
	fileMagic   = 793712314
	fileVersion = 12
)

// Loss is the loss a model was trained with, which decides how it predicts.
type Loss int32

// The losses, numbered as in fastText's model files.
const (
	LossHS      Loss = 1 // hierarchical softmax
	LossNS      Loss = 2 // negative sampling
	LossSoftmax Loss = 3
	LossOVA     Loss = 4 // one-vs-all
)

func (l Loss) String() string {
	switch l {
	case LossHS:
		return "hs"
	case LossNS:
		return "ns"
	case LossSoftmax:
		return "softmax"
	case LossOVA:
		return "ova"
	}
	return fmt.Sprintf("loss(%d)", int32(l))
}

// Args are the training arguments stored in a model file, the ones that
// matter to prediction.
type Args struct {
	Dim        int   `json:"dim"`
	WordNgrams int   `json:"word_ngrams"`
	Loss       Loss  `json:"-"`
	Model      int32 `json:"-"` // 1 cbow, 2 skipgram, 3 supervised
	Bucket     int   `json:"bucket"`
	MinN       int   `json:"minn"`
	MaxN       int   `json:"maxn"`
	// Version is the file format version (11 or 12).
	Version int `json:"version"`
}

const modelSupervised = 3

// Model is a loaded fastText supervised model. It is read-only: any number
// of goroutines may predict with it through their own Predictors.
type Model struct {
	args   Args
	dict   dictionary
	input  matrix
	output matrix
	// quantized tells whether the input matrix is product-quantized (.ftz).
	quantized bool
	sigmoid   [sigmoidTableSize + 1]float32
	tree      []hsNode // hierarchical softmax only
}

// LoadFile reads a .bin or .ftz model file.
func LoadFile(path string) (*Model, error) {
	f, err := sidefile.Open(path, sidefile.Model)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := Load(f, f.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// LoadBytes reads a model held in memory (an embedded model, say). The
// model keeps no reference to data.
func LoadBytes(data []byte) (*Model, error) {
	return Load(bytes.NewReader(data), int64(len(data)))
}

// Load reads a model of size bytes from r. A file that is not a fastText
// supervised model, is truncated or is inconsistent gives an error naming
// the part of the file and the byte offset where it went wrong.
func Load(r io.Reader, size int64) (*Model, error) {
	rd := newReader(r, size)
	m := &Model{}
	rd.what = "header"
	magic, version := rd.int32(), rd.int32()
	if rd.err != nil {
		return nil, rd.err
	}
	if magic != fileMagic {
		return nil, fmt.Errorf("not a fastText model file (magic number %d, want %d)", magic, fileMagic)
	}
	if version < 11 || version > fileVersion {
		return nil, fmt.Errorf("fastText model file version %d, this reader knows 11 and 12", version)
	}
	rd.what = "arguments"
	m.args = readArgs(rd)
	m.args.Version = int(version)
	if rd.err != nil {
		return nil, rd.err
	}
	if m.args.Model != modelSupervised {
		return nil, fmt.Errorf("not a supervised (classification) model: model type %d; word-vector models do not predict labels", m.args.Model)
	}
	if version == 11 {
		m.args.MaxN = 0 // fastText: supervised models of version 11 have no character n-grams
	}
	rd.what = "dictionary"
	m.dict = readDictionary(rd, &m.args)
	rd.what = "input matrix"
	m.quantized = rd.bool()
	if m.quantized {
		m.input = readQuant(rd)
	} else {
		m.input = readDense(rd)
	}
	if rd.err == nil && !m.quantized && m.dict.pruneSize >= 0 {
		rd.fail("a pruned dictionary needs a quantized input matrix")
	}
	rd.what = "output matrix"
	qout := rd.bool()
	if qout && m.quantized {
		m.output = readQuant(rd)
	} else {
		m.output = readDense(rd)
	}
	if rd.err != nil {
		return nil, rd.err
	}
	if rd.left != 0 {
		return nil, fmt.Errorf("%d bytes after the output matrix; not a fastText model file of this version", rd.left)
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	m.input.decode()
	m.initSigmoid()
	if m.args.Loss == LossHS {
		m.buildTree()
	}
	return m, nil
}

func readArgs(r *reader) Args {
	var a Args
	a.Dim = int(r.int32())
	r.int32() // ws
	r.int32() // epoch
	r.int32() // minCount
	r.int32() // neg
	a.WordNgrams = int(r.int32())
	a.Loss = Loss(r.int32())
	a.Model = r.int32()
	a.Bucket = int(r.int32())
	a.MinN = int(r.int32())
	a.MaxN = int(r.int32())
	r.int32()   // lrUpdateRate
	r.float64() // t
	if r.err != nil {
		return a
	}
	switch {
	case a.Dim <= 0:
		r.fail("dimension %d", a.Dim)
	case a.Bucket < 0:
		r.fail("bucket %d", a.Bucket)
	case a.MinN < 0 || a.MaxN < 0 || a.MaxN > 1<<10:
		r.fail("character n-grams of %d to %d", a.MinN, a.MaxN)
	case a.Loss < LossHS || a.Loss > LossOVA:
		r.fail("unknown loss %d", int32(a.Loss))
	}
	return a
}

// check verifies that every row a prediction can touch exists.
func (m *Model) check() error {
	d := &m.dict
	dim := int64(m.args.Dim)
	if m.input.cols != dim || m.output.cols != dim {
		return fmt.Errorf("matrices of %d and %d columns for dimension %d", m.input.cols, m.output.cols, dim)
	}
	// Rows of the input matrix: the words, then one per bucket, or one per
	// bucket kept when the dictionary is pruned (none when only words were
	// kept).
	need := int64(d.nwords)
	if d.pruneSize < 0 {
		if m.args.MaxN > 0 || m.args.WordNgrams > 1 {
			need += int64(m.args.Bucket)
		}
	} else {
		need += int64(d.maxPruned) + 1
	}
	if m.input.rows < need {
		return fmt.Errorf("input matrix has %d rows, the dictionary and buckets need %d", m.input.rows, need)
	}
	if d.nlabels == 0 {
		return fmt.Errorf("the model has no labels")
	}
	if m.output.rows < int64(d.nlabels) {
		return fmt.Errorf("output matrix has %d rows for %d labels", m.output.rows, d.nlabels)
	}
	return nil
}

// Args returns the model's arguments.
func (m *Model) Args() Args { return m.args }

// Quantized tells whether the model is quantized (.ftz).
func (m *Model) Quantized() bool { return m.quantized }

// NumLabels returns the number of labels.
func (m *Model) NumLabels() int { return int(m.dict.nlabels) }

// NumWords returns the number of words in the vocabulary.
func (m *Model) NumWords() int { return int(m.dict.nwords) }

// Label returns label i as the model names it, e.g. "__label__en".
func (m *Model) Label(i int) string { return m.dict.labels[i] }

// Labels returns the labels, most frequent in the training data first.
func (m *Model) Labels() []string { return append([]string(nil), m.dict.labels...) }

// String describes the model in one line.
func (m *Model) String() string {
	a := m.args
	return fmt.Sprintf("fastText supervised model: %d labels, %d words, dim %d, loss %s, wordNgrams %d, char n-grams %d-%d, bucket %d, input %s, output %s",
		m.dict.nlabels, m.dict.nwords, a.Dim, a.Loss, a.WordNgrams, a.MinN, a.MaxN, a.Bucket, m.input.String(), m.output.String())
}

// Sigmoid lookup table of the binary losses (fastText's loss.cc).
const (
	sigmoidTableSize = 512
	maxSigmoid       = 8
)

func (m *Model) initSigmoid() {
	for i := range m.sigmoid {
		x := float32(i*2*maxSigmoid)/sigmoidTableSize - maxSigmoid
		m.sigmoid[i] = float32(1.0 / (1.0 + float64(float32(math.Exp(float64(-x))))))
	}
}

func (m *Model) sigmoidOf(x float32) float32 {
	if !(x >= -maxSigmoid) { // NaN too: it would index outside the table
		return 0
	}
	if x > maxSigmoid {
		return 1
	}
	v := x + maxSigmoid
	v *= sigmoidTableSize
	v /= maxSigmoid
	v /= 2
	return m.sigmoid[int64(v)]
}

// hsNode is a node of the hierarchical softmax tree: its children, its
// parent (-1 for the root), its count, and whether it is its parent's
// right child (its bit in the label's code).
type hsNode struct {
	parent, left, right int32
	count               int64
	binary              bool
}

// huffmanTree builds fastText's Huffman tree over the label counts
// (HierarchicalSoftmaxLoss::buildTree): labels are the first len(counts)
// nodes, sorted by count as the dictionary sorts them.
func huffmanTree(counts []int64) []hsNode {
	osz := len(counts)
	tree := make([]hsNode, 2*osz-1)
	for i := range tree {
		tree[i] = hsNode{parent: -1, left: -1, right: -1, count: 1e15}
	}
	for i := range osz {
		tree[i].count = counts[i]
	}
	leaf, node := osz-1, osz
	for i := osz; i < 2*osz-1; i++ {
		var mini [2]int
		for j := range mini {
			if leaf >= 0 && tree[leaf].count < tree[node].count {
				mini[j] = leaf
				leaf--
			} else {
				mini[j] = node
				node++
			}
		}
		tree[i].left, tree[i].right = int32(mini[0]), int32(mini[1])
		tree[i].count = tree[mini[0]].count + tree[mini[1]].count
		tree[mini[0]].parent = int32(i)
		tree[mini[1]].parent = int32(i)
		tree[mini[1]].binary = true
	}
	return tree
}

// buildTree builds the model's Huffman tree over its label counts.
func (m *Model) buildTree() {
	m.tree = huffmanTree(m.dict.labelCounts[:m.dict.nlabels])
}
