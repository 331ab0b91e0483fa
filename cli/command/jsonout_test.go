package command

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sluice-data/sluice/demo/crawl"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/tasks"
)

// The types below mirror the --json objects the README documents, written
// apart from the code's own types: a field the code adds or renames
// without the README fails the strict decoding.

type countsJSON struct {
	RowsIn       int64 `json:"rows_in"`
	RowsOut      int64 `json:"rows_out"`
	Removed      int64 `json:"removed"`
	Quarantined  int64 `json:"quarantined"`
	UTF8Repaired int64 `json:"utf8_repaired"`
	MissingText  int64 `json:"missing_text"`
	Inserted     int64 `json:"inserted"`
}

type summaryJSON struct {
	Output     string     `json:"output"`
	Manifest   string     `json:"manifest"`
	Quarantine string     `json:"quarantine"`
	Counts     countsJSON `json:"counts"`
	InputFiles int        `json:"input_files"`
	BytesIn    int64      `json:"bytes_in"`
	Outputs    []struct {
		Path  string `json:"path"`
		Rows  int64  `json:"rows"`
		Bytes int64  `json:"bytes"`
		Hash  string `json:"xxhash64"`
	} `json:"outputs"`
	BytesOut int64 `json:"bytes_out"`
	Stages   []struct {
		Name     string           `json:"name"`
		RowsIn   int64            `json:"rows_in"`
		RowsOut  int64            `json:"rows_out"`
		Removed  map[string]int64 `json:"removed"`
		Inserted int64            `json:"inserted"`
		Seconds  float64          `json:"seconds"`
	} `json:"stages"`
	WallSeconds float64  `json:"wall_seconds"`
	MBPerSecond float64  `json:"mb_per_second"`
	Errors      []string `json:"errors"`
}

// statusJSON is what `sluice status --json` prints.
type statusJSON struct {
	Output   string      `json:"output"`
	Phases   []phaseJSON `json:"phases"`
	Complete bool        `json:"complete"`
	Manifest string      `json:"manifest"`
}

type phaseJSON struct {
	Name        string           `json:"name"`
	Kind        string           `json:"kind"`
	Tasks       int              `json:"tasks"`
	Done        int              `json:"done"`
	Waiting     int              `json:"waiting"`
	State       string           `json:"state"`
	Running     []map[string]any `json:"running"`
	Failed      []map[string]any `json:"failed"`
	Interrupted []map[string]any `json:"interrupted"`
	// What the done tasks' markers recorded (launch_times_test.go).
	TimedTasks      int     `json:"timed_tasks"`
	TaskSeconds     float64 `json:"task_seconds"`
	MaxTaskSeconds  float64 `json:"max_task_seconds"`
	OverheadSeconds float64 `json:"overhead_seconds"`
	SetupSeconds    float64 `json:"setup_seconds"`
	PeakRSS         int64   `json:"peak_rss_bytes"`
}

// decodeOne decodes stdout, which must hold one JSON object and nothing
// else, into v, refusing fields v does not have.
func decodeOne(t *testing.T, stdout string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("--json output does not decode: %v\n%s", err, stdout)
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); err != io.EOF {
		t.Fatalf("standard output holds more than the JSON object: %v %s", err, extra)
	}
}

// sluiceJSON runs sluice with --json added, expects exit 0 and decodes
// standard output into v.
func sluiceJSON(t *testing.T, v any, args ...string) (stderr string) {
	t.Helper()
	stdout, stderr := runMain(t, append(args, "--json")...)
	decodeOne(t, stdout, v)
	return stderr
}

// checkSummary checks a summary against the manifest at manifestPath: the
// counts, inputs, outputs and stages it reports are the manifest's.
func checkSummary(t *testing.T, what string, got summaryJSON, manifestPath string) *dataset.Manifest {
	t.Helper()
	m, err := dataset.ReadManifest(manifestPath)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	c := m.Counts
	want := countsJSON{c.RowsIn, c.RowsOut, c.Removed, c.Quarantined, c.UTF8Repaired, c.MissingText, c.Inserted}
	if got.Counts != want {
		t.Errorf("%s: counts %+v, the manifest has %+v", what, got.Counts, want)
	}
	if got.Manifest != manifestPath {
		t.Errorf("%s: manifest %q, want %q", what, got.Manifest, manifestPath)
	}
	if got.InputFiles != len(m.Inputs) {
		t.Errorf("%s: input_files %d, the manifest lists %d", what, got.InputFiles, len(m.Inputs))
	}
	var bytesIn, bytesOut int64
	for _, in := range m.Inputs {
		bytesIn += in.Bytes
	}
	for _, out := range m.Outputs {
		bytesOut += out.Bytes
	}
	if got.BytesIn != bytesIn || got.BytesOut != bytesOut {
		t.Errorf("%s: bytes in %d out %d, the manifest has %d and %d", what, got.BytesIn, got.BytesOut, bytesIn, bytesOut)
	}
	if len(got.Outputs) != len(m.Outputs) {
		t.Fatalf("%s: %d outputs, the manifest lists %d", what, len(got.Outputs), len(m.Outputs))
	}
	for i, o := range m.Outputs {
		if g := got.Outputs[i]; g.Path != o.Path || g.Rows != o.Rows || g.Hash != o.Hash {
			t.Errorf("%s: output %d is %+v, the manifest has %+v", what, i, g, o)
		}
	}
	if len(got.Stages) != len(m.Stages) {
		t.Fatalf("%s: %d stages, the manifest lists %d", what, len(got.Stages), len(m.Stages))
	}
	for i, st := range m.Stages {
		g := got.Stages[i]
		removed := st.Removed
		if removed == nil {
			removed = map[string]int64{}
		}
		if g.Name != st.Name || g.RowsIn != st.RowsIn || g.RowsOut != st.RowsOut || !reflect.DeepEqual(g.Removed, removed) {
			t.Errorf("%s: stage %d is %+v, the manifest has %+v", what, i, g, st)
		}
	}
	if q := m.Side["quarantine"]; c.Quarantined > 0 && got.Quarantine != q {
		t.Errorf("%s: quarantine %q, want %q", what, got.Quarantine, q)
	}
	if got.WallSeconds != m.WallSecs {
		t.Errorf("%s: wall_seconds %v, the manifest has %v", what, got.WallSeconds, m.WallSecs)
	}
	return m
}

// jsonCorpus writes a corpus with exact and near duplicates, repeated
// lines, short texts and a line that is not JSON.
func jsonCorpus(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < 60; i++ {
		text := fmt.Sprintf("Document %d tells of the river, the stone bridge and the market by the harbor where the boats come in at dawn. "+
			"Every line of it is its own and the words run on for a while so that the quality rules have enough to read. "+
			"The lantern by the window burns late into the night while the copper kettle sings on the stove.", i%40)
		switch {
		case i%10 == 3:
			text = "too short"
		case i%10 == 7:
			text += "\nSubscribe to our newsletter for more stories."
		}
		row, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("d%02d", i), "text": text})
		b.Write(append(row, '\n'))
		if i == 30 {
			b.WriteString("{not json\n")
		}
	}
	p := filepath.Join(dir, "corpus.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConvertJSON(t *testing.T) {
	dir := t.TempDir()
	in := jsonCorpus(t, dir)
	out := filepath.Join(dir, "out")
	var got summaryJSON
	sluiceJSON(t, &got, "convert", in, "-o", out)
	m := checkSummary(t, "convert", got, filepath.Join(out, "manifest.json"))
	if m.Counts.Quarantined != 1 || got.Quarantine == "" || got.Output != out {
		t.Errorf("convert: quarantined %d, quarantine %q, output %q", m.Counts.Quarantined, got.Quarantine, got.Output)
	}

	// With the rows on standard output, the object goes to standard error.
	var o, e bytes.Buffer
	if code := Main([]string{"sluice", "convert", in, "-o", "-", "--json"}, nil, &o, &e); code != 0 {
		t.Fatalf("convert -o - --json: exit %d: %s", code, e.String())
	}
	var piped summaryJSON
	decodeOne(t, e.String()[strings.Index(e.String(), "{\n"):], &piped)
	if rows := strings.Count(o.String(), "\n"); piped.Output != "-" || piped.Counts.RowsOut != int64(rows) || rows != 60 {
		t.Errorf("convert -o -: output %q, rows_out %d, %d rows on stdout", piped.Output, piped.Counts.RowsOut, rows)
	}
}

func TestCleanRunClassifyJSON(t *testing.T) {
	dir := t.TempDir()
	in := cleanCorpus(t, dir)

	out := filepath.Join(dir, "clean")
	var got summaryJSON
	sluiceJSON(t, &got, "clean", in, "-o", out, "--filters", "gopher_quality,c4", "--pii", "email")
	m := checkSummary(t, "clean", got, filepath.Join(out, "manifest.json"))
	if m.Counts.Removed == 0 || len(m.Stages) != 3 {
		t.Fatalf("clean removed %d rows in %d stages; the corpus should show removals", m.Counts.Removed, len(m.Stages))
	}

	pipe := filepath.Join(dir, "p.yaml")
	os.WriteFile(pipe, []byte(fmt.Sprintf("input: [%q]\nstages:\n  - gopher_quality: {}\n  - dedup_exact: {}\n", in)), 0o644)
	out = filepath.Join(dir, "run")
	got = summaryJSON{}
	sluiceJSON(t, &got, "run", pipe, "-o", out)
	checkSummary(t, "run", got, filepath.Join(out, "manifest.json"))

	out = filepath.Join(dir, "classify.parquet")
	got = summaryJSON{}
	sluiceJSON(t, &got, "classify", in, "-o", out, "--lang", "en")
	if m := checkSummary(t, "classify", got, filepath.Join(dir, "classify.manifest.json")); m.Stages[0].Name != "lang" {
		t.Errorf("classify stages %v", m.Stages)
	}
}

func TestDedupJSON(t *testing.T) {
	dir := t.TempDir()
	in := jsonCorpus(t, dir)

	var exact struct {
		summaryJSON
		DistinctTexts int `json:"distinct_texts"`
	}
	out := filepath.Join(dir, "exact")
	sluiceJSON(t, &exact, "dedup", "exact", in, "-o", out)
	m := checkSummary(t, "dedup exact", exact.summaryJSON, filepath.Join(out, "manifest.json"))
	if m.Counts.Removed == 0 || exact.DistinctTexts != int(m.Counts.RowsOut) {
		t.Errorf("dedup exact: %d distinct texts, %d rows kept, %d removed", exact.DistinctTexts, m.Counts.RowsOut, m.Counts.Removed)
	}

	var lines struct {
		summaryJSON
		DistinctLines int    `json:"distinct_lines"`
		RemovedWhole  int64  `json:"removed_whole"`
		Hint          string `json:"hint"`
	}
	out = filepath.Join(dir, "lines")
	sluiceJSON(t, &lines, "dedup", "lines", in, "-o", out)
	m = checkSummary(t, "dedup lines", lines.summaryJSON, filepath.Join(out, "manifest.json"))
	if lines.DistinctLines == 0 {
		t.Errorf("dedup lines: no distinct lines counted")
	}
	if lines.RemovedWhole != m.Counts.Removed || lines.Hint == "" {
		t.Errorf("dedup lines: %d rows removed whole (the manifest: %d), hint %q", lines.RemovedWhole, m.Counts.Removed, lines.Hint)
	}

	var mh struct {
		summaryJSON
		MinHash struct {
			Params               map[string]any `json:"params"`
			Rows                 int            `json:"rows_per_band"`
			Threshold50          float64        `json:"threshold_50"`
			CandidateProbability float64        `json:"candidate_probability"`
			Report               struct {
				Documents      int            `json:"documents_signed"`
				CandidatePairs int            `json:"candidate_pairs"`
				LinkedPairs    int            `json:"linked_pairs"`
				Clusters       int            `json:"clusters"`
				InClusters     int            `json:"documents_in_clusters"`
				Sizes          map[string]int `json:"cluster_sizes"`
				Largest        []struct {
					Cluster int64  `json:"cluster"`
					Size    int    `json:"size"`
					KeptID  string `json:"kept_id"`
				} `json:"largest_clusters"`
			} `json:"report"`
			ClusterTable string `json:"cluster_table"`
		} `json:"minhash"`
	}
	out = filepath.Join(dir, "minhash")
	clusters := filepath.Join(dir, "clusters.parquet")
	sluiceJSON(t, &mh, "dedup", "minhash", in, "-o", out, "--clusters", clusters)
	m = checkSummary(t, "dedup minhash", mh.summaryJSON, filepath.Join(out, "manifest.json"))
	r := mh.MinHash.Report
	if r.Documents != int(m.Counts.RowsIn-m.Counts.Quarantined) || r.InClusters-r.Clusters != int(m.Counts.Removed) || m.Counts.Removed == 0 ||
		mh.MinHash.Rows != 8 || mh.MinHash.Params["num_perm"] != 128.0 || mh.MinHash.ClusterTable != clusters {
		t.Errorf("dedup minhash: report %+v, minhash %+v, counts %+v", r, mh.MinHash, m.Counts)
	}
}

func TestExtractJSON(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "crawl.warc.gz")
	os.WriteFile(in, crawl.WARC(), 0o644)
	out := filepath.Join(dir, "web")
	var got summaryJSON
	sluiceJSON(t, &got, "extract", in, "-o", out, "--mode", "main")
	m := checkSummary(t, "extract", got, filepath.Join(out, "manifest.json"))
	if m.Counts.Quarantined != 1 || m.Stages[0].Removed["not_html"] != 1 {
		t.Errorf("extract: counts %+v, stages %+v", m.Counts, m.Stages)
	}
}

func TestDecontaminateJSON(t *testing.T) {
	dir := t.TempDir()
	corpus, eval := contamCorpus(t, dir)
	out := filepath.Join(dir, "out")
	var got struct {
		summaryJSON
		EvalIndex struct {
			Examples       int     `json:"examples"`
			Sets           int     `json:"sets"`
			NGram          int     `json:"ngram"`
			DistinctNGrams int     `json:"distinct_ngrams"`
			IgnoredNGrams  int     `json:"ignored_ngrams"`
			Seconds        float64 `json:"seconds"`
		} `json:"eval_index"`
		ReportFile    string          `json:"report_file"`
		Contamination json.RawMessage `json:"contamination"`
	}
	sluiceJSON(t, &got, "decontaminate", corpus, "--eval", eval, "--eval-fields", "question,choices", "-o", out)
	m := checkSummary(t, "decontaminate", got.summaryJSON, filepath.Join(out, "manifest.json"))
	file, err := os.ReadFile(got.ReportFile)
	if err != nil {
		t.Fatal(err)
	}
	var fromFile, fromStdout map[string]any
	json.Unmarshal(file, &fromFile)
	json.Unmarshal(got.Contamination, &fromStdout)
	if !reflect.DeepEqual(fromFile, fromStdout) || fromStdout["rows_contaminated"] != float64(m.Counts.Removed) || m.Counts.Removed != 3 ||
		got.EvalIndex.Examples != 4 || got.EvalIndex.NGram != 13 {
		t.Errorf("decontaminate: report %v, file %v, removed %d, index %+v", fromStdout, fromFile, m.Counts.Removed, got.EvalIndex)
	}
}

func TestMemorizeJSON(t *testing.T) {
	dir := t.TempDir()
	in := memorizeCorpus(t, dir, 30, false)

	var probes struct {
		Output           string         `json:"output"`
		Manifest         string         `json:"manifest"`
		Probes           int            `json:"probes"`
		Params           map[string]any `json:"params"`
		DocumentsOffered int64          `json:"documents_offered"`
		TooShort         int64          `json:"documents_too_short"`
		Strata           map[string]int `json:"strata"`
		DupCounts        bool           `json:"dup_counts"`
		Counts           countsJSON     `json:"counts"`
	}
	out := filepath.Join(dir, "probes.jsonl")
	sluiceJSON(t, &probes, "memorize", "probes", in, "-o", out, "-n", "9", "--stratify-by", "source")
	var meta struct {
		Report struct {
			Probes  int        `json:"probes"`
			Offered int64      `json:"documents_offered"`
			Counts  countsJSON `json:"counts"`
		} `json:"report"`
	}
	b, err := os.ReadFile(probes.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(b, &meta)
	if probes.Probes != 9 || meta.Report.Probes != 9 || probes.Counts != meta.Report.Counts || probes.DocumentsOffered != meta.Report.Offered ||
		probes.Counts.RowsIn != 30 || probes.Strata["web"] != 3 || len(readProbes(t, out)) != 9 {
		t.Errorf("memorize probes: %+v, manifest %+v", probes, meta)
	}

	type canariesJSON struct {
		summaryJSON
		Canaries     int    `json:"canaries"`
		Seed         uint64 `json:"seed"`
		Digits       int    `json:"digits"`
		CanaryFile   string `json:"canary_file"`
		Copies       int    `json:"copies"`
		As           string `json:"as"`
		RowsWithText int64  `json:"rows_with_text"`
	}
	var alone canariesJSON
	sluiceJSON(t, &alone, "memorize", "canaries", "-o", filepath.Join(dir, "canaries.jsonl"), "-n", "3")
	if alone.Canaries != 3 || alone.CanaryFile != filepath.Join(dir, "canaries.jsonl") || alone.Manifest != "" {
		t.Errorf("memorize canaries: %+v", alone)
	}
	var into canariesJSON
	out = filepath.Join(dir, "planted")
	sluiceJSON(t, &into, "memorize", "canaries", "-o", out, "--into", in, "-n", "3", "--repeats", "1,2", "--as", "rows")
	m := checkSummary(t, "memorize canaries", into.summaryJSON, filepath.Join(out, "manifest.json"))
	if into.Copies != 4 || m.Counts.Inserted != 4 || into.RowsWithText != 30 || into.CanaryFile != filepath.Join(out, "canaries.jsonl") {
		t.Errorf("memorize canaries --into: %+v, counts %+v", into, m.Counts)
	}
}

func TestTasksConvertJSON(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, tasks.SampleName)
	os.WriteFile(in, tasks.Sample(), 0o644)
	out := filepath.Join(dir, "tasks.parquet")
	var got summaryJSON
	sluiceJSON(t, &got, "tasks", "convert", in, "--to", "parquet", "--skip-invalid", "-o", out)
	if m := checkSummary(t, "tasks convert", got, filepath.Join(dir, "tasks.manifest.json")); m.Counts.Quarantined == 0 {
		t.Errorf("tasks convert quarantined nothing from a sample with errors")
	}
}

func TestLaunchStatusTaskJSON(t *testing.T) {
	bin := sluiceBinary(t)
	dir := t.TempDir()
	in := dupCorpus(t, dir, 4, 50)
	pipe := dedupPipeline(t, dir, in)
	out := filepath.Join(dir, "out")
	var launched struct {
		Plan         string       `json:"plan"`
		Executor     string       `json:"executor"`
		Shards       int          `json:"shards"`
		Phases       []phaseJSON  `json:"phases"`
		Result       *summaryJSON `json:"result"`
		SlurmJobs    []string     `json:"slurm_jobs"`
		K8sManifests []string     `json:"k8s_manifests"`
	}
	stderr := sluiceJSON(t, &launched, "launch", pipe, "-o", out, "--tasks", "2", "--sluice-binary", bin, "--no-progress")
	if launched.Result == nil {
		t.Fatalf("launch --json: no result: %+v", launched)
	}
	checkSummary(t, "launch", *launched.Result, filepath.Join(out, "manifest.json"))
	if launched.Executor != "local" || launched.Shards != 2 || len(launched.Phases) < 3 {
		t.Errorf("launch: %+v", launched)
	}
	for _, ph := range launched.Phases {
		if ph.State != "complete" || ph.Done != ph.Tasks || ph.Waiting != 0 {
			t.Errorf("launch: phase %+v is not complete", ph)
		}
		// The phases are told on standard error as they finish.
		if !strings.Contains(stderr, ph.Name) {
			t.Errorf("launch --json: standard error does not tell phase %s:\n%s", ph.Name, stderr)
		}
	}

	var status statusJSON
	sluiceJSON(t, &status, "status", out)
	if !status.Complete || status.Manifest != filepath.Join(out, "manifest.json") || !reflect.DeepEqual(status.Phases, launched.Phases) {
		t.Errorf("status: %+v\nlaunch phases %+v", status, launched.Phases)
	}

	var task struct {
		Phase   string  `json:"phase"`
		Index   int     `json:"index"`
		Ran     bool    `json:"ran"`
		Seconds float64 `json:"seconds"`
	}
	wd, _ := os.Getwd()
	t.Cleanup(func() { os.Chdir(wd) }) // task runs in the plan's directory
	sluiceJSON(t, &task, "task", launched.Plan, "--phase", launched.Phases[0].Name, "--index", "0")
	if task.Ran || task.Phase != launched.Phases[0].Name {
		t.Errorf("task of a finished launch: %+v", task)
	}
}

func TestDemoJSON(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	var got struct {
		summaryJSON
		Tokens         map[string]any `json:"tokens"`
		Decontaminated struct {
			summaryJSON
			Contamination map[string]any `json:"contamination"`
			Probes        string         `json:"probes"`
		} `json:"decontaminated"`
		Web   summaryJSON `json:"web"`
		Tasks string      `json:"tasks"`
	}
	code, stdout, stderr := runDemoMain(t, "-o", dir, "--workers", "2", "--json")
	if code != 0 {
		t.Fatalf("demo --json: exit %d\n%s", code, stderr)
	}
	decodeOne(t, stdout, &got)
	m := checkSummary(t, "demo", got.summaryJSON, filepath.Join(dir, "manifest.json"))
	checkSummary(t, "demo decontaminated", got.Decontaminated.summaryJSON, filepath.Join(dir, "decontaminated", "manifest.json"))
	checkSummary(t, "demo web", got.Web, filepath.Join(dir, "web", "manifest.json"))
	total, _ := got.Tokens["total"].(map[string]any)
	if total == nil || total["documents"] != float64(m.Counts.RowsOut-m.Counts.MissingText) || got.Decontaminated.Contamination["rows_contaminated"] != float64(1) {
		t.Errorf("demo: tokens %v, contamination %v", got.Tokens, got.Decontaminated.Contamination)
	}
	if _, err := os.Stat(got.Decontaminated.Probes); err != nil {
		t.Errorf("demo probes: %v", err)
	}
}

// TestQuietAndVerbose checks what --quiet and --verbose print, and that
// they do not go together.
func TestQuietAndVerbose(t *testing.T) {
	dir := t.TempDir()
	in := jsonCorpus(t, dir)
	run := func(args ...string) (int, string, string) {
		var o, e bytes.Buffer
		code := Main(append([]string{"sluice"}, args...), nil, &o, &e)
		return code, o.String(), e.String()
	}

	// --quiet: nothing on either stream, the output written all the same.
	for _, args := range [][]string{
		{"convert", in, "-o", filepath.Join(dir, "q1")},
		{"dedup", "minhash", in, "-o", filepath.Join(dir, "q2")},
		{"clean", in, "-o", filepath.Join(dir, "q3"), "--filters", "gopher_quality"},
		{"status", filepath.Join(dir, "q1")},
	} {
		code, stdout, stderr := run(append(args, "-q")...)
		if args[0] == "status" {
			if code != 2 || stdout != "" || !strings.Contains(stderr, "error") {
				t.Errorf("status -q of a directory without a plan: exit %d, stdout %q, stderr %q; the error must still show", code, stdout, stderr)
			}
			continue
		}
		if code != 0 || stdout != "" || stderr != "" {
			t.Errorf("%v -q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
		if _, err := os.Stat(filepath.Join(args[len(args)-1], "manifest.json")); err != nil && args[0] == "convert" {
			t.Errorf("%v -q wrote no output: %v", args, err)
		}
	}
	// --quiet --json: the object alone.
	code, stdout, stderr := run("convert", in, "-o", filepath.Join(dir, "q4"), "--quiet", "--json")
	var sum summaryJSON
	decodeOne(t, stdout, &sum)
	if code != 0 || stderr != "" || sum.Counts.RowsIn != 61 {
		t.Errorf("convert --quiet --json: exit %d, stderr %q, counts %+v", code, stderr, sum.Counts)
	}
	// Errors still show.
	code, _, stderr = run("convert", filepath.Join(dir, "missing.jsonl"), "-o", filepath.Join(dir, "q5"), "-q")
	if code != 2 || !strings.Contains(stderr, "missing.jsonl") {
		t.Errorf("convert -q of a missing input: exit %d, stderr %q", code, stderr)
	}

	// --verbose: the settings, each pass, each input and each stage on
	// standard error; the summary on standard output as without it.
	out := filepath.Join(dir, "v")
	code, stdout, stderr = run("dedup", "lines", in, "-o", out, "--verbose")
	if code != 0 {
		t.Fatalf("dedup lines --verbose: exit %d: %s", code, stderr)
	}
	m, err := dataset.ReadManifest(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"sluice: 1 input file(s)",
		`sluice: settings {"overwrite":false,`,
		"sluice: stages dedup_lines\n",
		fmt.Sprintf("sluice: pass dedup_lines_scan: %d rows read in ", m.Counts.RowsIn),
		fmt.Sprintf("sluice: input %s: %d rows, 1 quarantined, ", m.Inputs[0].Path, m.Inputs[0].Rows),
		fmt.Sprintf("sluice: stage dedup_lines: %d in, %d out, ", m.Stages[0].RowsIn, m.Stages[0].RowsOut),
		"sluice: wall time ",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("dedup lines --verbose: standard error lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, "61 rows in from 1 file(s)") || strings.Contains(stdout, "sluice: ") {
		t.Errorf("dedup lines --verbose: standard output:\n%s", stdout)
	}

	code, _, stderr = run("convert", in, "-o", filepath.Join(dir, "qv"), "-q", "--verbose")
	if code != 2 || !strings.Contains(stderr, "--quiet and --verbose") {
		t.Errorf("convert -q --verbose: exit %d, %s", code, stderr)
	}
}

// TestProgressIsOffWithoutATerminal checks that no bar is drawn on a
// pipe, a file or with --quiet.
func TestProgressIsOffWithoutATerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, w := range []io.Writer{&bytes.Buffer{}, f} {
		if p := newProgress(w, true, "reading"); p.on {
			t.Errorf("a progress bar on %T, which is not a terminal", w)
		}
	}
	o := &ConvertOptions{Report: Report{Quiet: true}}
	if o.view(Streams{Err: f}).progress {
		t.Errorf("--quiet asks for a progress bar")
	}
}

// rateRE finds the rates a bar shows, e.g. "12 MB/s".
var rateRE = regexp.MustCompile(`([0-9.]+) ([kMGTPE]?B)/s`)

// TestProgressRate checks the rate a bar shows: bytes read over the time
// since the run started, never the first batch over the microseconds
// since the bar was drawn.
func TestProgressRate(t *testing.T) {
	var b bytes.Buffer
	start := time.Now()
	p := startProgress(&b, "reading")
	time.Sleep(100 * time.Millisecond)
	const done = 100 << 20
	p.set(done, 2*done) // the first batch, after 100ms
	time.Sleep(250 * time.Millisecond)
	p.set(done, 2*done) // drawn: the bar shows at most every 200ms
	elapsed := time.Since(start)
	p.finish()
	rates := rateRE.FindAllStringSubmatch(b.String(), -1)
	if len(rates) == 0 {
		t.Fatalf("the bar shows no rate:\n%q", b.String())
	}
	units := map[string]float64{"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15, "EB": 1e18}
	most := done / (100 * time.Millisecond).Seconds() // the fastest the truth can be
	least := done / elapsed.Seconds() / 2
	for _, r := range rates {
		v, _ := strconv.ParseFloat(r[1], 64)
		if rate := v * units[r[2]]; rate > most || rate < least {
			t.Errorf("the bar shows %s/s; %d bytes were read in %v, at most %.0f MB/s", r[1]+" "+r[2], done, elapsed, most/1e6)
		}
	}
}
