package fasttext

// Meter counts what `fasttext test` and `fasttext test-label` count:
// over the examples that have a label the model knows, the predictions
// made (at most k each, above the threshold), how many of them are among
// the example's labels, and the labels there were to find; per label the
// same, and a confusion table of each example's first label against its
// top prediction.
type Meter struct {
	Examples  int64
	Gold      int64 // labels of the examples
	Predicted int64 // predictions made
	Correct   int64 // predictions that are among the example's labels
	labels    []LabelCounts
	// confusion[g][p]: examples whose first label is g and whose top
	// prediction is p; p == number of labels: no prediction.
	confusion [][]int64
}

// LabelCounts are one label's counts.
type LabelCounts struct {
	Gold      int64 // examples with this label
	Predicted int64 // predictions of this label
	Correct   int64 // predictions of this label that were right
}

// NewMeter returns a meter for a model of nlabels labels.
func NewMeter(nlabels int) *Meter {
	m := &Meter{labels: make([]LabelCounts, nlabels), confusion: make([][]int64, nlabels)}
	for i := range m.confusion {
		m.confusion[i] = make([]int64, nlabels+1)
	}
	return m
}

// Add counts one example: its labels (indices into the model's labels)
// and the model's predictions for it, best first.
func (m *Meter) Add(gold []int, preds []Prediction) {
	if len(gold) == 0 {
		return
	}
	m.Examples++
	m.Gold += int64(len(gold))
	for _, g := range gold {
		m.labels[g].Gold++
	}
	for _, p := range preds {
		m.Predicted++
		m.labels[p.Label].Predicted++
		for _, g := range gold {
			if g == p.Label {
				m.Correct++
				m.labels[p.Label].Correct++
				break
			}
		}
	}
	top := len(m.labels)
	if len(preds) > 0 {
		top = preds[0].Label
	}
	m.confusion[gold[0]][top]++
}

// Precision is the share of predictions that were right (fastText's P@k).
func (m *Meter) Precision() float64 { return ratio(m.Correct, m.Predicted) }

// Recall is the share of the examples' labels that were predicted
// (fastText's R@k).
func (m *Meter) Recall() float64 { return ratio(m.Correct, m.Gold) }

// Label returns label i's counts.
func (m *Meter) Label(i int) LabelCounts { return m.labels[i] }

// Confusion returns the number of examples whose first label is gold and
// whose top prediction is pred (pred = the number of labels: none).
func (m *Meter) Confusion(gold, pred int) int64 { return m.confusion[gold][pred] }

// Precision is the share of this label's predictions that were right.
func (c LabelCounts) Precision() float64 { return ratio(c.Correct, c.Predicted) }

// Recall is the share of this label's examples where it was predicted.
func (c LabelCounts) Recall() float64 { return ratio(c.Correct, c.Gold) }

// F1 is the harmonic mean of precision and recall.
func (c LabelCounts) F1() float64 {
	p, r := c.Precision(), c.Recall()
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// LabelIndex returns the index of label name (with or without the
// __label__ prefix), or -1.
func (m *Model) LabelIndex(name string) int {
	for i, l := range m.dict.labels {
		if l == name || (len(l) == len(labelPrefix)+len(name) && l[len(labelPrefix):] == name) {
			return i
		}
	}
	return -1
}
