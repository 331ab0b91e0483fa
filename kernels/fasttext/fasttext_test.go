package fasttext_test

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/fnv"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/kernels/fasttext"
)

// TestGolden compares predictions of two small models, a dense one and its
// quantized form, with what `fasttext predict-prob MODEL FILE 3` printed
// for them (testdata/tiny.golden.jsonl), so that the comparison runs
// without fastText installed too.
func TestGolden(t *testing.T) {
	f, err := os.Open("testdata/tiny.golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	models := map[string]*fasttext.Model{}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		var g struct {
			Model, Text string
			Want        [][2]any
		}
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		m := models[g.Model]
		if m == nil {
			if m, err = fasttext.LoadFile("testdata/" + g.Model); err != nil {
				t.Fatal(err)
			}
			models[g.Model] = m
		}
		got := m.Predict(g.Text, 3, 0)
		if len(got) != len(g.Want) {
			t.Errorf("%s %q: %d predictions, want %d", g.Model, g.Text, len(got), len(g.Want))
			continue
		}
		for i, w := range g.Want {
			if m.Label(got[i].Label) != w[0].(string) || math.Abs(float64(got[i].Prob)-w[1].(float64)) > 1e-5 {
				t.Errorf("%s %q: prediction %d is %s %g, fastText %v", g.Model, g.Text, i+1, m.Label(got[i].Label), got[i].Prob, w)
			}
		}
	}
	if n < 10 || !models["tiny.ftz"].Quantized() || models["tiny.bin"].Quantized() {
		t.Fatalf("golden file: %d lines", n)
	}
}

// TestPredictOptions checks k, the threshold and the handling of newlines.
func TestPredictOptions(t *testing.T) {
	m, err := fasttext.LoadFile("testdata/tiny.bin")
	if err != nil {
		t.Fatal(err)
	}
	p := m.NewPredictor()
	all := p.PredictString("table chair good", -1, 0, nil)
	if len(all) != m.NumLabels() {
		t.Fatalf("k=-1 gave %d labels of %d", len(all), m.NumLabels())
	}
	for i := 1; i < len(all); i++ {
		if all[i].Prob > all[i-1].Prob {
			t.Fatalf("not sorted: %v", all)
		}
	}
	// The threshold applies to p; the reported probability is p + 1e-5.
	if got := p.PredictString("table chair good", 5, all[1].Prob-2e-5, nil); len(got) != 2 {
		t.Errorf("threshold %g kept %v", all[1].Prob-2e-5, got)
	}
	if got := p.PredictString("table chair good", 5, all[1].Prob, nil); len(got) != 1 {
		t.Errorf("threshold %g kept %v", all[1].Prob, got)
	}
	if got := p.PredictString("table chair good", 0, 0, nil); len(got) != 0 {
		t.Errorf("k=0 gave %v", got)
	}
	// Newlines separate tokens like spaces: the text is one example.
	a := p.PredictString("table\nchair\r\ngood\n", 1, 0, nil)
	b := p.PredictString("table chair good", 1, 0, nil)
	if a[0] != b[0] {
		t.Errorf("with newlines %v, with spaces %v", a, b)
	}
}

// TestHashSignedBytes pins fastText's hash: FNV-1a for ASCII, but bytes
// >= 0x80 are xored in sign-extended. The word n-gram rows prove it too:
// the golden test's "schön", "très" and "一个" hit the rows fastText trained.
func TestHashSignedBytes(t *testing.T) {
	ascii := fnv.New32a()
	ascii.Write([]byte("hello"))
	if got := fasttext.Hash([]byte("hello")); got != ascii.Sum32() {
		t.Errorf("ASCII hash %d, FNV-1a %d", got, ascii.Sum32())
	}
	plain := fnv.New32a()
	plain.Write([]byte("é"))
	// By hand: h = 2166136261; h ^= 0xffffffc3; h *= 16777619; h ^= 0xffffffa9; h *= 16777619.
	h := uint32(2166136261)
	for _, c := range []uint32{0xffffffc3, 0xffffffa9} {
		h ^= c
		h *= 16777619
	}
	if got := fasttext.Hash([]byte("é")); got != h || got == plain.Sum32() {
		t.Errorf("hash of é = %d, want %d (plain FNV-1a %d)", got, h, plain.Sum32())
	}
}

func TestLoadErrors(t *testing.T) {
	good, err := os.ReadFile("testdata/tiny.ftz")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]byte{
		"not a fastText model file": []byte("hello world, this is not a model"),
		"unexpected end of file":    good[:len(good)/2],
		"bytes after":               append(append([]byte(nil), good...), 0),
		"version":                   append(append([]byte(nil), good[:4]...), append([]byte{99, 0, 0, 0}, good[8:]...)...),
	}
	for want, data := range cases {
		_, err := fasttext.LoadBytes(data)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want an error containing %q", err, want)
		}
	}
	if _, err := fasttext.LoadFile("testdata/nonexistent.bin"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestNaNWeights predicts with a model whose last output weights are NaN,
// under every loss: the binary losses look NaN up in the sigmoid table,
// which must not index outside it.
func TestNaNWeights(t *testing.T) {
	data, err := os.ReadFile("testdata/tiny.bin")
	if err != nil {
		t.Fatal(err)
	}
	const lossOffset = 32 // magic, version, dim, ws, epoch, minCount, neg, wordNgrams
	for _, loss := range []fasttext.Loss{fasttext.LossHS, fasttext.LossNS, fasttext.LossSoftmax, fasttext.LossOVA} {
		d := append([]byte(nil), data...)
		binary.LittleEndian.PutUint32(d[lossOffset:], uint32(loss))
		for i := len(d) - 40; i < len(d); i += 4 {
			binary.LittleEndian.PutUint32(d[i:], math.Float32bits(float32(math.NaN())))
		}
		m, err := fasttext.LoadBytes(d)
		if err != nil {
			t.Fatal(err)
		}
		if m.Args().Loss != loss {
			t.Fatalf("loss %s, want %s", m.Args().Loss, loss)
		}
		if got := m.Predict("good bad table", -1, 0); len(got) != m.NumLabels() {
			t.Errorf("%s: %d predictions for %d labels", loss, len(got), m.NumLabels())
		}
	}
}

// FuzzLoad feeds corrupted model files to the loader: it must return an
// error or a model that predicts without panicking.
func FuzzLoad(f *testing.F) {
	for _, name := range []string{"testdata/tiny.bin", "testdata/tiny.ftz"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/3])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := fasttext.LoadBytes(data)
		if err != nil {
			return
		}
		p := m.NewPredictor()
		for _, text := range []string{"good bad table", "", "schön 一个 \xff"} {
			for _, pr := range p.PredictString(text, -1, 0, nil) {
				_ = m.Label(pr.Label)
			}
		}
	})
}
