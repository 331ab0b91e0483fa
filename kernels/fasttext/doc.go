// Package fasttext reads fastText model files and predicts labels exactly
// as fastText 0.9.2 does, in pure Go.
//
// It reads the supervised models that `fasttext supervised` writes (.bin)
// and their quantized form from `fasttext quantize` (.ftz: a
// product-quantized input matrix, optionally a quantized output matrix and
// quantized row norms, and a pruned subword table). The three prediction
// losses are supported: softmax, hierarchical softmax (hs) and the binary
// logistic losses (one-vs-all and negative sampling, which predict the same
// way).
//
// # What is reproduced
//
// Text is split into tokens on the bytes fastText treats as white space
// (space, \t, \n, \v, \f, \r and NUL); the whole text is one line, and the
// end-of-sentence token </s> follows its last token, as in `fasttext
// predict` reading the text on a line of its own (and the Python binding,
// which appends "\n"). A text with newlines is read as if they were spaces:
// the whole text is one example, the way datatrove, DCLM and Dolma call
// fastText after replacing newlines.
//
// Each token contributes its vocabulary row (when it is in the vocabulary)
// and the rows of its character n-grams of minn..maxn characters, hashed
// with fastText's FNV-1a variant — which xors each byte as a sign-extended
// signed char, so bytes >= 0x80 hash differently from plain FNV-1a — into
// bucket rows; word n-grams up to wordNgrams are hashed the way fastText
// does (its 32-bit word hashes are sign-extended into 64 bits). Tokens
// that start with __label__ are skipped. The hidden vector is the mean of
// the rows, summed in fastText's order; softmax, the sigmoid lookup table
// of the binary losses and the Huffman tree of hierarchical softmax are
// those of fastText, and probabilities are reported as fastText prints
// them: exp(log(p + 1e-5)).
//
// # Use
//
// A Model is loaded once and only read afterwards, so any number of
// goroutines may share it. Each goroutine predicts with its own Predictor,
// which keeps the buffers a prediction needs; a Predictor allocates nothing
// per call once its buffers have grown to the longest text seen.
//
//	m, err := fasttext.LoadFile("model.bin")
//	p := m.NewPredictor()
//	preds := p.Predict(text, 1, 0, nil) // top label with its probability
package fasttext

// The parity goldens of testdata/parity are recorded with the fasttext
// command (testdata/parity/README.md).
//go:generate go test -run TestParityGolden -update
