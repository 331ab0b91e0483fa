package scaleout

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sluice-data/sluice/internal/sidefile"
	"github.com/sluice-data/sluice/io/blob"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/pipeline"
	"github.com/sluice-data/sluice/pipeline/pipefile"
	"github.com/sluice-data/sluice/schema"
)

// PlanFile is the plan's name inside the output directory.
const PlanFile = "_plan.json"

// Plan is a pipeline compiled to phases of tasks. It is written once by
// launch and read by every task.
type Plan struct {
	Version string `json:"version"`
	// Dir is the directory launch ran in: tasks run there, so that paths
	// in the pipeline file mean what they meant to launch.
	Dir string `json:"dir"`
	// Out is the output directory, as given (relative to Dir or absolute).
	Out      string   `json:"out"`
	Binary   string   `json:"binary"`   // the sluice binary the tasks run
	Command  []string `json:"command"`  // the launch command line, for the manifest
	Pipeline string   `json:"pipeline"` // the pipeline file's text
	// PipelineName names the pipeline file in error messages.
	PipelineName string       `json:"pipeline_name"`
	Settings     Settings     `json:"settings"`
	Inputs       []input.File `json:"inputs"`
	// SplitHashes are the xxhash64 of the files cut into slices at line
	// boundaries, by label: each slice's reader hashes only its bytes.
	SplitHashes map[string]string `json:"split_hashes,omitempty"`
	// Shards are the shards' input ranges: shard i reads
	// Inputs[Shards[i][0]:Shards[i][1]].
	Shards [][2]int `json:"shards"`
	Phases []Phase  `json:"phases"`
	// Started is when launch made the plan (RFC 3339): the merged
	// manifest's started and wall_seconds count from it, so they hold
	// every phase.
	Started string `json:"started,omitempty"`
	// KeepWork keeps the intermediates under OUT/_work once the merge
	// wrote and checked manifest.json; by default the merge removes them.
	KeepWork bool `json:"keep_work,omitempty"`
	// NoSpill has every phase read its shard from the input: no phase
	// spills what it decoded for the later ones (see spill.go), which
	// saves the spill's disk (about the inputs' uncompressed size) at the
	// cost of reading and parsing the input once a phase.
	NoSpill bool `json:"no_spill,omitempty"`

	// local is the task's own folder when the output is in an object
	// store: its copy of the intermediates, and its files before they
	// are uploaded.
	local string
}

// Phase is one array of tasks; a phase starts when the one before it is
// complete.
type Phase struct {
	Name  string `json:"name"`
	Kind  Kind   `json:"kind"`
	Stage int    `json:"stage"` // the pipeline stage a global stage's phase belongs to; -1 otherwise
	Tasks int    `json:"tasks"`
}

// Kind is what a phase's tasks do: write, merge, or, for a phase a stage
// declares (pipeline.Sharded), the phase's name among the stage's phases.
type Kind string

// The phase kinds.
const (
	Write Kind = "write"
	Merge Kind = "merge"
)

// Settings are how tasks read and write: the effective pipeline.Config
// less the inputs, target and stages.
type Settings struct {
	Workers    int    `json:"workers"`
	BatchRows  int    `json:"batch_rows"`
	BatchBytes int    `json:"batch_bytes"`
	InferRows  int    `json:"infer_rows"`
	SchemaFile string `json:"schema_file,omitempty"`
	// Schema is the JSONL inputs' schema, inferred at launch; SchemaExtra
	// tells whether rows keep members outside it in an _extra column (the
	// inference saw only part of the input).
	Schema       string   `json:"schema,omitempty"`
	SchemaExtra  bool     `json:"schema_extra,omitempty"`
	Strict       bool     `json:"strict"`
	RepairUTF8   bool     `json:"repair_utf8"`
	MaxDepth     int      `json:"max_depth"`
	MaxLineBytes int      `json:"max_line_bytes"`
	TextField    string   `json:"text_field"`
	WARCTypes    []string `json:"warc_types,omitempty"`
	Lineage      bool     `json:"lineage,omitempty"`
	// Output is how every task writes, as the run was configured.
	Output dataset.Options `json:"output"`
}

// SettingsOf takes the settings of cfg.
func SettingsOf(cfg pipeline.Config) Settings {
	return Settings{Workers: cfg.Workers, BatchRows: cfg.BatchRows, BatchBytes: cfg.BatchBytes, InferRows: cfg.InferRows,
		SchemaFile: cfg.SchemaFile, Strict: cfg.Strict, RepairUTF8: cfg.RepairUTF8, MaxDepth: cfg.MaxDepth,
		MaxLineBytes: cfg.MaxLineBytes, TextField: cfg.TextField, WARCTypes: cfg.WARCTypes, Output: cfg.Output, Lineage: cfg.Lineage}
}

// config returns the pipeline configuration of the settings over inputs.
func (s Settings) config(inputs []input.File) (pipeline.Config, error) {
	var err error
	cfg := pipeline.Config{Inputs: inputs, Overwrite: true, Workers: s.Workers, BatchRows: s.BatchRows,
		BatchBytes: s.BatchBytes, InferRows: s.InferRows, SchemaFile: s.SchemaFile, Strict: s.Strict,
		RepairUTF8: s.RepairUTF8, MaxDepth: s.MaxDepth, MaxLineBytes: s.MaxLineBytes, TextField: s.TextField,
		WARCTypes: s.WARCTypes, Output: s.Output, Lineage: s.Lineage}
	if s.Schema != "" {
		if cfg.Schema, err = schema.Parse([]byte(s.Schema)); err != nil {
			return cfg, err
		}
		// Inferred from every row (no _extra): no row needs _extra.
		cfg.Strict = cfg.Strict || !s.SchemaExtra
	} else if s.SchemaFile != "" {
		data, err := sidefile.ReadFile(s.SchemaFile, sidefile.Schema)
		if err != nil {
			return cfg, err
		}
		if cfg.Schema, err = schema.Parse(data); err != nil {
			return cfg, fmt.Errorf("%s: %w", s.SchemaFile, err)
		}
	}
	return cfg, nil
}

// NewPlan compiles a pipeline file (its name and text) over the inputs
// into phases of at most tasks tasks each. cfg carries the read and write
// settings; its Inputs are the sorted input files.
func NewPlan(ctx context.Context, pipelineName string, pipelineText []byte, cfg pipeline.Config, out string, tasks int) (*Plan, error) {
	if tasks < 1 {
		return nil, fmt.Errorf("tasks must be at least 1")
	}
	file, err := pipefile.ParseFile(pipelineName, pipelineText)
	if err != nil {
		return nil, err
	}
	for _, f := range cfg.Inputs {
		if f.IsStream() {
			return nil, fmt.Errorf("%s: launch reads its inputs from several tasks; give files, not a stream", f.Label())
		}
	}
	// The stages' parameters are checked first, before the inputs are
	// read to be cut and to infer their schema, not in a task later.
	built, err := buildPlanStages(file)
	if err != nil {
		return nil, err
	}
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	inputs, hashes, err := sliceLargeFiles(cfg.Inputs, tasks)
	if err != nil {
		return nil, err
	}
	p := &Plan{Dir: dir, Out: cleanOut(out), Pipeline: string(pipelineText), PipelineName: pipelineName,
		Settings: SettingsOf(cfg), Inputs: inputs, SplitHashes: hashes, Shards: Split(inputs, tasks),
		Started: cfg.Started.UTC().Format(time.RFC3339Nano)}
	if cfg.Started.IsZero() {
		p.Started = time.Now().UTC().Format(time.RFC3339Nano)
	}
	if cfg.Schema == nil && len(cfg.Inputs) > 0 && cfg.Inputs[0].Format == input.JSONL {
		if err := p.Settings.inferSchema(ctx, cfg); err != nil {
			return nil, err
		}
	}
	shards := len(p.Shards)
	// The reduce phases get no more tasks than there are shards: each map
	// task writes a file for each reduce task, so more tasks than the
	// input has shards would add files, not work (ShardNote says so).
	reduceTasks := min(tasks, shards)
	for i, st := range built {
		prefix := fmt.Sprintf("s%d-", i)
		if st, ok := st.(pipeline.Sharded); ok {
			for _, sp := range st.Sharding().Phases {
				n := shards
				if !sp.PerShard() {
					n = sp.Tasks(shards, reduceTasks)
				}
				p.Phases = append(p.Phases, Phase{Name: prefix + sp.Name, Kind: Kind(sp.Name), Stage: i, Tasks: n})
			}
		}
	}
	p.Phases = append(p.Phases, Phase{Name: string(Write), Kind: Write, Stage: -1, Tasks: shards},
		Phase{Name: string(Merge), Kind: Merge, Stage: -1, Tasks: 1})
	return p, nil
}

// buildPlanStages builds the stages of a pipeline file, which checks their
// parameters, and refuses a global stage that cannot run as tasks.
func buildPlanStages(file *pipefile.File) ([]pipeline.Stage, error) {
	built := make([]pipeline.Stage, len(file.Stages))
	for i, spec := range file.Stages {
		st, err := pipefile.Build(spec, pipefile.Common{TextField: file.TextField, Annotate: file.Annotate, Profile: file.Profile})
		if err != nil {
			return nil, err
		}
		_, sharded := st.(pipeline.Sharded)
		if _, global := st.(pipeline.Global); global && !sharded {
			return nil, fmt.Errorf("%s: stage %s cannot run as sharded tasks yet; run it with `sluice run`", spec.Where, spec.Name)
		}
		built[i] = st
	}
	return built, nil
}

// Split divides the sorted inputs into at most n shards of consecutive
// files, balanced by bytes: shard i takes the files that start in the
// i-th n-th of the total size. The split depends only on the files and
// their sizes, so every task of every rerun sees the same shards.
func Split(files []input.File, n int) [][2]int {
	var total int64
	for _, f := range files {
		total += max(f.Size, 1)
	}
	n = max(1, min(n, len(files)))
	shards := make([][2]int, n)
	var start int64
	f := 0
	for i := range shards {
		shards[i][0] = f
		end := total * int64(i+1) / int64(n)
		for f < len(files) && (start < end || f == shards[i][0]) && len(files)-f > n-1-i {
			start += max(files[f].Size, 1)
			f++
		}
		shards[i][1] = f
	}
	shards[n-1][1] = len(files)
	return shards
}

// WritePlan writes the plan to OUT/_plan.json (a path or a URL).
func (p *Plan) WritePlan(path string) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return storeOf(path).write(path, append(b, '\n'))
}

// ReadPlan reads a plan written by WritePlan.
func ReadPlan(path string) (*Plan, error) {
	b, _, err := storeOf(path).read(path)
	if err != nil {
		return nil, err
	}
	p := &Plan{}
	if err := json.Unmarshal(b, p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(p.Shards) == 0 || len(p.Phases) == 0 {
		return nil, fmt.Errorf("%s: not a sluice plan (no shards or phases)", path)
	}
	return p, nil
}

// Phase returns the phase named name.
func (p *Plan) Phase(name string) (Phase, error) {
	for _, ph := range p.Phases {
		if ph.Name == name {
			return ph, nil
		}
	}
	names := make([]string, len(p.Phases))
	for i, ph := range p.Phases {
		names[i] = ph.Name
	}
	return Phase{}, fmt.Errorf("plan has no phase %q (phases: %v)", name, names)
}

// phaseOf returns the phase of kind k for the global stage at index stage.
func (p *Plan) phaseOf(k Kind, stage int) Phase {
	for _, ph := range p.Phases {
		if ph.Kind == k && ph.Stage == stage {
			return ph
		}
	}
	panic(fmt.Sprintf("scaleout: plan has no %s phase for stage %d", k, stage)) // the plan was built with it
}

// path returns a path under the output directory: a URL under an
// object-store output.
func (p *Plan) path(elem ...string) string {
	if blob.IsURL(p.Out) {
		return blob.Join(p.Out, elem...)
	}
	return filepath.Join(append([]string{p.Out}, elem...)...)
}

// cleanOut cleans an output path or URL.
func cleanOut(out string) string {
	if blob.IsURL(out) {
		return blob.Clean(out)
	}
	return filepath.Clean(out)
}

// workDir is the directory of task i of a phase's own files.
func (p *Plan) workDir(ph Phase, i int) string {
	return p.workPath(ph.Name, fmt.Sprintf("%05d", i))
}

// shardInputs returns the input files of shard s.
func (p *Plan) shardInputs(s int) []input.File {
	r := p.Shards[s]
	return p.Inputs[r[0]:r[1]]
}
