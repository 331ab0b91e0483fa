// Package fasttexttest runs the fastText command line in tests, to check
// that sluice predicts what fastText predicts. The fastText binary comes
// from the Debian package (apt-get install -y fasttext); tests find it with
// internal/testenv.Require, which skips when it is missing (fails in CI).
package fasttexttest

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/kernels/fasttext"
)

// Run runs fasttext with args and fails the test if it fails.
func Run(t testing.TB, bin string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("fasttext %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out
}

// Label is one label and probability as fastText printed it.
type Label struct {
	Name string
	Prob float64
}

// PredictProb runs `fasttext predict-prob MODEL FILE k` on the given
// lines (which must hold no newline) and returns its labels per line.
func PredictProb(t testing.TB, bin, model string, lines []string, k int) [][]Label {
	t.Helper()
	file := filepath.Join(t.TempDir(), "predict.txt")
	var buf bytes.Buffer
	for _, l := range lines {
		if strings.Contains(l, "\n") {
			t.Fatalf("line holds a newline: %q", l)
		}
		buf.WriteString(l)
		buf.WriteByte('\n')
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := Run(t, bin, "predict-prob", model, file, strconv.Itoa(k))
	var res [][]Label
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f)%2 != 0 {
			t.Fatalf("predict-prob line %d: %q", len(res)+1, sc.Text())
		}
		var ls []Label
		for i := 0; i < len(f); i += 2 {
			p, err := strconv.ParseFloat(f[i+1], 64)
			if err != nil {
				t.Fatalf("predict-prob line %d: %v", len(res)+1, err)
			}
			ls = append(ls, Label{Name: f[i], Prob: p})
		}
		res = append(res, ls)
	}
	if len(res) != len(lines) {
		t.Fatalf("predict-prob printed %d lines for %d inputs", len(res), len(lines))
	}
	return res
}

// Compare predicts every line with m and checks the labels and
// probabilities against fastText's: the same labels in the same order
// (two labels may swap only when their probabilities are within tol) and
// every probability within tol. It returns the largest difference seen.
func Compare(t testing.TB, m *fasttext.Model, lines []string, want [][]Label, k int, tol float64) float64 {
	t.Helper()
	p := m.NewPredictor()
	var got []fasttext.Prediction
	worst := 0.0
	for i, line := range lines {
		got = p.PredictString(line, k, 0, got)
		w := want[i]
		if len(got) != len(w) {
			t.Errorf("line %d %q: %d predictions, fastText %d: %v", i+1, clip(line), len(got), len(w), w)
			continue
		}
		for j, g := range got {
			name := m.Label(g.Label)
			diff := math.Abs(float64(g.Prob) - w[j].Prob)
			worst = max(worst, diff)
			if diff > tol {
				t.Errorf("line %d %q: prediction %d is %s %.6g, fastText %s %.6g", i+1, clip(line), j+1, name, g.Prob, w[j].Name, w[j].Prob)
				continue
			}
			if name != w[j].Name && !swappedTie(m, got, w, j, tol) {
				t.Errorf("line %d %q: prediction %d is %s, fastText %s (%v)", i+1, clip(line), j+1, name, w[j].Name, w)
			}
		}
	}
	return worst
}

// swappedTie reports whether the label at j differs from fastText's only
// because two probabilities within tol came out in the other order.
func swappedTie(m *fasttext.Model, got []fasttext.Prediction, want []Label, j int, tol float64) bool {
	name := m.Label(got[j].Label)
	for i, w := range want {
		if w.Name == name && math.Abs(w.Prob-want[j].Prob) <= tol {
			return i != j
		}
	}
	return false
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
