package pipeline

import (
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/pipeline/shard"
)

// Scan runs a pass over the whole input (or one shard of it): the stages
// before a global stage, then the given stage, writing nothing.
type Scan func(Stage) error

// Global is a stage that must see the whole corpus before it can decide
// about one row (line dedup, near dedup). In one process, Prepare runs its
// passes through scan; Filter is then the stage that takes its place in the
// pipeline. Because the stages before it run in the passes too, a row has
// the same position in every pass.
type Global interface {
	Stage
	Prepare(scan Scan) error
	Filter() Stage
}

// Sharded is a stage that runs as array tasks in phases of its own (see
// scaleout): it declares them, and builds each shard's filter from what
// they wrote. A stage that decides in one ordered pass in one process
// (exact dedup) can be Sharded without being Global.
type Sharded interface {
	Stage
	Sharding() Sharding
}

// Sharding is how a stage runs as array tasks: its phases, run in order
// after the phases of the stages before it, then the filter that takes its
// place in each shard's write.
type Sharding struct {
	Phases []ShardPhase
	// Filter builds shard s's filter from the phases' files; the stage
	// itself when nil.
	Filter func(w shard.Workspace, s int) (Stage, error)
	// Report, when set, is what the stage found over the whole input, for
	// the merged manifest (as Reporter gives it in one process).
	Report func(w shard.Workspace) (any, error)
}

// ShardPhase is one phase of a sharded stage: an array of tasks.
type ShardPhase struct {
	// Name names the phase among the stage's phases (e.g. "exact-map");
	// its folders are Workspace.Dir(Name, task).
	Name string
	// Tasks returns the number of tasks for a plan of shards shards and
	// tasks tasks; nil means one task per shard, whose Run gets a Scan
	// over that shard.
	Tasks func(shards, tasks int) int
	// Run runs task i. scan is set for a phase of one task per shard.
	Run func(w shard.Workspace, i int, scan Scan) error
}

// PerShard reports whether the phase has one task per shard.
func (p ShardPhase) PerShard() bool { return p.Tasks == nil }

// Resetter is implemented by stages that count rows for a report (tokens
// by group, contamination by source): Reset forgets what they counted, so
// that a report covers the writing pass alone, not also the passes of a
// global stage after them, which run them again.
type Resetter interface {
	Reset()
}

// Prepass is implemented by a stage whose pass over the input comes
// before another pass over the same input, outside a global stage (a count
// that plans what the next pass inserts): a run with one refuses a stream
// input before it reads anything, as a run with a global stage does.
type Prepass interface {
	Stage
	Prepass()
}

// CheckRereads refuses a stream input (standard input, a pipe, a FIFO),
// which can be read once, when one of stages needs more than one pass over
// the input: a global stage or a Prepass. The error wraps
// input.ErrReadOnce.
func CheckRereads(inputs []input.File, stages []Stage) error {
	for _, st := range stages {
		_, global := st.(Global)
		_, prepass := st.(Prepass)
		if global || prepass {
			if err := input.RefuseStreams(inputs, "stage "+st.Name()); err != nil {
				return err
			}
		}
	}
	return nil
}

// PrepareGlobals runs, in one process, the passes of each global stage
// among built, in order, and puts its filter in its place. run runs one
// pass: the stages given, nothing written (label names the pass for
// progress). The stages before a global stage run in its passes, already
// prepared, and are reset afterwards (Resetter). A stream among inputs,
// which a second pass would find empty, is refused before any pass
// (CheckRereads).
func PrepareGlobals(inputs []input.File, built []Stage, run func(stages []Stage, label string) error) error {
	if err := CheckRereads(inputs, built); err != nil {
		return err
	}
	for i, st := range built {
		g, ok := st.(Global)
		if !ok {
			continue
		}
		prefix := built[:i]
		err := g.Prepare(func(scan Stage) error {
			return run(append(append([]Stage(nil), prefix...), scan), scan.Name())
		})
		if err != nil {
			return err
		}
		for _, before := range prefix {
			if r, ok := before.(Resetter); ok {
				r.Reset()
			}
		}
		built[i] = g.Filter()
	}
	return nil
}

// PassConfig is the configuration of one pass of a global stage over the
// input of cfg: the stages given, nothing written, nothing committed;
// the columns of a lone scan that says which it reads (ColumnUser) are
// the only ones read.
func PassConfig(cfg Config, stages []Stage) Config {
	pass := cfg
	pass.Target = dataset.Target{Kind: dataset.Discard}
	pass.Overwrite = false
	pass.BeforeCommit = nil
	pass.Stages = stages
	if u, ok := stages[0].(ColumnUser); ok && len(stages) == 1 {
		pass.Columns = u.Columns()
	}
	return pass
}

// hasGlobal reports whether stages hold a global stage not yet prepared.
func hasGlobal(stages []Stage) bool {
	for _, st := range stages {
		if _, ok := st.(Global); ok {
			return true
		}
	}
	return false
}
