package stages

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/pqio"
	"github.com/sluice-data/sluice/kernels/minhash"
	"github.com/sluice-data/sluice/pipeline"
)

// nearDupCorpus writes a JSONL corpus of n documents of random words,
// some of them copies of an earlier one with a few words changed, a few
// with accents and capitals, and a line that is not JSON.
func nearDupCorpus(t *testing.T, path string, n int) {
	t.Helper()
	vocab := strings.Fields("the a of river stone light north winter garden letter market silver cloud " +
		"quiet harbour engine paper window forest Morning Évora café naïve ÜBER straße 東京 data 2024 x-ray it's")
	state := uint64(3)
	next := func(k int) int {
		state = state*6364136223846793005 + 1442695040888963407
		return int(state>>33) % k
	}
	var docs []string
	var b strings.Builder
	for i := range n {
		var words []string
		if i > 10 && next(3) == 0 {
			words = strings.Fields(docs[next(len(docs))])
			for j := range words {
				if next(25) == 0 {
					words[j] = vocab[next(len(vocab))]
				}
			}
		} else {
			for range 60 + next(200) {
				words = append(words, vocab[next(len(vocab))])
			}
		}
		doc := strings.Join(words, " ")
		docs = append(docs, doc)
		fmt.Fprintf(&b, "{\"id\": \"d%d\", \"text\": %q, \"n\": %d}\n", i, doc, i)
		if i == n/2 {
			b.WriteString("{not json\n")
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runMinHash runs MinHash dedup over in as the command does (its passes,
// then the writing pass) into out, a JSONL file, and returns its report.
func runMinHash(t *testing.T, in, out string, p MinHashParams) MinHashReport {
	t.Helper()
	files, err := input.Expand([]string{in})
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cfg := pipeline.Config{
		Inputs: files, Target: dataset.ParseTarget(out), Workers: 2, BatchRows: 16,
		BatchBytes: 1 << 20, InferRows: 10000, RepairUTF8: true, MaxDepth: 128,
		MaxLineBytes: 1 << 20, TextField: "text", Mem: mem,
		Output: dataset.Options{MaxFileRows: 1 << 20, MaxFileBytes: 1 << 30, Parquet: pqio.Options{Codec: pqio.Zstd}},
	}
	g, err := NewGlobalMinHash("text", p, false)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Stages = []pipeline.Stage{g}
	ctx := context.Background()
	err = pipeline.PrepareGlobals(cfg.Inputs, cfg.Stages, func(stages []pipeline.Stage, _ string) error {
		pass := cfg
		pass.Target, pass.Stages = dataset.Target{Kind: dataset.Discard}, stages
		_, err := pipeline.Run(ctx, pass, nil, "test")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pipeline.Run(ctx, cfg, nil, "test"); err != nil {
		t.Fatal(err)
	}
	return g.Index().Report()
}

// The passes after the first replay the batches it decoded, and the
// signatures stay in memory, unless the input or the signatures are larger
// than the memory they may take; then the passes read the input again and
// the signatures go to the Parquet intermediate. Either way, the same rows
// are kept and removed, with the same clusters.
func TestMinHashSameRowsWithAndWithoutReplay(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	nearDupCorpus(t, in, 300)
	for _, verify := range []minhash.Verify{minhash.VerifyJaccard, minhash.VerifySignature} {
		p := DefaultMinHashParams()
		p.Verify, p.SpillDir = verify, dir
		var outputs [2]string
		var reports [2]MinHashReport
		for i, memory := range []int64{1 << 30, 0} {
			func() {
				defer func(f func() int64) { minhashMemory = f }(minhashMemory)
				minhashMemory = func() int64 { return memory }
				out := filepath.Join(dir, fmt.Sprintf("%s-%d.jsonl", verify, memory))
				reports[i] = runMinHash(t, in, out, p)
				kept, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				removed, err := os.ReadFile(dataset.ParseTarget(out).Removed().Path)
				if err != nil {
					t.Fatal(err)
				}
				outputs[i] = string(kept) + "--- removed\n" + string(removed)
			}()
		}
		if reports[0].Clusters < 20 || !strings.Contains(outputs[0], `"_reason":"near_dup"`) {
			t.Fatalf("verify %s: %d clusters in the report, removed rows:\n%s", verify, reports[0].Clusters, outputs[0])
		}
		if outputs[0] != outputs[1] {
			t.Errorf("verify %s: replayed and in memory\n%s\nread again and spilled\n%s", verify, outputs[0], outputs[1])
		}
		if fmt.Sprint(reports[0]) != fmt.Sprint(reports[1]) {
			t.Errorf("verify %s: reports differ:\n%+v\n%+v", verify, reports[0], reports[1])
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "sluice-minhash-*")); len(left) > 0 {
			t.Errorf("intermediates left: %v", left)
		}
	}
}

// The spill gives back what it was given, in order, whether it holds the
// documents in memory or writes them to its intermediate, in runs of rows
// when the signatures are long.
func TestSigSpillGivesBackItsDocuments(t *testing.T) {
	for _, k := range []int{3, 128, 8192} {
		var want []string
		var pos []uint64
		var ids []string
		var sigs []uint32
		for i := range 100 {
			pos = append(pos, uint64(i)<<32|uint64(i*7))
			id := fmt.Sprintf("doc-%d", i)
			if i%9 == 0 {
				id = ""
			}
			ids = append(ids, id)
			for j := range k {
				sigs = append(sigs, uint32(i*k+j))
			}
			want = append(want, fmt.Sprintf("%d %q %d %d", pos[i], id, sigs[i*k], sigs[(i+1)*k-1]))
		}
		for _, budget := range []int64{1 << 30, 0, int64(30 * (4*k + 8))} {
			s, err := newSigSpill(t.TempDir(), k, budget)
			if err != nil {
				t.Fatal(err)
			}
			for lo := 0; lo < 100; lo += 40 {
				hi := min(lo+40, 100)
				if err := s.add(pos[lo:hi], ids[lo:hi], sigs[lo*k:hi*k]); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.finish(); err != nil {
				t.Fatal(err)
			}
			var got []string
			if err := s.each(func(p uint64, id string, sig []uint32) {
				got = append(got, fmt.Sprintf("%d %q %d %d", p, id, sig[0], sig[k-1]))
			}); err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("k %d, budget %d: got\n%s\nwant\n%s", k, budget, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if _, err := os.Stat(s.path); (err == nil) != (budget < 1<<30) {
				t.Errorf("k %d, budget %d: intermediate written: %v", k, budget, err == nil)
			}
			if err := s.remove(); err != nil {
				t.Fatal(err)
			}
		}
	}
}
