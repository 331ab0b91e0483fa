package scaleout

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/demo/crawl"
	"github.com/sluice-data/sluice/internal/datasettest"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/schema"
)

// The pipelines the equivalence tests run: plain stages, each global
// stage alone, and all of them together.
var (
	plainPipeline   = onePipeline("normalize: {}", "gopher_quality: {min_word_count: 5}", "c4: {}")
	exactPipeline   = onePipeline("normalize: {}", "gopher_quality: {min_word_count: 5}", "dedup_exact: {}")
	linesPipeline   = onePipeline("dedup_lines: {keep: first}")
	linesNone       = onePipeline("dedup_lines: {keep: none}")
	minhashPipeline = onePipeline("dedup_minhash: {threshold: 0.7, num_perm: 64, bands: 16, ngram: 3}")
	minhashSigs     = onePipeline("dedup_minhash: {threshold: 0.7, num_perm: 64, bands: 16, ngram: 3, verify: signature}")
	allPipeline     = onePipeline("normalize: {}", "gopher_quality: {min_word_count: 5}", "dedup_exact: {}",
		"dedup_lines: {keep: first}", "dedup_minhash: {threshold: 0.7, num_perm: 64, bands: 16, ngram: 3}")
)

// checkEquivalent runs the pipeline in one process and then as a plan of
// 1, 2 and 3 tasks (all run here through RunTask), and compares.
func checkEquivalent(t *testing.T, text []byte, inputs []input.File, taskCounts []int, check func(t *testing.T, want datasettest.Dataset)) {
	t.Helper()
	dir := t.TempDir()
	cfg := baseConfig(inputs)
	single := filepath.Join(dir, "single")
	runSingle(t, text, cfg, single)
	want := datasettest.Read(t, single)
	if check != nil {
		check(t, want)
	}
	for _, tasks := range taskCounts {
		out := filepath.Join(dir, fmt.Sprintf("tasks-%d", tasks))
		p := runScaled(t, text, cfg, out, tasks)
		got := datasettest.Read(t, out)
		datasettest.Compare(t, fmt.Sprintf("%d tasks", tasks), got, want)
		if err := got.Manifest.Counts.Check(); err != nil {
			t.Errorf("%d tasks: merged counts: %v", tasks, err)
		}
		// One data part a shard (small shards fit one file).
		parts, _ := filepath.Glob(filepath.Join(out, "data", "part-*-*.parquet"))
		if len(parts) != len(p.Shards) {
			t.Errorf("%d tasks: %d data parts for %d shards", tasks, len(parts), len(p.Shards))
		}
		if len(got.Manifest.Outputs) != len(parts) {
			t.Errorf("%d tasks: the manifest lists %d outputs, %d on disk", tasks, len(got.Manifest.Outputs), len(parts))
		}
		opts, _ := got.Manifest.Options.(map[string]any)
		if opts["shards"] != float64(len(p.Shards)) || len(opts["phases"].([]any)) != len(p.Phases) {
			t.Errorf("%d tasks: merged options %v, want %d shards and %d phases", tasks, opts, len(p.Shards), len(p.Phases))
		}
	}
}

// jsonlCorpus is the JSONL corpus of the equivalence tests: 6 files of
// 40 to 120 rows.
func jsonlCorpus(t *testing.T) []input.File {
	return scan(t, corpus(t, t.TempDir(), 6, 40))
}

func TestTasksGiveTheRowsOfOneProcess(t *testing.T) {
	cases := []struct {
		name  string
		text  []byte
		tasks []int
		check func(t *testing.T, want datasettest.Dataset)
	}{
		{"plain stages", plainPipeline, []int{1, 3}, func(t *testing.T, want datasettest.Dataset) {
			if len(want.Removed) == 0 || want.Manifest.Counts.UTF8Repaired != 1 || len(want.Quarantine) != 1 {
				t.Fatalf("corpus too tame: %d removed, %d repaired, quarantine %q", len(want.Removed),
					want.Manifest.Counts.UTF8Repaired, want.Quarantine)
			}
		}},
		{"dedup_exact", exactPipeline, []int{1, 2, 3}, func(t *testing.T, want datasettest.Dataset) {
			r := reasons(want.Removed)
			named := 0
			for _, row := range want.Removed {
				if id, _ := row["_dup_of"].(string); strings.Contains(id, ".jsonl:") {
					named++
				}
			}
			if r["exact_dup"] < 20 || named == 0 {
				t.Fatalf("corpus too tame: removed by reason %v, %d named by line", r, named)
			}
		}},
		{"dedup_lines keep first", linesPipeline, []int{1, 2, 3}, func(t *testing.T, want datasettest.Dataset) {
			copies := 0
			for _, row := range want.Kept {
				for _, line := range strings.Split(row["text"].(string), "\n") {
					if line == boilerplate[0] {
						copies++
					}
				}
			}
			if copies != 1 {
				t.Fatalf("dedup_lines kept %d copies of a boilerplate line, want 1", copies)
			}
		}},
		{"dedup_lines keep none", linesNone, []int{3}, func(t *testing.T, want datasettest.Dataset) {
			if len(want.Removed) == 0 {
				t.Fatalf("keep none removed no row")
			}
		}},
		{"dedup_minhash", minhashPipeline, []int{1, 2, 3}, func(t *testing.T, want datasettest.Dataset) {
			r := reasons(want.Removed)
			for _, row := range want.Removed {
				if row["_reason"] == "near_dup" && row["_cluster"] == nil {
					t.Fatalf("near duplicate without a cluster: %v", row)
				}
			}
			if r["near_dup"] < 20 {
				t.Fatalf("corpus too tame: removed by reason %v", r)
			}
		}},
		{"dedup_minhash verify signature", minhashSigs, []int{2}, nil},
		{"all stages", allPipeline, []int{1, 2, 3}, func(t *testing.T, want datasettest.Dataset) {
			if r := reasons(want.Removed); r["exact_dup"] == 0 || r["near_dup"] == 0 || len(r) < 3 {
				t.Fatalf("corpus too tame: removed by reason %v", r)
			}
		}},
	}
	inputs := jsonlCorpus(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkEquivalent(t, c.text, inputs, c.tasks, c.check)
		})
	}
}

// Parquet files are read with their own schema (none is inferred), and
// ids by row number count in every file.
func TestTasksOverParquetFilesGiveTheRowsOfOneProcess(t *testing.T) {
	dir := t.TempDir()
	pq := toParquet(t, corpus(t, dir, 6, 40), dir, 16)
	inputs := scan(t, pq)
	if len(inputs) != 6 || inputs[0].Format != input.Parquet {
		t.Fatalf("Parquet corpus: %v", inputs)
	}
	namedByRow := func(t *testing.T, want datasettest.Dataset) {
		named := 0
		for _, row := range want.Removed {
			if id, _ := row["_dup_of"].(string); strings.Contains(id, ".parquet:") {
				named++
			}
		}
		if named == 0 {
			t.Fatal("no removed row names its kept row by row number")
		}
	}
	for _, c := range []struct {
		name  string
		text  []byte
		tasks []int
		check func(t *testing.T, want datasettest.Dataset)
	}{
		{"dedup_exact", exactPipeline, []int{2}, namedByRow},
		{"dedup_lines", linesPipeline, []int{3}, nil},
		{"all stages", allPipeline, []int{1, 2, 3}, namedByRow},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkEquivalent(t, c.text, inputs, c.tasks, c.check)
		})
	}
}

// One Parquet file of many row groups is sliced into as many shards as
// tasks, and gives the rows of one process; the merged manifest lists the
// file once, with all its rows.
func TestOneParquetFileIsSlicedAndGivesTheRowsOfOneProcess(t *testing.T) {
	dir := t.TempDir()
	in := corpus(t, dir, 1, 300)
	pq := toParquet(t, in, dir, 20)
	inputs := scan(t, pq)
	checkEquivalent(t, allPipeline, inputs, []int{2, 3}, func(t *testing.T, want datasettest.Dataset) {
		if len(want.Manifest.Inputs) != 1 || want.Manifest.Inputs[0].Rows != 300 {
			t.Fatalf("one process read %+v, want one file of 300 rows", want.Manifest.Inputs)
		}
	})
	p, err := NewPlan(t.Context(), "pipeline.yaml", allPipeline, baseConfig(inputs), filepath.Join(dir, "plan"), 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Inputs) != 3 || len(p.Shards) != 3 {
		t.Fatalf("3 tasks over one file of 15 row groups: %d inputs, %d shards", len(p.Inputs), len(p.Shards))
	}
	next := 0
	for _, f := range p.Inputs {
		if f.Path != inputs[0].Path || f.RowGroups[0] != next || f.RowGroups[1] <= f.RowGroups[0] || f.Size <= 0 {
			t.Fatalf("slices %+v do not cover the row groups in order", p.Inputs)
		}
		next = f.RowGroups[1]
	}
	if next != 15 {
		t.Errorf("slices end at row group %d, the file has 15", next)
	}
}

// One large JSONL file is cut at line boundaries into as many shards as
// tasks, and gives the rows of one process, with the same line numbers in
// the quarantine and in the ids of duplicates; the merged manifest lists
// the file once with its bytes and hash.
func TestOneJSONLFileIsCutAtLinesAndGivesTheRowsOfOneProcess(t *testing.T) {
	dir := t.TempDir()
	parts, _ := filepath.Glob(filepath.Join(corpus(t, dir, 4, 60), "*.jsonl"))
	var all []byte
	for _, p := range parts {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
		all = append(all, '\n') // a blank line between the parts
	}
	big := filepath.Join(dir, "big.jsonl")
	if err := os.WriteFile(big, all, 0o644); err != nil {
		t.Fatal(err)
	}
	inputs := scan(t, big)
	checkEquivalent(t, allPipeline, inputs, []int{2, 4}, func(t *testing.T, want datasettest.Dataset) {
		if len(want.Quarantine) != 1 || !strings.Contains(want.Quarantine[0], `"line":`) {
			t.Fatalf("corpus too tame: quarantine %q", want.Quarantine)
		}
	})
	p, err := NewPlan(t.Context(), "pipeline.yaml", allPipeline, baseConfig(inputs), filepath.Join(dir, "plan"), 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Inputs) != 4 || len(p.Shards) != 4 || p.ShardNote(4) != "" {
		t.Fatalf("4 tasks over one JSONL file: %d inputs, %d shards (%s)", len(p.Inputs), len(p.Shards), p.ShardNote(4))
	}
	var next int64
	for _, f := range p.Inputs {
		if f.Path != big || f.Span.Lo != next || f.Span.Hi <= f.Span.Lo || (next > 0 && all[next-1] != '\n') {
			t.Fatalf("slices %+v do not cover the file in order at line starts", p.Inputs)
		}
		next = f.Span.Hi
	}
	if next != int64(len(all)) {
		t.Errorf("slices end at byte %d, the file has %d", next, len(all))
	}
}

// WARC files run under launch, a file or more a task: the pages
// extracted, deduplicated across files, normalized and filtered by
// language are those of one process.
func TestWARCFilesGiveTheRowsOfOneProcess(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i := 0; i < 3; i++ {
		path := filepath.Join(dir, fmt.Sprintf("crawl-%d.warc.gz", i))
		if err := os.WriteFile(path, crawl.WARC(), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	inputs := scan(t, paths...)
	text := onePipeline("extract: {mode: main}", "dedup_exact: {}", "normalize: {}", "lang: {languages: [en], min_score: 0.5}")
	checkEquivalent(t, text, inputs, []int{2, 3}, func(t *testing.T, want datasettest.Dataset) {
		if r := reasons(want.Removed); len(want.Kept) < 2 || r["exact_dup"] < 2*len(want.Kept) || r["lang"] == 0 {
			t.Fatalf("corpus too tame: %d kept, removed by reason %v", len(want.Kept), r)
		}
	})
}

// With a schema file (--schema), nothing is inferred at launch: every
// task reads the file, and the rows are those of one process with it.
// A task that cannot read it fails, naming it.
func TestTasksReadTheGivenSchemaFile(t *testing.T) {
	dir := t.TempDir()
	inputs := scan(t, corpus(t, dir, 4, 20))
	schemaFile := filepath.Join(dir, "schema.json")
	if err := os.WriteFile(schemaFile, []byte(`{"id": "string", "text": "string", "n": "int"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := baseConfig(inputs)
	cfg.SchemaFile = schemaFile
	var err error
	if cfg.Schema, err = schema.Parse([]byte(`{"id": "string", "text": "string", "n": "int"}`)); err != nil {
		t.Fatal(err)
	}
	single := filepath.Join(dir, "single")
	runSingle(t, exactPipeline, cfg, single)
	out := filepath.Join(dir, "out")
	p := runScaled(t, exactPipeline, cfg, out, 2)
	if p.Settings.Schema != "" || p.Settings.SchemaFile != schemaFile {
		t.Errorf("settings: schema %q, file %q; want the file only", p.Settings.Schema, p.Settings.SchemaFile)
	}
	datasettest.Compare(t, "schema file", datasettest.Read(t, out), datasettest.Read(t, single))

	for name, text := range map[string]string{"missing": "", "not a schema": `["text"]`} {
		os.Remove(schemaFile)
		if text != "" {
			os.WriteFile(schemaFile, []byte(text), 0o644)
		}
		p, _ := newPlan(t, exactPipeline, cfg, filepath.Join(dir, "out-"+strings.ReplaceAll(name, " ", "-")), 2)
		if _, err := RunTask(context.Background(), p, p.Phases[0].Name, 0, testVersion, ""); err == nil || !strings.Contains(err.Error(), "schema.json") {
			t.Errorf("schema file %s: %v, want an error naming it", name, err)
		}
	}
}

// Shards without rows (an empty file, a file of lines that are not JSON)
// still give the rows of one process.
func TestShardsWithoutRowsGiveTheRowsOfOneProcess(t *testing.T) {
	dir := t.TempDir()
	in := corpus(t, dir, 4, 20)
	os.WriteFile(filepath.Join(in, "part-01b.jsonl"), nil, 0o644)
	os.WriteFile(filepath.Join(in, "part-99.jsonl"), []byte("{bad\n{also bad\n"), 0o644)
	inputs := scan(t, in)
	checkEquivalent(t, allPipeline, inputs, []int{len(inputs)}, func(t *testing.T, want datasettest.Dataset) {
		if len(want.Quarantine) != 3 {
			t.Fatalf("quarantine %q, want 3 lines", want.Quarantine)
		}
	})
}

// A launched pipeline reports what one process does: the token counts,
// built from the shards' histograms, and the contamination found, built
// from the shards' hits, equal the reports of one process.
func TestTasksReportAsOneProcess(t *testing.T) {
	inputs := jsonlCorpus(t)
	evals := evalSet(t, inputs, 5)
	text := onePipeline("normalize: {}", "dedup_lines: {keep: first}",
		fmt.Sprintf("decontaminate: {eval: [%s], ngram: 8, min_overlap: 1}", evals), "tokens: {group_by: [n]}")
	dir := t.TempDir()
	cfg := baseConfig(inputs)
	single := filepath.Join(dir, "single")
	runSingle(t, text, cfg, single)
	want := datasettest.Read(t, single)
	wantTokens, wantContam := stageReport(t, want.Manifest, "tokens"), stageReport(t, want.Manifest, "decontaminate")
	if groups, _ := wantTokens["groups"].([]any); len(groups) < 10 {
		t.Fatalf("one process: %d token groups, want many: %v", len(groups), wantTokens)
	}
	if sets := wantContam["eval_sets"].([]any); sets[0].(map[string]any)["contaminated"].(float64) < 3 {
		t.Fatalf("one process: too little contamination found: %v", wantContam)
	}
	for _, tasks := range []int{2, 3} {
		out := filepath.Join(dir, fmt.Sprintf("tasks-%d", tasks))
		runScaled(t, text, cfg, out, tasks)
		got := datasettest.Read(t, out)
		datasettest.Compare(t, fmt.Sprintf("%d tasks", tasks), got, want)
		for name, wantReport := range map[string]map[string]any{"tokens": wantTokens, "decontaminate": wantContam} {
			if gotReport := stageReport(t, got.Manifest, name); !reflect.DeepEqual(gotReport, wantReport) {
				t.Errorf("%d tasks: %s report\n%v\none process\n%v", tasks, name, gotReport, wantReport)
			}
		}
	}
}

// evalSet writes an evaluation set of the first sentence of n texts of
// the first input, some of which are copied across the corpus, and
// returns its path.
func evalSet(t *testing.T, inputs []input.File, n int) string {
	t.Helper()
	data, err := os.ReadFile(inputs[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i, line := range strings.Split(string(data), "\n") {
		var row struct{ Text string }
		if json.Unmarshal([]byte(line), &row) != nil || len(strings.Fields(row.Text)) < 30 || i%3 != 0 {
			continue
		}
		first := strings.SplitN(row.Text, ".", 2)[0]
		fmt.Fprintf(&b, "{\"id\":\"q%d\",\"question\":%q}\n", i, first)
		if n--; n == 0 {
			break
		}
	}
	path := filepath.Join(t.TempDir(), "quiz.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// stageReport returns the report of the stage name in m, as JSON reads it.
func stageReport(t *testing.T, m *dataset.Manifest, name string) map[string]any {
	t.Helper()
	for _, st := range m.Stages {
		if st.Name == name {
			b, err := json.Marshal(st.Report)
			if err != nil {
				t.Fatal(err)
			}
			var r map[string]any
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			return r
		}
	}
	t.Fatalf("no %s stage in the manifest: %+v", name, m.Stages)
	return nil
}
