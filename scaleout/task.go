package scaleout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/layout"
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
	lease   *lease // nil when run without one
	clock   *taskClock
}

// holdsLease fails when another copy of the task took its lease over:
// checked before the task moves its files into the dataset.
func (t *task) holdsLease() error {
	if t.lease == nil {
		return nil
	}
	if other, ok := t.lease.held(); !ok {
		return fmt.Errorf("phase %s task %d lost its lease to %s", t.phase.Name, t.index, leaseNote(other))
	}
	return nil
}

// TaskOptions are how a task runs.
type TaskOptions struct {
	Version string // the sluice version the manifests record
	// Log names where the task's output goes, for status.
	Log string
	// Lease is how the task renews its lease; zero fields take
	// DefaultLease's.
	Lease LeaseTiming
	// Progress is told when the task waits for another copy's lease or
	// takes over a stale one; nil tells nothing.
	Progress io.Writer
	// Started is when the task's process started (ProcessStart): the
	// times its marker records count from it. Zero counts from the call.
	Started time.Time
}

// RunTask runs task index of the named phase of plan with the default
// lease timing, as RunTaskWith does.
func RunTask(ctx context.Context, plan *Plan, phase string, index int, version, log string) (ran bool, err error) {
	return RunTaskWith(ctx, plan, phase, index, TaskOptions{Version: version, Log: log})
}

// RunTaskWith runs task index of the named phase of plan. A task whose
// completion marker exists returns ran = false and does nothing but
// remove the stale lease a copy killed after completing it left. Any
// other takes the task's lease first: while another copy of the task
// holds a live lease, it waits for that copy to end (and returns ran =
// false if it completed the task); a stale lease (its holder gone, or
// not renewed in time) it takes over. Holding the lease, it removes what
// an earlier attempt left, runs, and writes its done or failed marker.
func RunTaskWith(ctx context.Context, plan *Plan, phase string, index int, o TaskOptions) (ran bool, err error) {
	clock := &taskClock{started: o.Started}
	if clock.started.IsZero() {
		clock.started = time.Now()
	}
	ph, err := plan.Phase(phase)
	if err != nil {
		return false, err
	}
	if index < 0 || index >= ph.Tasks {
		return false, fmt.Errorf("phase %s has tasks 0 to %d, not %d", ph.Name, ph.Tasks-1, index)
	}
	if plan.isDone(ph, index) {
		_, err := plan.clearDoneLease(ph, index)
		return false, err
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
	timing := o.Lease.withDefaults()
	if err := timing.Check(); err != nil {
		return false, err
	}
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	host, _ := os.Hostname()
	m := Marker{Phase: ph.Name, Index: index, Host: host, PID: os.Getpid(), Log: o.Log, Started: now(), Token: newToken()}
	l, err := plan.waitLease(ctx, ph, index, m, timing, progress)
	if err != nil || l == nil {
		return false, err
	}
	if plan.isDone(ph, index) { // completed by the copy whose lease just ended
		l.release()
		return false, nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	l.keep(func(other Marker) {
		cancel(fmt.Errorf("phase %s task %d lost its lease to %s", ph.Name, index, leaseNote(other)))
	})
	t := &task{ctx: ctx, plan: plan, phase: ph, index: index, file: file, mem: memory.NewGoAllocator(), version: o.Version, lease: l, clock: clock}
	// Checked again before anything is removed: a copy stopped since it
	// took the lease (and taken over meanwhile) must not remove the files
	// of the copy that took over.
	err = t.holdsLease()
	if err == nil && plan.IsRemote() {
		err = t.useLocalFolder()
		defer os.RemoveAll(plan.local)
	}
	if err == nil {
		failedMarker := plan.markerPath(ph, index, failed)
		storeOf(failedMarker).remove(failedMarker)
		err = t.clean()
	}
	if err == nil && plan.IsRemote() {
		err = plan.fetchWork(ctx)
	}
	if err == nil {
		clock.workStart = time.Now()
		err = t.run()
		if clock.workEnd.IsZero() {
			clock.workEnd = time.Now()
		}
	}
	if err == nil && plan.IsRemote() {
		if err = t.holdsLease(); err == nil {
			err = plan.pushWork(ctx, plan.workDir(ph, index))
		}
	}
	l.stopKeeping()
	if other, ok := l.held(); !ok {
		// Another copy took the task over: what this attempt wrote may be
		// gone or half replaced, and the markers are the other copy's.
		return false, fmt.Errorf("phase %s task %d lost its lease to %s; this attempt's work is left to it", ph.Name, index, leaseNote(other))
	}
	if cause := context.Cause(ctx); err != nil && cause != nil && !errors.Is(cause, context.Canceled) {
		err = cause
	}
	m = l.marker
	m.Heartbeat, m.Expires, m.Token = "", "", ""
	m.Finished = now()
	clock.stamp(&m, time.Now())
	if err != nil {
		m.Error = err.Error()
		if werr := plan.writeMarker(ph, index, failed, m); werr != nil {
			err = errors.Join(err, werr)
		}
	} else {
		err = plan.writeMarker(ph, index, done, m)
		if err == nil && ph.Kind == Merge && !plan.KeepWork {
			if werr := plan.removeWork(); werr != nil {
				fmt.Fprintf(progress, "the intermediates stay: %v\n", werr)
			}
		}
	}
	l.release()
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

// useLocalFolder gives a task of an object-store output its own local
// folder.
func (t *task) useLocalFolder() error {
	dir, err := os.MkdirTemp("", "sluice-task-")
	t.plan.local = dir
	return err
}

// clean removes whatever an interrupted attempt of the task left.
func (t *task) clean() error {
	if t.plan.IsRemote() {
		return t.cleanRemote()
	}
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
// the manifest (nil for a shard without inputs). The first phase that
// reads the shard spills what it decoded; the later ones replay it
// (spill.go).
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
	cfg.Spill = t.spill(s, sts)
	m, err := pipeline.Run(t.ctx, cfg, t.plan.Command, t.version)
	if errors.Is(err, pipeline.ErrSpill) {
		if derr := t.dropSpill(s); derr != nil {
			return nil, errors.Join(err, derr)
		}
		return nil, fmt.Errorf("%w (removed: the next attempt reads the input)", err)
	}
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
	// A running marker is the task's lease: renewed at Heartbeat, alive
	// until Expires (RFC 3339 with nanoseconds), Token its holder's own.
	Heartbeat string `json:"heartbeat,omitempty"`
	Expires   string `json:"expires,omitempty"`
	Token     string `json:"token,omitempty"`
	// A done or failed marker's times (see timing.go): the task's wall
	// time from its process's start to the marker, the overhead part of
	// it (outside the work) and the setup part of that (before the work),
	// in seconds; and the process's peak resident memory, bytes.
	WallSeconds     float64 `json:"wall_seconds,omitempty"`
	OverheadSeconds float64 `json:"overhead_seconds,omitempty"`
	SetupSeconds    float64 `json:"setup_seconds,omitempty"`
	PeakRSS         int64   `json:"peak_rss_bytes,omitempty"`
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
	path := p.markerPath(ph, i, k)
	return storeOf(path).write(path, append(b, '\n'))
}

func (p *Plan) readMarker(ph Phase, i int, k markerKind) (Marker, bool) {
	var m Marker
	path := p.markerPath(ph, i, k)
	b, _, err := storeOf(path).read(path)
	if err != nil {
		return m, false
	}
	return m, json.Unmarshal(b, &m) == nil
}

// isDone reports whether task i of ph completed: its done marker is
// there, and for the merge, manifest.json too (removed, the merge runs
// again).
func (p *Plan) isDone(ph Phase, i int) bool {
	marker := p.markerPath(ph, i, done)
	return storeOf(marker).exists(marker) && p.merged(ph)
}

// merged is false for the merge phase while the output has no
// manifest.json (its marker alone does not make it done), true for the
// other phases.
func (p *Plan) merged(ph Phase) bool {
	if ph.Kind != Merge {
		return true
	}
	manifest := p.path(layout.ManifestName)
	return storeOf(manifest).exists(manifest)
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
