package fasttext_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/internal/fasttexttest"
	"github.com/sluice-data/sluice/internal/testenv"
	"github.com/sluice-data/sluice/kernels/fasttext"
)

// example is one labelled row of testdata/train.
type example struct {
	label, text string
}

// readSet reads a labelled set of testdata/train (README.md there says
// where the text comes from) and splits it: every tenth row is held out.
func readSet(t testing.TB, name, field string) (train, held []example) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "train", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<20)
	for n := 0; sc.Scan(); n++ {
		var row map[string]string
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("%s:%d: %v", name, n+1, err)
		}
		ex := example{label: row[field], text: row["text"]}
		if n%10 == 9 {
			held = append(held, ex)
		} else {
			train = append(train, ex)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return train, held
}

func corpusOf(t testing.TB, exs []example) *fasttext.Corpus {
	t.Helper()
	c := fasttext.NewCorpus()
	for _, ex := range exs {
		if err := c.Add([]string{ex.label}, []byte(ex.text)); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// trainConfig is one training run compared with fastText's.
type trainConfig struct {
	name  string
	set   string // file under testdata/train
	field string // its label field
	args  []string
}

// trainConfigs cover the four losses on the multi-class set, and word and
// character n-grams on both sets.
var trainConfigs = []trainConfig{
	{"udhr-softmax", "udhr.jsonl.gz", "lang", []string{"-loss", "softmax"}},
	{"udhr-hs", "udhr.jsonl.gz", "lang", []string{"-loss", "hs"}},
	{"udhr-ns", "udhr.jsonl.gz", "lang", []string{"-loss", "ns", "-neg", "3"}},
	{"udhr-ova", "udhr.jsonl.gz", "lang", []string{"-loss", "ova"}},
	{"udhr-subwords", "udhr.jsonl.gz", "lang", []string{"-loss", "softmax", "-minn", "2", "-maxn", "4", "-wordNgrams", "2", "-bucket", "20000", "-lr", "0.5"}},
	{"spam-bigrams", "spamassassin.jsonl.gz", "label", []string{"-loss", "softmax", "-wordNgrams", "2", "-bucket", "20000", "-minCount", "2"}},
	{"spam-ova-subwords", "spamassassin.jsonl.gz", "label", []string{"-loss", "ova", "-minn", "3", "-maxn", "5", "-bucket", "20000"}},
}

// commonArgs are the arguments every comparison trains with, besides
// -thread and -seed.
var commonArgs = []string{"-dim", "16", "-epoch", "25", "-lr", "0.5"}

// argsOf turns fastText command-line arguments into TrainArgs.
func argsOf(t testing.TB, args []string, thread, seed int) fasttext.TrainArgs {
	t.Helper()
	a := fasttext.DefaultTrainArgs()
	a.Thread, a.Seed = thread, seed
	args = append(append([]string(nil), commonArgs...), args...)
	for i := 0; i < len(args); i += 2 {
		v := args[i+1]
		n, _ := strconv.Atoi(v)
		switch args[i] {
		case "-loss":
			l, err := fasttext.ParseLoss(v)
			if err != nil {
				t.Fatal(err)
			}
			a.Loss = l
		case "-lr":
			f, _ := strconv.ParseFloat(v, 64)
			a.LR = fasttext.RoundLR(f)
		case "-dim":
			a.Dim = n
		case "-epoch":
			a.Epoch = n
		case "-neg":
			a.Neg = n
		case "-minn":
			a.MinN = n
		case "-maxn":
			a.MaxN = n
		case "-wordNgrams":
			a.WordNgrams = n
		case "-bucket":
			a.Bucket = n
		case "-minCount":
			a.MinCount = n
		default:
			t.Fatalf("argument %s", args[i])
		}
	}
	return a
}

func trainBytes(t testing.TB, c *fasttext.Corpus, a fasttext.TrainArgs) []byte {
	t.Helper()
	m, err := fasttext.Train(context.Background(), c, a, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := m.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// fastTextTrain trains with the fasttext command on the corpus and
// returns the model file.
func fastTextTrain(t testing.TB, bin, dir, name string, c *fasttext.Corpus, args []string, thread, seed int) string {
	t.Helper()
	input := filepath.Join(dir, name+".txt")
	f, err := os.Create(input)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WriteFastText(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := filepath.Join(dir, name)
	all := append([]string{"supervised", "-input", input, "-output", out, "-thread", fmt.Sprint(thread), "-seed", fmt.Sprint(seed), "-verbose", "0"}, commonArgs...)
	fasttexttest.Run(t, bin, append(all, args...)...)
	os.Remove(out + ".vec")
	return out + ".bin"
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

const goldenSums = "testdata/train/fasttext.sha256"

// readGoldenSums reads the SHA-256 of the models `fasttext supervised
// -thread 1 -seed 1` trained for trainConfigs.
func readGoldenSums(t testing.TB) map[string]string {
	b, err := os.ReadFile(goldenSums)
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 {
			sums[f[1]] = f[0]
		}
	}
	return sums
}

// TestTrainGolden trains every configuration with one thread and checks
// that the model file is, byte for byte, the one `fasttext supervised`
// wrote for the same examples (its SHA-256 recorded in
// testdata/train/fasttext.sha256). With -update it records them again with
// the fasttext command.
func TestTrainGolden(t *testing.T) {
	var sums map[string]string
	var bin string
	if *update {
		bin = testenv.Require(t, "fasttext")
		sums = map[string]string{}
	} else {
		sums = readGoldenSums(t)
	}
	dir := t.TempDir()
	for _, tc := range trainConfigs {
		t.Run(tc.name, func(t *testing.T) {
			train, _ := readSet(t, tc.set, tc.field)
			c := corpusOf(t, train)
			if *update {
				b, err := os.ReadFile(fastTextTrain(t, bin, dir, tc.name, c, tc.args, 1, 1))
				if err != nil {
					t.Fatal(err)
				}
				sums[tc.name] = sum(b)
			}
			got := trainBytes(t, c, argsOf(t, tc.args, 1, 1))
			if want := sums[tc.name]; sum(got) != want {
				t.Errorf("model SHA-256 %s, fastText's %s", sum(got), want)
			}
		})
	}
	if *update {
		var b strings.Builder
		for _, tc := range trainConfigs {
			fmt.Fprintf(&b, "%s  %s\n", sums[tc.name], tc.name)
		}
		if err := os.WriteFile(goldenSums, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTrainMatchesFastText trains each configuration with the fasttext
// command and in Go, with one thread and three seeds: the model files are
// the same bytes, and so P@1 on the held-out rows is the same.
func TestTrainMatchesFastText(t *testing.T) {
	bin := testenv.Require(t, "fasttext")
	dir := t.TempDir()
	for _, tc := range trainConfigs {
		t.Run(tc.name, func(t *testing.T) {
			train, held := readSet(t, tc.set, tc.field)
			c := corpusOf(t, train)
			var ours, theirs float64
			for _, seed := range []int{1, 2, 3} {
				file := fastTextTrain(t, bin, dir, tc.name, c, tc.args, 1, seed)
				want, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				got := trainBytes(t, c, argsOf(t, tc.args, 1, seed))
				if !bytes.Equal(got, want) {
					t.Fatalf("seed %d: %d bytes, fastText's %d; first difference at byte %d", seed, len(got), len(want), firstDiff(got, want))
				}
				m, err := fasttext.LoadBytes(got)
				if err != nil {
					t.Fatal(err)
				}
				ours += precisionAt1(m, held)
				theirs += fastTextP1(t, bin, file, dir, held)
			}
			ours, theirs = ours/3, theirs/3
			t.Logf("P@1 on %d held-out rows, mean of 3 seeds: sluice %.4f, fastText %.4f", len(held), ours, theirs)
			if math.Abs(ours-theirs) > 0.01 {
				t.Errorf("P@1 %.4f, fastText %.4f", ours, theirs)
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func precisionAt1(m *fasttext.Model, held []example) float64 {
	meter := fasttext.NewMeter(m.NumLabels())
	p := m.NewPredictor()
	for _, ex := range held {
		if i := m.LabelIndex(ex.label); i >= 0 {
			meter.Add([]int{i}, p.PredictString(ex.text, 1, 0, nil))
		}
	}
	return meter.Precision()
}

// fastTextP1 runs `fasttext test` on the held-out rows.
func fastTextP1(t testing.TB, bin, model, dir string, held []example) float64 {
	t.Helper()
	file := filepath.Join(dir, "held.txt")
	var b strings.Builder
	for _, ex := range held {
		fmt.Fprintf(&b, "__label__%s %s\n", ex.label, strings.Join(strings.Fields(ex.text), " "))
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := string(fasttexttest.Run(t, bin, "test", model, file, "1"))
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, "P@1\t"); ok {
			p, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
	}
	t.Fatalf("fasttext test printed %q", out)
	return 0
}

// TestCrossLoading trains with two threads (Hogwild: not the same bytes
// from run to run) in Go and with fastText, and checks that `fasttext
// predict-prob` on sluice's model and sluice on fastText's model predict
// what the other side predicts, within 1e-5.
func TestCrossLoading(t *testing.T) {
	bin := testenv.Require(t, "fasttext")
	dir := t.TempDir()
	for _, tc := range trainConfigs {
		t.Run(tc.name, func(t *testing.T) {
			train, held := readSet(t, tc.set, tc.field)
			c := corpusOf(t, train)
			texts := make([]string, len(held))
			for i, ex := range held {
				texts[i] = strings.Join(strings.Fields(ex.text), " ")
			}
			ourFile := filepath.Join(dir, tc.name+".sluice.bin")
			if err := os.WriteFile(ourFile, trainBytes(t, c, argsOf(t, tc.args, 2, 7)), 0o644); err != nil {
				t.Fatal(err)
			}
			theirFile := fastTextTrain(t, bin, dir, tc.name, c, tc.args, 2, 7)
			for _, file := range []string{ourFile, theirFile} {
				m, err := fasttext.LoadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				want := fasttexttest.PredictProb(t, bin, file, texts, 2)
				worst := fasttexttest.Compare(t, m, texts, want, 2, 1e-5)
				t.Logf("%s: %d texts, largest probability difference %.2g", filepath.Base(file), len(texts), worst)
			}
		})
	}
}

// TestTrainDeterministic: one thread and a seed give the same bytes every
// time; another seed gives another model. No fastText needed.
func TestTrainDeterministic(t *testing.T) {
	train, held := readSet(t, "udhr.jsonl.gz", "lang")
	c := corpusOf(t, train)
	args := argsOf(t, []string{"-minn", "2", "-maxn", "4", "-bucket", "20000", "-lr", "0.5"}, 1, 5)
	a, b := trainBytes(t, c, args), trainBytes(t, c, args)
	if !bytes.Equal(a, b) {
		t.Fatalf("two runs with seed 5 differ at byte %d", firstDiff(a, b))
	}
	args.Seed = 6
	if bytes.Equal(a, trainBytes(t, c, args)) {
		t.Fatal("seeds 5 and 6 gave the same model")
	}
	m, err := fasttext.LoadBytes(a)
	if err != nil {
		t.Fatal(err)
	}
	if p := precisionAt1(m, held); p < 0.75 {
		t.Errorf("P@1 %.3f on %d held-out sentences in 21 languages", p, len(held))
	}
	if m.NumLabels() != 21 || m.Args().MaxN != 4 {
		t.Errorf("loaded %v", m)
	}
}

// TestTrainHogwild trains with two threads: a model that predicts as
// well as one thread's.
func TestTrainHogwild(t *testing.T) {
	train, held := readSet(t, "spamassassin.jsonl.gz", "label")
	c := corpusOf(t, train)
	m, err := fasttext.Train(context.Background(), c, argsOf(t, []string{"-wordNgrams", "2", "-bucket", "20000"}, 2, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	model, err := m.Model()
	if err != nil {
		t.Fatal(err)
	}
	st := m.Stats()
	if p := precisionAt1(model, held); p < 0.9 {
		t.Errorf("P@1 %.3f on %d held-out mails", p, len(held))
	}
	if st.Examples != len(train) || st.Tokens != c.Tokens() || len(st.Labels) != 2 || st.WordsPerSec <= 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestTrainBadInput(t *testing.T) {
	c := fasttext.NewCorpus()
	for _, bad := range []string{"", "two words", "tab\there", "new\nline"} {
		if err := c.Add([]string{bad}, []byte("some text")); !errors.Is(err, fasttext.ErrBadLabel) {
			t.Errorf("label %q: %v", bad, err)
		}
	}
	if _, err := fasttext.Train(context.Background(), c, fasttext.DefaultTrainArgs(), nil); err == nil || !strings.Contains(err.Error(), "no training examples") {
		t.Errorf("empty corpus: %v", err)
	}
	if err := c.Add(nil, []byte("text without a label")); err != nil {
		t.Fatal(err)
	}
	if _, err := fasttext.Train(context.Background(), c, fasttext.DefaultTrainArgs(), nil); !errors.Is(err, fasttext.ErrNoLabels) {
		t.Errorf("no labels: %v", err)
	}
	// Text is never read as a label.
	c = fasttext.NewCorpus()
	c.Add([]string{"a"}, []byte("__label__b words"))
	c.Add([]string{"c"}, []byte("more words"))
	if labels, _ := c.LabelCounts(); strings.Join(labels, ",") != "a,c" {
		t.Errorf("labels %v", labels)
	}
	for _, tc := range []struct {
		change func(*fasttext.TrainArgs)
		want   string
	}{
		{func(a *fasttext.TrainArgs) { a.Dim = 0 }, "dim 0"},
		{func(a *fasttext.TrainArgs) { a.Epoch = -1 }, "epoch -1"},
		{func(a *fasttext.TrainArgs) { a.LR = math.NaN() }, "lr NaN"},
		{func(a *fasttext.TrainArgs) { a.WordNgrams, a.Bucket = 2, 0 }, "bucket 0"},
		{func(a *fasttext.TrainArgs) { a.MinN, a.MaxN = 5, 3 }, "minn 5, maxn 3"},
		{func(a *fasttext.TrainArgs) { a.Thread = 0 }, "thread 0"},
		{func(a *fasttext.TrainArgs) { a.MinCount = 100 }, "empty vocabulary"},
	} {
		a := fasttext.DefaultTrainArgs()
		tc.change(&a)
		if _, err := fasttext.Train(context.Background(), c, a, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
	if _, err := fasttext.ParseLoss("hinge"); err == nil {
		t.Error("loss hinge accepted")
	}
}

// TestReadFastText reads a fastText training file as fastText does: labels
// anywhere on the line, \r and other white space between tokens, a last
// line without a newline.
func TestReadFastText(t *testing.T) {
	c := fasttext.NewCorpus()
	n, err := c.ReadFastText(strings.NewReader("__label__a one two\r\nthree __label__b\tfour\n\n__label__a five"))
	if err != nil || n != 4 {
		t.Fatalf("%d lines, %v", n, err)
	}
	// fastText counts </s> for each newline: 3 + 4 + 1 + 2 tokens.
	if c.Tokens() != 11 {
		t.Errorf("%d tokens", c.Tokens())
	}
	labels, counts := c.LabelCounts()
	if fmt.Sprint(labels, counts) != "[a b] [2 1]" {
		t.Errorf("labels %v %v", labels, counts)
	}
	var b bytes.Buffer
	c.WriteFastText(&b)
	if b.String() != "__label__a one two\nthree __label__b four\n\n__label__a five\n" {
		t.Errorf("written as %q", b.String())
	}
}

// TestCancel stops training when the context is cancelled.
func TestCancel(t *testing.T) {
	train, _ := readSet(t, "udhr.jsonl.gz", "lang")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := argsOf(t, nil, 1, 1)
	a.Epoch = 100000
	if _, err := fasttext.Train(ctx, corpusOf(t, train), a, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestTrainEpochs reports the model after each epoch but the last, and
// the reports do not change the model.
func TestTrainEpochs(t *testing.T) {
	train, held := readSet(t, "udhr.jsonl.gz", "lang")
	c := corpusOf(t, train)
	a := argsOf(t, nil, 1, 1)
	a.Epoch = 4
	var p1 []float64
	m, err := fasttext.TrainEpochs(context.Background(), c, a, nil, func(n int, m *fasttext.Model) {
		if n != len(p1)+1 {
			t.Errorf("epoch %d after %d", n, len(p1))
		}
		p1 = append(p1, precisionAt1(m, held))
	})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	m.WriteTo(&b)
	if len(p1) != 3 || !bytes.Equal(b.Bytes(), trainBytes(t, c, a)) {
		t.Fatalf("%d epochs reported (%v); same model: %v", len(p1), p1, bytes.Equal(b.Bytes(), trainBytes(t, c, a)))
	}
	model, _ := m.Model()
	if last := precisionAt1(model, held); p1[0] >= last {
		t.Errorf("P@1 after the first epoch %.3f, at the end %.3f", p1[0], last)
	}
	t.Logf("P@1 by epoch: %v", p1)
}
