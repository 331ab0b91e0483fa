package scaleout

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/jsonl"
	"github.com/sluice-data/sluice/io/pqio"
	"github.com/sluice-data/sluice/pipeline"
	"github.com/sluice-data/sluice/pipeline/pipefile"
	"github.com/sluice-data/sluice/schema"
)

// testVersion is the version the tests' runs record.
const testVersion = "test"

var words = strings.Fields("the of and to in a is that for it as was with be by on not he this are or his from at which " +
	"but have an they you were her she there one all we their river stone cloud forest market window garden silver " +
	"copper ocean mountain valley bridge tower lantern harbor meadow orchard canyon glacier")

var boilerplate = []string{"Menu | Home | About | Contact", "Accept all cookies to continue", "Subscribe to our newsletter",
	"All rights reserved.", "Share this page"}

// corpus writes files JSONL files under dir/in: texts of a few lines,
// with boilerplate lines repeated across files, exact copies and near
// copies (one word changed) of earlier texts in the same or an earlier
// file, a decomposed (NFD) copy of an earlier text that normalize makes
// an exact copy, short texts the quality filters drop, an invalid UTF-8
// byte, and one line that is not JSON (file 1). Even files have an id
// column, odd ones do not. File f holds perFile*(1+f%3) rows, so the
// files differ in size.
func corpus(t *testing.T, dir string, files, perFile int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(17, uint64(files*1000+perFile)))
	var texts []string
	in := filepath.Join(dir, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	fresh := func() string {
		var lines []string
		if rng.IntN(2) == 0 {
			lines = append(lines, boilerplate[rng.IntN(len(boilerplate))])
		}
		for k := 1 + rng.IntN(2); k > 0; k-- {
			w := make([]string, 12+rng.IntN(25))
			for x := range w {
				w[x] = words[rng.IntN(len(words))]
			}
			lines = append(lines, strings.Join(w, " ")+".")
		}
		if rng.IntN(3) > 0 {
			lines = append(lines, boilerplate[rng.IntN(len(boilerplate))])
		}
		return strings.Join(lines, "\n")
	}
	for f := 0; f < files; f++ {
		var b bytes.Buffer
		rows := perFile * (1 + f%3)
		for j := 0; j < rows; j++ {
			var text string
			switch r := rng.Float64(); {
			case f == 2 && j == 1:
				text = "caf\u00e9 " + fresh() // NFC; copied decomposed below
			case f == 3 && j == 2:
				text = ""
				for _, x := range texts {
					if strings.HasPrefix(x, "caf\u00e9 ") {
						text = "cafe\u0301 " + strings.TrimPrefix(x, "caf\u00e9 ")
					}
				}
			case len(texts) > 0 && r < 0.12:
				text = texts[rng.IntN(len(texts))]
			case len(texts) > 0 && r < 0.24:
				w := strings.Split(texts[rng.IntN(len(texts))], " ")
				w[rng.IntN(len(w))] = words[rng.IntN(len(words))]
				text = strings.Join(w, " ")
			case r < 0.28:
				text = "too short"
			default:
				text = fresh()
			}
			texts = append(texts, text)
			if f == 1 && j == 3 {
				b.WriteString("{not json\n")
				continue
			}
			row := map[string]any{"text": text, "n": j}
			if f%2 == 0 {
				row["id"] = fmt.Sprintf("d%d-%d", f, j)
			}
			line, err := json.Marshal(row)
			if err != nil {
				t.Fatal(err)
			}
			if f == 2 && j == 4 {
				// An invalid UTF-8 byte inside the text, repaired on read.
				line = bytes.Replace(line, []byte(`"text":"`), []byte("\"text\":\"\xff"), 1)
			}
			b.Write(append(line, '\n'))
		}
		if err := os.WriteFile(filepath.Join(in, fmt.Sprintf("part-%02d.jsonl", f)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return in
}

// baseConfig is the configuration `sluice run` and `sluice launch` use by
// default, with small batches so that a shard holds several.
func baseConfig(inputs []input.File) pipeline.Config {
	return pipeline.Config{Inputs: inputs, Overwrite: true, Workers: 2, BatchRows: 16, BatchBytes: 64 << 10, InferRows: 10000,
		RepairUTF8: true, MaxDepth: jsonl.DefaultMaxDepth, MaxLineBytes: 512 << 20, TextField: "text",
		Output: dataset.Options{MaxFileRows: 1_000_000, MaxFileBytes: 512 << 20,
			Parquet: pqio.Options{Codec: pqio.Zstd, Level: 1, NoDictionary: []string{"text"}, PageBytes: 1 << 20}}}
}

// scan lists the input files of the paths, sorted.
func scan(t *testing.T, paths ...string) []input.File {
	t.Helper()
	set, err := input.Scan(paths, input.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return set.Files
}

// toParquet converts each JSONL file under in to a Parquet file of the
// same name under dir/pq, in row groups of batchRows rows.
func toParquet(t *testing.T, in, dir string, batchRows int) string {
	t.Helper()
	pq := filepath.Join(dir, "pq")
	staging := filepath.Join(dir, "pq-staging")
	for _, f := range scan(t, in) {
		name := strings.TrimSuffix(filepath.Base(f.Path), ".jsonl") + ".parquet"
		cfg := baseConfig([]input.File{f})
		cfg.BatchRows = batchRows
		// One schema for every file: odd files have no id.
		var err error
		if cfg.Schema, err = schema.Parse([]byte(`{"id": "string", "n": "int", "text": "string"}`)); err != nil {
			t.Fatal(err)
		}
		cfg.Target = dataset.ParseTarget(filepath.Join(staging, name))
		if _, err := pipeline.Run(context.Background(), cfg, nil, testVersion); err != nil {
			t.Fatalf("converting %s: %v", f.Path, err)
		}
		if err := os.MkdirAll(pq, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(staging, name), filepath.Join(pq, name)); err != nil {
			t.Fatal(err)
		}
	}
	return pq
}

// onePipeline writes the pipeline file text of the stages (YAML list
// items, without the dash).
func onePipeline(stageLines ...string) []byte {
	var b strings.Builder
	b.WriteString("stages:\n")
	for _, s := range stageLines {
		b.WriteString("  - " + s + "\n")
	}
	return []byte(b.String())
}

// buildStages builds the stages of a pipeline file the way `sluice run`
// does.
func buildStages(t *testing.T, text []byte) []pipeline.Stage {
	t.Helper()
	file, err := pipefile.ParseFile("pipeline.yaml", text)
	if err != nil {
		t.Fatal(err)
	}
	common := pipefile.Common{TextField: file.TextField, Annotate: file.Annotate, Profile: file.Profile}
	var built []pipeline.Stage
	for _, spec := range file.Stages {
		st, err := pipefile.Build(spec, common)
		if err != nil {
			t.Fatal(err)
		}
		built = append(built, st)
	}
	return built
}

// runSingle runs the pipeline in one process into out, as `sluice run`
// does: each global stage's passes first, then one pass writing.
func runSingle(t *testing.T, text []byte, cfg pipeline.Config, out string) *dataset.Manifest {
	t.Helper()
	ctx := context.Background()
	built := buildStages(t, text)
	err := pipeline.PrepareGlobals(cfg.Inputs, built, func(sts []pipeline.Stage, _ string) error {
		pass := cfg
		pass.Target = dataset.Target{Kind: dataset.Discard}
		pass.Stages = sts
		if u, ok := sts[0].(pipeline.ColumnUser); ok && len(sts) == 1 {
			pass.Columns = u.Columns()
		}
		_, err := pipeline.Run(ctx, pass, nil, testVersion)
		return err
	})
	if err != nil {
		t.Fatalf("one process, global passes: %v", err)
	}
	cfg.Stages = built
	cfg.Target = dataset.ParseTarget(out)
	m, err := pipeline.Run(ctx, cfg, nil, testVersion)
	if err != nil {
		t.Fatalf("one process: %v", err)
	}
	return m
}

// newPlan compiles the pipeline into a plan over cfg's inputs writing
// out, writes it to out/_plan.json and returns the plan read back, as a
// task reads it.
func newPlan(t *testing.T, text []byte, cfg pipeline.Config, out string, tasks int) (*Plan, string) {
	t.Helper()
	p, err := NewPlan(context.Background(), "pipeline.yaml", text, cfg, out, tasks)
	if err != nil {
		t.Fatalf("NewPlan: %v", err)
	}
	p.Version = testVersion
	path := filepath.Join(out, PlanFile)
	if err := p.WritePlan(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadPlan(path)
	if err != nil {
		t.Fatal(err)
	}
	return back, path
}

// runPhases runs every task of the phases of p, in order, in this process.
func runPhases(t *testing.T, p *Plan, phases []Phase) {
	t.Helper()
	for _, ph := range phases {
		for i := 0; i < ph.Tasks; i++ {
			ran, err := RunTask(context.Background(), p, ph.Name, i, testVersion, "")
			if err != nil {
				t.Fatalf("task %s/%d: %v", ph.Name, i, err)
			}
			if !ran {
				t.Fatalf("task %s/%d did not run", ph.Name, i)
			}
		}
	}
}

// runScaled compiles the pipeline into a plan of tasks tasks and runs all
// of them in process.
func runScaled(t *testing.T, text []byte, cfg pipeline.Config, out string, tasks int) *Plan {
	t.Helper()
	p, _ := newPlan(t, text, cfg, out, tasks)
	runPhases(t, p, p.Phases)
	return p
}

// reasons counts the removed rows by reason.
func reasons(rows []map[string]any) map[string]int {
	n := map[string]int{}
	for _, r := range rows {
		reason, _ := r["_reason"].(string)
		n[reason]++
	}
	return n
}
