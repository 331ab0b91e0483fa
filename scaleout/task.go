package scaleout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/pipeline"
	"github.com/sluice-data/sluice/pipeline/pipefile"
)

// task is one task of a phase, running.
type task struct {
	ctx     context.Context
	plan    *Plan
	phase   Phase
	index   int
	file    *pipefile.File
	mem     memory.Allocator
	version string
}

// RunTask runs task index of the named phase of plan. A task whose
// completion marker exists returns done = false and does nothing; any
// other removes what an earlier attempt left and runs. log names where
// the task's output goes, for status.
func RunTask(ctx context.Context, plan *Plan, phase string, index int, version, log string) (ran bool, err error) {
	ph, err := plan.Phase(phase)
	if err != nil {
		return false, err
	}
	if index < 0 || index >= ph.Tasks {
		return false, fmt.Errorf("phase %s has tasks 0 to %d, not %d", ph.Name, ph.Tasks-1, index)
	}
	if plan.isDone(ph, index) {
		return false, nil
	}
	for _, before := range plan.Phases {
		if before.Name == ph.Name {
			break
		}
		if done := plan.doneTasks(before); done < before.Tasks {
			return false, fmt.Errorf("phase %s needs phase %s complete, and %d of its %d tasks are done", ph.Name, before.Name, done, before.Tasks)
		}
	}
	file, err := pipefile.ParseFile(plan.PipelineName, []byte(plan.Pipeline))
	if err != nil {
		return false, err
	}
	if err := plan.checkPhases(file); err != nil {
		return false, err
	}
	host, _ := os.Hostname()
	m := Marker{Phase: ph.Name, Index: index, Host: host, PID: os.Getpid(), Log: log, Started: now()}
	if err := plan.writeMarker(ph, index, running, m); err != nil {
		return false, err
	}
	os.Remove(plan.markerPath(ph, index, failed))
	t := &task{ctx: ctx, plan: plan, phase: ph, index: index, file: file, mem: memory.NewGoAllocator(), version: version}
	err = t.clean()
	if err == nil {
		err = t.run()
	}
	m.Finished = now()
	if err != nil {
		m.Error = err.Error()
		if werr := plan.writeMarker(ph, index, failed, m); werr != nil {
			err = errors.Join(err, werr)
		}
	} else {
		err = plan.writeMarker(ph, index, done, m)
	}
	os.Remove(plan.markerPath(ph, index, running))
	return err == nil, err
}

// checkPhases makes sure the plan holds every phase its stages declare,
// and the write and merge: a plan edited by hand or written by another
// version is refused before any task runs.
func (p *Plan) checkPhases(file *pipefile.File) error {
	has := map[string]bool{}
	for _, ph := range p.Phases {
		has[fmt.Sprintf("%d/%s", ph.Stage, ph.Kind)] = true
	}
	want := []string{"-1/" + string(Write), "-1/" + string(Merge)}
	for i, spec := range file.Stages {
		st, err := pipefile.Build(spec, pipefile.Common{TextField: file.TextField, Annotate: file.Annotate, Profile: file.Profile})
		if err != nil {
			return err
		}
		if sh, ok := st.(pipeline.Sharded); ok {
			for _, sp := range sh.Sharding().Phases {
				want = append(want, fmt.Sprintf("%d/%s", i, sp.Name))
			}
		}
	}
	for _, w := range want {
		if !has[w] {
			return fmt.Errorf("the plan has no %s phase for stage %s (written by another version, or edited?); launch again with --overwrite", w[strings.Index(w, "/")+1:], w[:strings.Index(w, "/")])
		}
	}
	return nil
}

func now() string { return time.Now().UTC().Format(time.RFC3339) }

// clean removes whatever an interrupted attempt of the task left.
func (t *task) clean() error {
	if err := os.RemoveAll(t.plan.workDir(t.phase, t.index)); err != nil {
		return err
	}
	if t.phase.Kind != Write {
		return nil
	}
	var leftovers []string
	for _, pattern := range []string{t.dataName("data", "*"), t.dataName("removed", "*")} {
		found, err := filepath.Glob(pattern)
		if err != nil {
			return err
		}
		leftovers = append(leftovers, found...)
	}
	leftovers = append(leftovers, t.plan.quarantinePath(t.index), t.plan.shardManifestPath(t.index))
	for _, p := range leftovers {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

func (t *task) run() error {
	switch t.phase.Kind {
	case Write:
		return t.write()
	case Merge:
		return t.merge()
	}
	return t.runDeclared()
}

// runDeclared runs a phase that its stage declares (pipeline.Sharded).
func (t *task) runDeclared() error {
	g := t.phase.Stage
	if g < 0 || g >= len(t.file.Stages) {
		return fmt.Errorf("phase %s: unknown phase kind %q", t.phase.Name, t.phase.Kind)
	}
	st, err := t.build(g)
	if err != nil {
		return err
	}
	sh, ok := st.(pipeline.Sharded)
	if !ok {
		return fmt.Errorf("phase %s: stage %s declares no sharded phases", t.phase.Name, st.Name())
	}
	for _, sp := range sh.Sharding().Phases {
		if Kind(sp.Name) != t.phase.Kind {
			continue
		}
		var scan pipeline.Scan
		if sp.PerShard() {
			s := t.index
			before, err := t.shardStages(s, g)
			if err != nil {
				return err
			}
			scan = func(st pipeline.Stage) error {
				_, err := t.pass(s, append(before, st), discard)
				return err
			}
		}
		return sp.Run(workspace{t: t, stage: g}, t.index, scan)
	}
	return fmt.Errorf("phase %s: stage %s has no phase %q", t.phase.Name, st.Name(), t.phase.Kind)
}

// workspace is a sharded stage's view of the plan's work folders.
type workspace struct {
	t     *task
	stage int
}

func (w workspace) Context() context.Context { return w.t.ctx }
func (w workspace) Mem() memory.Allocator    { return w.t.mem }
func (w workspace) Shards() int              { return len(w.t.plan.Shards) }
func (w workspace) Tasks(phase string) int   { return w.t.plan.phaseOf(Kind(phase), w.stage).Tasks }
func (w workspace) Dir(phase string, i int) string {
	return w.t.plan.workDir(w.t.plan.phaseOf(Kind(phase), w.stage), i)
}

func (t *task) common() pipefile.Common {
	return pipefile.Common{TextField: t.file.TextField, Annotate: t.file.Annotate, Profile: t.file.Profile}
}

// build makes pipeline stage i afresh.
func (t *task) build(i int) (pipeline.Stage, error) {
	return pipefile.Build(t.file.Stages[i], t.common())
}

// shardStages builds stages 0 to upto-1 for shard s, each global stage
// replaced by its filter, made from the intermediates of its phases.
func (t *task) shardStages(s, upto int) ([]pipeline.Stage, error) {
	var built []pipeline.Stage
	for i := 0; i < upto; i++ {
		st, err := t.build(i)
		if err != nil {
			return nil, err
		}
		switch g := st.(type) {
		case pipeline.Sharded:
			if filter := g.Sharding().Filter; filter != nil {
				if st, err = filter(workspace{t: t, stage: i}, s); err != nil {
					return nil, err
				}
			}
		}
		built = append(built, st)
	}
	return built, nil
}

// pass runs the stages over shard s's inputs into target, and returns
// the manifest (nil for a shard without inputs).
func (t *task) pass(s int, sts []pipeline.Stage, target dataset.Target) (*dataset.Manifest, error) {
	inputs := t.plan.shardInputs(s)
	if len(inputs) == 0 {
		return nil, nil
	}
	cfg, err := t.plan.Settings.config(inputs)
	if err != nil {
		return nil, err
	}
	cfg.Mem, cfg.Target, cfg.Stages = t.mem, target, sts
	if u, ok := sts[len(sts)-1].(pipeline.ColumnUser); ok && len(sts) == 1 && target.Kind == dataset.Discard {
		cfg.Columns = u.Columns()
	}
	m, err := pipeline.Run(t.ctx, cfg, t.plan.Command, t.version)
	if errors.Is(err, pipeline.ErrPartialInput) && target.Kind != dataset.Discard {
		err = nil // recorded in the manifest's errors; the merge reports them
	}
	return m, err
}

var discard = dataset.Target{Kind: dataset.Discard}

// Marker is what a task's marker file holds.
type Marker struct {
	Phase    string `json:"phase"`
	Index    int    `json:"index"`
	Host     string `json:"host"`
	PID      int    `json:"pid"`
	Log      string `json:"log,omitempty"`
	Started  string `json:"started"`
	Finished string `json:"finished,omitempty"`
	Error    string `json:"error,omitempty"`
}

type markerKind string

const (
	done    markerKind = "done"
	running markerKind = "running"
	failed  markerKind = "failed"
)

func (p *Plan) markerPath(ph Phase, i int, k markerKind) string {
	return p.path("_work", "markers", fmt.Sprintf("%s-%05d.%s", ph.Name, i, k))
}

func (p *Plan) writeMarker(ph Phase, i int, k markerKind, m Marker) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return dataset.WriteFile(p.markerPath(ph, i, k), append(b, '\n'))
}

func (p *Plan) readMarker(ph Phase, i int, k markerKind) (Marker, bool) {
	var m Marker
	b, err := os.ReadFile(p.markerPath(ph, i, k))
	if err != nil {
		return m, false
	}
	return m, json.Unmarshal(b, &m) == nil
}

func (p *Plan) isDone(ph Phase, i int) bool {
	_, err := os.Stat(p.markerPath(ph, i, done))
	return err == nil
}

func (p *Plan) doneTasks(ph Phase) int {
	n := 0
	for i := 0; i < ph.Tasks; i++ {
		if p.isDone(ph, i) {
			n++
		}
	}
	return n
}
