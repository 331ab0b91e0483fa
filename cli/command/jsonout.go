package command

import (
	"io"

	"github.com/sluice-data/sluice/contam"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/memorize"
	"github.com/sluice-data/sluice/pipeline"
	"github.com/sluice-data/sluice/scaleout"
	"github.com/sluice-data/sluice/stages"
	"github.com/urfave/cli/v2"
)

// Report holds the flags that choose what a command prints, the same on
// every command that has them: --json (one JSON object on standard
// output, nothing else there), --quiet (errors only, and the JSON) and
// --verbose (details on standard error).
type Report struct {
	JSON    bool
	Quiet   bool
	Verbose bool
}

// jsonFlag is the --json flag of every command.
func jsonFlag(dst *bool) cli.Flag {
	return &cli.BoolFlag{Name: "json", Destination: dst,
		Usage: "print the result as one JSON object on standard output instead of text (fields in the README); progress and notes go to standard error"}
}

// quietFlag is the --quiet flag of every command.
func quietFlag(dst *bool) cli.Flag {
	return &cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Destination: dst,
		Usage: "print nothing but errors (and the JSON object with --json): no summary, no progress bar"}
}

// reportFlags are --json, --quiet and --verbose.
func reportFlags(r *Report) []cli.Flag {
	return []cli.Flag{
		jsonFlag(&r.JSON),
		quietFlag(&r.Quiet),
		&cli.BoolFlag{Name: "verbose", Destination: &r.Verbose,
			Usage: "also print on standard error the settings in effect, each pass, each input file with its rows, and each stage's time"},
	}
}

// check refuses --quiet with --verbose.
func (r Report) check() error {
	if r.Quiet && r.Verbose {
		return usagef("--quiet and --verbose ask for opposite things; give one")
	}
	return nil
}

// text returns where the text summary goes: w, or nowhere with --json or
// --quiet.
func (r Report) text(w io.Writer) io.Writer {
	if r.JSON || r.Quiet {
		return io.Discard
	}
	return w
}

// notes returns where lines that tell how the work goes (a launch's
// phases, say) go: standard output in text mode, standard error with
// --json, nowhere with --quiet.
func (r Report) notes(s Streams) io.Writer {
	switch {
	case r.Quiet:
		return io.Discard
	case r.JSON:
		return s.Err
	}
	return s.Out
}

// detail returns where --verbose details go: standard error, or nowhere.
func (r Report) detail(s Streams) io.Writer {
	if r.Verbose && !r.Quiet {
		return s.Err
	}
	return io.Discard
}

// Summary is the --json object of the commands that write a dataset
// (convert, clean, run, classify, extract, dedup, decontaminate, memorize
// canaries --into, launch): what the text summary says, taken from the
// manifest the run wrote.
type Summary struct {
	// Output is the output path as given; "-" for standard output.
	Output string `json:"output"`
	// Manifest and Quarantine are the side files' paths; Quarantine only
	// when a line was quarantined.
	Manifest   string               `json:"manifest,omitempty"`
	Quarantine string               `json:"quarantine,omitempty"`
	Counts     dataset.Counts       `json:"counts"`
	InputFiles int                  `json:"input_files"`
	BytesIn    int64                `json:"bytes_in"`
	Outputs    []dataset.OutputFile `json:"outputs"`
	BytesOut   int64                `json:"bytes_out"`
	Stages     []StageSummary       `json:"stages"`
	WallSecs   float64              `json:"wall_seconds"`
	MBPerSec   float64              `json:"mb_per_second"`
	// Errors are the input errors of a run that read only part of some
	// input.
	Errors []string `json:"errors,omitempty"`
}

// StageSummary is what one stage did.
type StageSummary struct {
	Name     string           `json:"name"`
	RowsIn   int64            `json:"rows_in"`
	RowsOut  int64            `json:"rows_out"`
	Removed  map[string]int64 `json:"removed"`
	Inserted int64            `json:"inserted,omitempty"`
	Seconds  float64          `json:"seconds"`
}

// newSummary builds the summary of the run that wrote m to t.
func newSummary(t dataset.Target, m *dataset.Manifest) Summary {
	s := Summary{Output: t.Path, Counts: m.Counts, InputFiles: len(m.Inputs), Outputs: m.Outputs,
		Stages: []StageSummary{}, WallSecs: m.WallSecs, Errors: m.Errors}
	if t.Kind == dataset.Stdout {
		s.Output = "-"
	} else {
		s.Manifest = t.SidePath("manifest.json")
	}
	if q := m.Side["quarantine"]; q != "" && m.Counts.Quarantined > 0 {
		s.Quarantine = q
	}
	if s.Outputs == nil {
		s.Outputs = []dataset.OutputFile{}
	}
	for _, in := range m.Inputs {
		s.BytesIn += in.Bytes
	}
	for _, out := range m.Outputs {
		s.BytesOut += out.Bytes
	}
	if m.WallSecs > 0 {
		s.MBPerSec = float64(s.BytesIn) / 1e6 / m.WallSecs
	}
	for _, st := range m.Stages {
		removed := st.Removed
		if removed == nil {
			removed = map[string]int64{}
		}
		s.Stages = append(s.Stages, StageSummary{Name: st.Name, RowsIn: st.RowsIn, RowsOut: st.RowsOut,
			Removed: removed, Inserted: st.Inserted, Seconds: st.Seconds})
	}
	return s
}

// PhaseState is one phase of a launched plan: its tasks done and waiting,
// and those running, failed and interrupted; and what its done tasks'
// markers recorded: their summed wall time and overhead (task_seconds,
// overhead_seconds, setup_seconds), the longest task and the largest
// peak memory of a task.
type PhaseState struct {
	Name        string      `json:"name"`
	Kind        string      `json:"kind"`
	Tasks       int         `json:"tasks"`
	Done        int         `json:"done"`
	Waiting     int         `json:"waiting"`
	State       string      `json:"state"` // complete, failed, interrupted, running or waiting
	Running     []TaskState `json:"running"`
	Failed      []TaskState `json:"failed"`
	Interrupted []TaskState `json:"interrupted"`
	scaleout.PhaseTimes
}

// TaskState is a task of a phase that is not done.
type TaskState struct {
	Index    int    `json:"index"`
	Host     string `json:"host,omitempty"`
	PID      int    `json:"pid,omitempty"`
	Log      string `json:"log,omitempty"`
	Started  string `json:"started,omitempty"`
	Finished string `json:"finished,omitempty"`
	Error    string `json:"error,omitempty"`
	// Why tells how an interrupted task's lease went stale.
	Why string `json:"why,omitempty"`
}

// phaseStates turns the status of a plan's phases into their --json form.
func phaseStates(sts []scaleout.PhaseStatus) []PhaseState {
	tasks := func(ts []scaleout.TaskStatus) []TaskState {
		out := make([]TaskState, 0, len(ts))
		for _, t := range ts {
			out = append(out, TaskState{Index: t.Index, Host: t.Host, PID: t.PID, Log: t.Log, Started: t.Started,
				Finished: t.Finished, Error: t.Error, Why: t.Why})
		}
		return out
	}
	out := make([]PhaseState, 0, len(sts))
	for _, st := range sts {
		out = append(out, PhaseState{Name: st.Phase.Name, Kind: string(st.Phase.Kind), Tasks: st.Phase.Tasks, Done: st.Done,
			Waiting: st.Waiting(), State: st.State(), Running: tasks(st.Running), Failed: tasks(st.Failed),
			Interrupted: tasks(st.Interrupted), PhaseTimes: st.Times})
	}
	return out
}

// result prints a command's result on w: v as JSON with --json, the text
// that text writes otherwise, and nothing with --quiet.
func (r Report) result(w io.Writer, v any, text func(w io.Writer)) error {
	if r.JSON {
		return printJSON(w, v)
	}
	if !r.Quiet {
		text(w)
	}
	return nil
}

// CleanResult is the --json object of clean, run and classify: the
// summary, and the report of each decontaminate stage of the pipeline.
type CleanResult struct {
	Summary
	Contamination []contam.Report `json:"contamination,omitempty"`
}

// printCleaned prints the result of a clean, run or classify.
func printCleaned(r Report, w io.Writer, cfg pipeline.Config, m *dataset.Manifest) error {
	res := CleanResult{Summary: newSummary(cfg.Target, m)}
	for _, st := range cfg.Stages {
		if d, ok := st.(*stages.Decontaminate); ok {
			res.Contamination = append(res.Contamination, d.Contamination())
		}
	}
	return r.result(w, res, func(w io.Writer) {
		printSummary(w, cfg.Target, m)
		printStageCounts(w, m)
		for _, rep := range res.Contamination {
			printContamination(cfg.Target, rep, w, false)
		}
	})
}

// DedupExactResult is the --json object of dedup exact.
type DedupExactResult struct {
	Summary
	DistinctTexts int `json:"distinct_texts"`
}

// DedupLinesResult is the --json object of dedup lines.
type DedupLinesResult struct {
	Summary
	DistinctLines int `json:"distinct_lines"`
	// RemovedWhole are the rows whose every line is repeated in the
	// corpus, removed with _reason empty_after_line_dedup.
	RemovedWhole int64 `json:"removed_whole"`
	// Hint says what --keep none did to documents that are copies of one
	// another, when it removed rows whole.
	Hint string `json:"hint,omitempty"`
}

// DedupMinHashResult is the --json object of dedup minhash.
type DedupMinHashResult struct {
	Summary
	MinHash MinHashSummary `json:"minhash"`
}

// MinHashSummary is what dedup minhash found: its parameters, the
// banding's S-curve, and the clusters.
type MinHashSummary struct {
	Params stages.MinHashParams `json:"params"`
	// Rows are the signature values in a band.
	Rows int `json:"rows_per_band"`
	// Threshold50 is the similarity at which a pair becomes a candidate
	// with probability one half; CandidateProbability that probability at
	// the threshold.
	Threshold50          float64              `json:"threshold_50"`
	CandidateProbability float64              `json:"candidate_probability"`
	Report               stages.MinHashReport `json:"report"`
	// Clusters is the cluster table written with --clusters.
	Clusters string `json:"cluster_table,omitempty"`
}

// DecontaminateResult is the --json object of decontaminate.
type DecontaminateResult struct {
	Summary
	EvalIndex EvalIndexSummary `json:"eval_index"`
	// ReportFile is contamination.json, which holds Contamination too.
	ReportFile    string        `json:"report_file,omitempty"`
	Contamination contam.Report `json:"contamination"`
}

// EvalIndexSummary is the index of evaluation n-grams decontaminate built.
type EvalIndexSummary struct {
	Examples       int     `json:"examples"`
	Sets           int     `json:"sets"`
	NGram          int     `json:"ngram"`
	DistinctNGrams int     `json:"distinct_ngrams"`
	IgnoredNGrams  int     `json:"ignored_ngrams"`
	Seconds        float64 `json:"seconds"`
}

// ProbesResult is the --json object of memorize probes.
type ProbesResult struct {
	Output           string               `json:"output"`
	Manifest         string               `json:"manifest"`
	Probes           int                  `json:"probes"`
	Params           memorize.ProbeParams `json:"params"`
	DocumentsOffered int64                `json:"documents_offered"`
	TooShort         int64                `json:"documents_too_short"`
	// Strata counts the probes by stratum, with --stratify-by.
	Strata    map[string]int `json:"strata,omitempty"`
	DupCounts bool           `json:"dup_counts"`
	Counts    dataset.Counts `json:"counts"`
}

// CanariesResult is the --json object of memorize canaries: with --into,
// the summary of the dataset copy too.
type CanariesResult struct {
	*Summary
	Canaries   int    `json:"canaries"`
	Seed       uint64 `json:"seed"`
	Digits     int    `json:"digits"`
	CanaryFile string `json:"canary_file"`
	// With --into: the copies inserted, how, and the rows they went among.
	Copies       int    `json:"copies,omitempty"`
	As           string `json:"as,omitempty"`
	RowsWithText int64  `json:"rows_with_text,omitempty"`
}

// LaunchResult is the --json object of launch: the plan and its phases;
// run here (--executor local), the summary of the merged output; on
// Slurm, the jobs submitted; on Kubernetes, the manifests written.
type LaunchResult struct {
	Plan         string       `json:"plan"`
	Executor     string       `json:"executor"`
	Shards       int          `json:"shards"`
	Phases       []PhaseState `json:"phases"`
	Result       *Summary     `json:"result,omitempty"`
	SlurmJobs    []string     `json:"slurm_jobs,omitempty"`
	K8sManifests []string     `json:"k8s_manifests,omitempty"`
}

// StatusResult is the --json object of status.
type StatusResult struct {
	Output   string       `json:"output"`
	Phases   []PhaseState `json:"phases"`
	Complete bool         `json:"complete"`
	// Manifest is the merged manifest, once the launch is complete.
	Manifest string `json:"manifest,omitempty"`
}

// TaskResult is the --json object of task.
type TaskResult struct {
	Phase string `json:"phase"`
	Index int    `json:"index"`
	// Ran is false when the task was already done.
	Ran     bool    `json:"ran"`
	Seconds float64 `json:"seconds"`
}

// DemoResult is the --json object of demo: the summary of the main
// dataset, its token counts, and what the other parts of the demo wrote.
type DemoResult struct {
	Summary
	Tokens         TokenReport       `json:"tokens"`
	Decontaminated DemoContamination `json:"decontaminated"`
	Web            Summary           `json:"web"`
	// Tasks is the directory of the fine-tuning task files.
	Tasks string `json:"tasks"`
}

// DemoContamination is the demo's decontamination: its summary, its
// report and the memorization probes sampled from its kept rows.
type DemoContamination struct {
	Summary
	Contamination contam.Report `json:"contamination"`
	Probes        string        `json:"probes"`
}
