package scaleout

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sluice-data/sluice/io/blob"
)

// RunLocal runs the plan's phases on this machine, each phase's missing
// tasks at most parallel at a time; a phase starts when the one before it
// is complete. The tasks run in parallel task processes, one a slot, each
// running its slot's tasks one after the other (`sluice task PLAN
// --serve`, see serve.go); a slot whose process ended starts another.
// Tasks already done are not run again. Each attempt of a task writes its
// own log, OUT/_logs/<phase>-<index>.attempt-<n>.log. The tasks running
// at once share the machine's cores: each runs with the plan's workers,
// or its share of the cores when that is fewer (see taskWorkers).
func RunLocal(ctx context.Context, p *Plan, planPath string, parallel int, progress io.Writer) error {
	parallel = max(parallel, 1)
	slots := make([]*slotProcess, parallel)
	defer func() {
		for _, s := range slots {
			if s != nil {
				s.stop()
			}
		}
	}()
	for _, ph := range p.Phases {
		var todo []int
		for i := 0; i < ph.Tasks; i++ {
			if !p.isDone(ph, i) {
				todo = append(todo, i)
			}
		}
		if len(todo) == 0 {
			fmt.Fprintf(progress, "%-24s %d tasks already done\n", ph.Name, ph.Tasks)
			continue
		}
		began := time.Now()
		var mu sync.Mutex
		var failures []string
		next := make(chan int)
		var wg sync.WaitGroup
		running := min(parallel, len(todo))
		workers := taskWorkers(p.Settings.Workers, runtime.NumCPU(), running)
		if ph.Kind == Merge {
			workers = 0 // the merge decodes nothing; its manifest keeps the plan's workers
		}
		for w := 0; w < running; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					if err := p.runLocalTask(ctx, planPath, &slots[w], ph, i, workers); err != nil {
						mu.Lock()
						failures = append(failures, err.Error())
						mu.Unlock()
					}
				}
			}()
		}
		for _, i := range todo {
			next <- i
		}
		close(next)
		wg.Wait()
		if len(failures) > 0 {
			return fmt.Errorf("phase %s: %d of %d tasks failed: %s", ph.Name, len(failures), len(todo), strings.Join(failures, "; "))
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if n := p.doneTasks(ph); n < ph.Tasks {
			return fmt.Errorf("phase %s: %d of %d tasks are done once its tasks ended (see sluice status %s)", ph.Name, n, ph.Tasks, p.Out)
		}
		// The tasks run now, as their done markers tell: the largest peak
		// memory of a task, their summed wall time, of it the overhead of
		// being a task (see timing.go), and the phase's wall time here.
		times := p.TimesOf(ph, todo)
		fmt.Fprintf(progress, "%-24s %d tasks done (%d run now; peak RSS of a task %.1f MiB; task time %.2fs, overhead %.2fs; phase %.2fs)\n",
			ph.Name, ph.Tasks, len(todo), float64(times.PeakRSS)/(1<<20), times.TaskSeconds, times.OverheadSeconds, time.Since(began).Seconds())
	}
	return nil
}

// attemptLog creates the log of a new attempt of task i of ph,
// OUT/_logs/<phase>-<task>.attempt-<n>.log, n one more than the
// attempts logged before: an attempt never writes over an earlier one's
// log. It returns the file and the log's name: for an object-store
// output, a local file, uploaded under that name when the task ends.
func (p *Plan) attemptLog(ctx context.Context, ph Phase, i int) (*os.File, string, error) {
	prefix := fmt.Sprintf("%s-%05d.attempt-", ph.Name, i)
	if p.IsRemote() {
		name, err := p.remoteLogName(ctx, prefix)
		if err != nil {
			return nil, "", err
		}
		f, err := os.CreateTemp("", "sluice-log-*")
		return f, name, err
	}
	f, err := p.localAttemptLog(prefix)
	if err != nil {
		return nil, "", err
	}
	return f, f.Name(), nil
}

func (p *Plan) localAttemptLog(prefix string) (*os.File, error) {
	dir := p.absPath("_logs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	n := 0
	earlier, _ := filepath.Glob(filepath.Join(dir, prefix+"*.log"))
	for _, e := range earlier {
		if k, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(e), prefix), ".log")); err == nil {
			n = max(n, k)
		}
	}
	for {
		n++
		f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("%s%d.log", prefix, n)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
}

// absPath is path made absolute against the plan's directory.
func (p *Plan) absPath(elem ...string) string {
	path := p.path(elem...)
	if filepath.IsAbs(path) || blob.IsURL(path) {
		return path
	}
	return filepath.Join(p.Dir, path)
}

// taskWorkers is the number of workers of each of running tasks at once
// on a machine of cores cores whose plan asks for planned workers a task
// (0: every core): the plan's number, or the task's share of the cores
// when that is fewer, at least 1. Without it, as many tasks as cores,
// each with as many workers as cores, would hold cores times the batches
// in memory that one process does, and fight over the cores. The output
// does not depend on the number of workers.
func taskWorkers(planned, cores, running int) int {
	share := max(1, cores/max(running, 1))
	if planned <= 0 || planned > share {
		return share
	}
	return planned
}

// runLocalTask runs task i of ph in the slot's task process (starting
// one when the slot has none, and leaving none when it ended), with
// workers workers unless 0 (then the plan's).
func (p *Plan) runLocalTask(ctx context.Context, planPath string, slot **slotProcess, ph Phase, i, workers int) (err error) {
	f, log, err := p.attemptLog(ctx, ph, i)
	if err != nil {
		return err
	}
	defer f.Close()
	if p.IsRemote() {
		defer func() {
			f.Close()
			if uerr := put(context.WithoutCancel(ctx), f.Name(), log); uerr != nil {
				err = errors.Join(err, uerr)
				os.Remove(f.Name())
			}
		}()
	}
	if *slot != nil && (*slot).ended() {
		(*slot).stop() // ended between tasks (killed): the task goes to a new one
		*slot = nil
	}
	if *slot == nil {
		if *slot, err = p.startSlot(ctx, planPath); err != nil {
			fmt.Fprintf(f, "sluice: cannot start a task process: %v\n", err)
			return fmt.Errorf("task %d: %v (log %s)", i, err, log)
		}
	}
	reply, err := (*slot).run(TaskRequest{Phase: ph.Name, Index: i, Workers: workers, Log: log, LogFile: f.Name()})
	if err != nil {
		*slot = nil
		return fmt.Errorf("task %d: %v (log %s)", i, err, log)
	}
	if reply.Error != "" {
		return fmt.Errorf("task %d: %s (log %s)", i, reply.Error, log)
	}
	return nil
}
