package fasttext_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/internal/fasttexttest"
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

func TestParityWithFastText(t *testing.T) {
	bin := fasttexttest.Binary(t)
	dir := t.TempDir()
	train, _ := labelled(1, 3000)
	trainFile := filepath.Join(dir, "train.txt")
	if err := os.WriteFile(trainFile, []byte(strings.Join(train, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, texts := labelled(2, 300)
	texts = append(texts, edgeTexts...)

	common := []string{"-input", trainFile, "-dim", "16", "-epoch", "5", "-lr", "0.5", "-thread", "1", "-seed", "1", "-bucket", "50000"}
	supervised := func(t *testing.T, name string, args ...string) string {
		out := filepath.Join(dir, name)
		fasttexttest.Run(t, bin, append(append([]string{"supervised", "-output", out}, common...), args...)...)
		return out
	}
	models := []struct {
		name  string
		loss  fasttext.Loss
		quant bool
		file  func(t *testing.T) string
	}{
		{"softmax", fasttext.LossSoftmax, false, func(t *testing.T) string {
			return supervised(t, "softmax", "-loss", "softmax", "-wordNgrams", "2", "-minn", "2", "-maxn", "4") + ".bin"
		}},
		{"hs", fasttext.LossHS, false, func(t *testing.T) string {
			return supervised(t, "hs", "-loss", "hs", "-wordNgrams", "2", "-minn", "2", "-maxn", "4") + ".bin"
		}},
		{"ova", fasttext.LossOVA, false, func(t *testing.T) string {
			return supervised(t, "ova", "-loss", "one-vs-all", "-wordNgrams", "2", "-minn", "3", "-maxn", "5") + ".bin"
		}},
		{"ns", fasttext.LossNS, false, func(t *testing.T) string {
			return supervised(t, "ns", "-loss", "ns", "-wordNgrams", "2") + ".bin"
		}},
		{"words-only-trigrams", fasttext.LossSoftmax, false, func(t *testing.T) string {
			return supervised(t, "words", "-loss", "softmax", "-wordNgrams", "3", "-minn", "0", "-maxn", "0") + ".bin"
		}},
		{"softmax-quantized-pruned-qnorm", fasttext.LossSoftmax, true, func(t *testing.T) string {
			out := supervised(t, "smq", "-loss", "softmax", "-wordNgrams", "2", "-minn", "2", "-maxn", "4")
			fasttexttest.Run(t, bin, "quantize", "-output", out, "-input", trainFile, "-qnorm", "-cutoff", "3000", "-retrain",
				"-epoch", "1", "-thread", "1")
			return out + ".ftz"
		}},
		{"many-labels-quantized-qout", fasttext.LossSoftmax, true, func(t *testing.T) string {
			// Quantizing the output matrix needs at least 256 labels.
			file := filepath.Join(dir, "many.txt")
			if err := os.WriteFile(file, []byte(strings.Join(manyLabels(3, 4000), "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "many")
			fasttexttest.Run(t, bin, "supervised", "-input", file, "-output", out, "-dim", "8", "-epoch", "5", "-lr", "0.5",
				"-thread", "1", "-bucket", "20000", "-loss", "softmax", "-minn", "2", "-maxn", "3")
			fasttexttest.Run(t, bin, "quantize", "-output", out, "-input", file, "-qnorm", "-qout", "-dsub", "2")
			return out + ".ftz"
		}},
		{"hs-quantized", fasttext.LossHS, true, func(t *testing.T) string {
			out := supervised(t, "hsq", "-loss", "hs", "-wordNgrams", "2", "-minn", "2", "-maxn", "4")
			fasttexttest.Run(t, bin, "quantize", "-output", out, "-input", trainFile, "-dsub", "4")
			return out + ".ftz"
		}},
	}
	for _, tc := range models {
		t.Run(tc.name, func(t *testing.T) {
			file := tc.file(t)
			m, err := fasttext.LoadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if m.Args().Loss != tc.loss || m.Quantized() != tc.quant {
				t.Fatalf("loaded %v, want loss %s quantized %v", m, tc.loss, tc.quant)
			}
			const k = 3
			texts := texts
			if m.NumLabels() == 300 {
				texts = append(manyLabels(4, 300), edgeTexts...)
			}
			want := fasttexttest.PredictProb(t, bin, file, texts, k)
			worst := fasttexttest.Compare(t, m, texts, want, k, 1e-4)
			t.Logf("%s: %d texts, largest probability difference %.2g", m, len(texts), worst)
		})
	}
}
