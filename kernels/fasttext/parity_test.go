package fasttext_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/internal/fasttexttest"
	"github.com/sluice-data/sluice/internal/testenv"
	"github.com/sluice-data/sluice/kernels/fasttext"
)

// topics are the labels of the generated training text, each with words
// of its own; every line also draws from shared words. Some words are
// non-ASCII so that the signed-char hashing of bytes >= 0x80 matters.
var topics = map[string][]string{
	"sport":   {"match", "goal", "team", "coach", "league", "score", "striker", "penalty", "stadium", "referee", "fußball", "équipe"},
	"cooking": {"recipe", "oven", "flour", "butter", "simmer", "garlic", "sauce", "bake", "crème", "brûlée", "piñata", "料理"},
	"tech":    {"kernel", "compiler", "server", "latency", "cache", "thread", "deploy", "binary", "gpu", "データ", "сервер", "コード"},
	"music":   {"guitar", "chord", "melody", "tempo", "album", "concert", "violin", "rhythm", "lyrics", "música", "音楽", "песня"},
	"travel":  {"flight", "hotel", "beach", "passport", "museum", "train", "luggage", "visa", "café", "straße", "旅行", "🌍"},
}

var shared = []string{"the", "a", "of", "and", "to", "in", "is", "it", "with", "for", "on", "this", "very", "new", "old", "good", "day", "people", "time", "year"}

// labelled returns n lines "__label__topic words..." drawn with seed.
func labelled(seed uint64, n int) (lines []string, texts []string) {
	rng := rand.New(rand.NewPCG(seed, 7))
	names := []string{"cooking", "music", "sport", "tech", "travel"}
	for range n {
		// Unequal label frequencies give hierarchical softmax a real tree.
		label := names[min(rng.IntN(8), len(names)-1)]
		words := make([]string, 3+rng.IntN(25))
		for i := range words {
			switch r := rng.IntN(10); {
			case r < 4:
				words[i] = topics[label][rng.IntN(len(topics[label]))]
			case r < 5:
				other := topics[names[rng.IntN(len(names))]]
				words[i] = other[rng.IntN(len(other))]
			default:
				words[i] = shared[rng.IntN(len(shared))]
			}
			if rng.IntN(12) == 0 {
				words[i] += fmt.Sprint(rng.IntN(100)) // unseen words, char n-grams only
			}
		}
		text := strings.Join(words, " ")
		lines = append(lines, "__label__"+label+" "+text)
		texts = append(texts, text)
	}
	return lines, texts
}

// manyLabels returns n lines over 300 labels, each with words of its own.
func manyLabels(seed uint64, n int) []string {
	rng := rand.New(rand.NewPCG(seed, 9))
	var lines []string
	for range n {
		l := rng.IntN(300)
		words := []string{"__label__l" + fmt.Sprint(l)}
		for range 2 + rng.IntN(8) {
			if rng.IntN(2) == 0 {
				words = append(words, fmt.Sprintf("w%d%c", l, 'a'+rng.IntN(4)))
			} else {
				words = append(words, shared[rng.IntN(len(shared))])
			}
		}
		lines = append(lines, strings.Join(words, " "))
	}
	return lines
}

// edgeTexts are inputs whose handling is easy to get wrong.
var edgeTexts = []string{
	"",
	"   ",
	"goal",
	"zzzzqqq",
	"\tguitar\tchord\v\fmelody\r",
	"__label__sport recipe oven",
	"__label__nosuch garlic",
	"café crème brûlée 料理 🌍",
	"\xff\xfe broken \xc3 bytes \x80\x80 server",
	"a very long line " + strings.Repeat("kernel compiler cache thread music oven ", 200),
}

// update re-records testdata/parity: go test -run TestParityGolden -update
// trains the golden models with the fasttext command and saves the
// predictions `fasttext predict-prob` gives for them.
var update = flag.Bool("update", false, "re-record testdata/parity with the fasttext command")

// paritySize sets the size of the training data, the models and the
// comparison: the live comparison trains larger models than the golden
// ones committed under testdata/parity.
type paritySize struct {
	lines, manyLines int // training lines of the labelled and 300-label data
	texts            int // texts predicted, besides edgeTexts
	dim, bucket      int
	cutoff           int // -cutoff of the quantized models that keep subwords
	wordsCutoff      int // -cutoff of the word-only models, below their vocabulary
}

var (
	liveSize   = paritySize{lines: 3000, manyLines: 4000, texts: 300, dim: 16, bucket: 50000, cutoff: 3000, wordsCutoff: 1000}
	goldenSize = paritySize{lines: 600, manyLines: 2000, texts: 100, dim: 8, bucket: 1000, cutoff: 500, wordsCutoff: 300}
)

// parityModel is a model trained with the fasttext command.
type parityModel struct {
	name     string
	loss     fasttext.Loss
	many     bool     // trained on the 300-label data
	train    []string // arguments of `fasttext supervised` besides the common ones
	quantize []string // arguments of `fasttext quantize`; nil for a .bin model
	// wordsOnly: quantized with a cutoff below the vocabulary and without
	// subwords or word n-grams, so the pruned model keeps words only
	// (cutoff of them) and no bucket.
	wordsOnly bool
}

func parityModels(s paritySize) []parityModel {
	cutoff, wordsCutoff := fmt.Sprint(s.cutoff), fmt.Sprint(s.wordsCutoff)
	return []parityModel{
		{name: "softmax", loss: fasttext.LossSoftmax, train: []string{"-loss", "softmax", "-wordNgrams", "2", "-minn", "2", "-maxn", "4"}},
		{name: "hs", loss: fasttext.LossHS, train: []string{"-loss", "hs", "-wordNgrams", "2", "-minn", "2", "-maxn", "4"}},
		{name: "ova", loss: fasttext.LossOVA, train: []string{"-loss", "one-vs-all", "-wordNgrams", "2", "-minn", "3", "-maxn", "5"}},
		{name: "ns", loss: fasttext.LossNS, train: []string{"-loss", "ns", "-wordNgrams", "2"}},
		{name: "words-only-trigrams", loss: fasttext.LossSoftmax, train: []string{"-loss", "softmax", "-wordNgrams", "3", "-minn", "0", "-maxn", "0"}},
		{name: "softmax-quantized-pruned-qnorm", loss: fasttext.LossSoftmax,
			train:    []string{"-loss", "softmax", "-wordNgrams", "2", "-minn", "2", "-maxn", "4"},
			quantize: []string{"-qnorm", "-cutoff", cutoff, "-retrain", "-epoch", "1", "-thread", "1"}},
		{name: "softmax-quantized-pruned", loss: fasttext.LossSoftmax,
			train:    []string{"-loss", "softmax", "-wordNgrams", "2", "-minn", "2", "-maxn", "4"},
			quantize: []string{"-cutoff", cutoff}},
		{name: "hs-bigrams-quantized-pruned", loss: fasttext.LossHS,
			train:    []string{"-loss", "hs", "-wordNgrams", "2"},
			quantize: []string{"-cutoff", wordsCutoff, "-dsub", "4"}},
		{name: "words-quantized-pruned-retrain", loss: fasttext.LossSoftmax, wordsOnly: true,
			train:    []string{"-loss", "softmax"},
			quantize: []string{"-cutoff", wordsCutoff, "-retrain", "-epoch", "1", "-thread", "1"}},
		{name: "words-ova-quantized-pruned", loss: fasttext.LossOVA, wordsOnly: true,
			train:    []string{"-loss", "one-vs-all"},
			quantize: []string{"-cutoff", wordsCutoff, "-qnorm"}},
		{name: "many-labels-quantized-qout", loss: fasttext.LossSoftmax, many: true,
			// Quantizing the output matrix needs at least 256 labels.
			train:    []string{"-loss", "softmax", "-minn", "2", "-maxn", "3"},
			quantize: []string{"-qnorm", "-qout", "-dsub", "2"}},
		{name: "hs-quantized", loss: fasttext.LossHS,
			train:    []string{"-loss", "hs", "-wordNgrams", "2", "-minn", "2", "-maxn", "4"},
			quantize: []string{"-dsub", "4"}},
	}
}

// writeParityData writes the training and text files of size s into dir.
func writeParityData(t *testing.T, dir string, s paritySize) {
	train, _ := labelled(1, s.lines)
	_, texts := labelled(2, s.texts)
	files := map[string][]string{
		"train.txt":      train,
		"many.txt":       manyLabels(3, s.manyLines),
		"texts.txt":      append(texts, edgeTexts...),
		"many-texts.txt": append(manyLabels(4, s.texts), edgeTexts...),
	}
	for name, lines := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readLines reads a file of lines written by writeParityData or printed
// by fasttext.
func readLines(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// textsFile names the texts that m predicts.
func (pm parityModel) textsFile(dir string) string {
	if pm.many {
		return filepath.Join(dir, "many-texts.txt")
	}
	return filepath.Join(dir, "texts.txt")
}

// build trains pm with fasttext in dir, on the data there, and returns
// the model file.
func (pm parityModel) build(t *testing.T, bin, dir string, s paritySize) string {
	input := filepath.Join(dir, "train.txt")
	if pm.many {
		input = filepath.Join(dir, "many.txt")
	}
	out := filepath.Join(dir, pm.name)
	args := []string{"supervised", "-input", input, "-output", out, "-dim", fmt.Sprint(s.dim), "-epoch", "5", "-lr", "0.5",
		"-thread", "1", "-seed", "1", "-bucket", fmt.Sprint(s.bucket)}
	fasttexttest.Run(t, bin, append(args, pm.train...)...)
	os.Remove(out + ".vec")
	if pm.quantize == nil {
		return out + ".bin"
	}
	fasttexttest.Run(t, bin, append([]string{"quantize", "-input", input, "-output", out}, pm.quantize...)...)
	os.Remove(out + ".bin")
	return out + ".ftz"
}

// check loads a model file and checks it is the model pm describes.
func (pm parityModel) check(t *testing.T, file string, s paritySize) *fasttext.Model {
	t.Helper()
	m, err := fasttext.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if m.Args().Loss != pm.loss || m.Quantized() != (pm.quantize != nil) {
		t.Fatalf("loaded %v, want loss %s quantized %v", m, pm.loss, pm.quantize != nil)
	}
	if pm.wordsOnly && m.NumWords() != s.wordsCutoff {
		t.Fatalf("loaded %v, want the %d words the cutoff keeps", m, s.wordsCutoff)
	}
	return m
}

// parseProbs reads what `fasttext predict-prob` printed, one line per
// text: label, probability, label, probability...
func parseProbs(t *testing.T, lines []string) [][]fasttexttest.Label {
	t.Helper()
	res := make([][]fasttexttest.Label, len(lines))
	for i, line := range lines {
		f := strings.Fields(line)
		if len(f)%2 != 0 {
			t.Fatalf("predict-prob line %d: %q", i+1, line)
		}
		for j := 0; j < len(f); j += 2 {
			p, err := strconv.ParseFloat(f[j+1], 64)
			if err != nil {
				t.Fatalf("predict-prob line %d: %v", i+1, err)
			}
			res[i] = append(res[i], fasttexttest.Label{Name: f[j], Prob: p})
		}
	}
	return res
}

// parityK is the number of labels compared; parityTol the largest
// difference of a probability (fastText prints six significant digits).
const (
	parityK   = 3
	parityTol = 1e-5
)

// TestParityGolden compares the predictions of the models under
// testdata/parity with what `fasttext predict-prob MODEL TEXTS 3` printed
// for them (NAME.predict-prob.txt), so it runs without fastText. With
// -update it first trains the models and records the predictions again
// with the fasttext command (testdata/parity/README.md).
func TestParityGolden(t *testing.T) {
	dir := filepath.Join("testdata", "parity")
	var bin string
	if *update {
		var err error
		if bin, err = exec.LookPath("fasttext"); err != nil {
			t.Fatalf("-update needs the fasttext command: %v", err)
		}
		writeParityData(t, dir, goldenSize)
	}
	for _, pm := range parityModels(goldenSize) {
		t.Run(pm.name, func(t *testing.T) {
			ext := ".bin"
			if pm.quantize != nil {
				ext = ".ftz"
			}
			file := filepath.Join(dir, pm.name+ext)
			golden := filepath.Join(dir, pm.name+".predict-prob.txt")
			if *update {
				file = pm.build(t, bin, dir, goldenSize)
				out := fasttexttest.Run(t, bin, "predict-prob", file, pm.textsFile(dir), fmt.Sprint(parityK))
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			m := pm.check(t, file, goldenSize)
			texts := readLines(t, pm.textsFile(dir))
			want := parseProbs(t, readLines(t, golden))
			if len(want) != len(texts) {
				t.Fatalf("%s: %d lines for %d texts", golden, len(want), len(texts))
			}
			worst := fasttexttest.Compare(t, m, texts, want, parityK, parityTol)
			t.Logf("%s: %d texts, largest probability difference %.2g", m, len(texts), worst)
		})
	}
}

// TestParityWithFastText trains larger models than the golden ones with
// the fasttext command and compares predictions with `fasttext
// predict-prob`. It needs the command: see testenv.Require.
func TestParityWithFastText(t *testing.T) {
	bin := testenv.Require(t, "fasttext")
	dir := t.TempDir()
	writeParityData(t, dir, liveSize)
	for _, pm := range parityModels(liveSize) {
		t.Run(pm.name, func(t *testing.T) {
			file := pm.build(t, bin, dir, liveSize)
			m := pm.check(t, file, liveSize)
			texts := readLines(t, pm.textsFile(dir))
			want := fasttexttest.PredictProb(t, bin, file, texts, parityK)
			worst := fasttexttest.Compare(t, m, texts, want, parityK, parityTol)
			t.Logf("%s: %d texts, largest probability difference %.2g", m, len(texts), worst)
		})
	}
}
