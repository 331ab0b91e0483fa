package scaleout

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// TaskState is where a task stands. Each task is in one state, read in
// this order: done (its done marker); running (its lease is alive);
// failed (its failed marker); interrupted (a stale lease: its process
// died, or stopped renewing it, without a marker); waiting (none of
// these: not started yet).
type TaskState string

// The task states.
const (
	TaskDone        TaskState = "done"
	TaskRunning     TaskState = "running"
	TaskFailed      TaskState = "failed"
	TaskInterrupted TaskState = "interrupted"
	TaskWaiting     TaskState = "waiting"
)

// TaskStatus is a task that is not done, with the marker that tells its
// state: its lease (running, interrupted) or its failed marker.
type TaskStatus struct {
	Marker
	State TaskState
	// Why tells, for an interrupted task, how its lease went stale.
	Why string
}

// PhaseStatus is a phase's progress, read from the task markers and
// leases. Tasks neither done nor listed are waiting.
type PhaseStatus struct {
	Phase       Phase
	Done        int
	Running     []TaskStatus
	Failed      []TaskStatus
	Interrupted []TaskStatus
	// Times sums what the done tasks' markers recorded.
	Times PhaseTimes
}

// State is the phase's state: complete when every task is done; else
// failed when a task failed; else interrupted when a task was
// interrupted (failed and interrupted tasks wait for a relaunch);
// else running when a task runs; else waiting.
func (st PhaseStatus) State() string {
	switch {
	case st.Done == st.Phase.Tasks:
		return "complete"
	case len(st.Failed) > 0:
		return string(TaskFailed)
	case len(st.Interrupted) > 0:
		return string(TaskInterrupted)
	case len(st.Running) > 0:
		return string(TaskRunning)
	}
	return string(TaskWaiting)
}

// Waiting is the number of the phase's tasks that are waiting.
func (st PhaseStatus) Waiting() int {
	return st.Phase.Tasks - st.Done - len(st.Running) - len(st.Failed) - len(st.Interrupted)
}

// Status reads the progress of every phase of the plan.
func Status(p *Plan) []PhaseStatus {
	host, _ := os.Hostname()
	now := time.Now()
	var out []PhaseStatus
	for _, ph := range p.Phases {
		st := PhaseStatus{Phase: ph}
		for i := 0; i < ph.Tasks; i++ {
			ts := p.taskStatus(ph, i, host, now)
			switch ts.State {
			case TaskDone:
				st.Done++
				st.Times.add(ts.Marker)
			case TaskRunning:
				st.Running = append(st.Running, ts)
			case TaskFailed:
				st.Failed = append(st.Failed, ts)
			case TaskInterrupted:
				st.Interrupted = append(st.Interrupted, ts)
			}
		}
		out = append(out, st)
	}
	return out
}

// taskStatus reads the state of task i of ph.
func (p *Plan) taskStatus(ph Phase, i int, host string, now time.Time) TaskStatus {
	if m, ok := p.doneMarker(ph, i); ok {
		m.Phase, m.Index = ph.Name, i
		return TaskStatus{State: TaskDone, Marker: m}
	}
	var stale *TaskStatus
	if _, m, modified, err := readLease(p.markerPath(ph, i, running)); err == nil {
		m.Phase, m.Index = ph.Name, i
		switch leaseState(m, modified, now, host) {
		case LeaseAlive:
			return TaskStatus{Marker: m, State: TaskRunning}
		case LeaseGone:
			stale = &TaskStatus{Marker: m, State: TaskInterrupted, Why: "the process is gone"}
		default:
			why := "its lease expired"
			if m.Expires != "" {
				why += " at " + seconds(m.Expires)
			} else {
				why += fmt.Sprintf(" (not written since %s)", modified.UTC().Format(time.RFC3339))
			}
			stale = &TaskStatus{Marker: m, State: TaskInterrupted, Why: why}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		stale = &TaskStatus{Marker: Marker{Phase: ph.Name, Index: i}, State: TaskInterrupted, Why: err.Error()}
	}
	if m, ok := p.readMarker(ph, i, failed); ok {
		m.Phase, m.Index = ph.Name, i
		return TaskStatus{Marker: m, State: TaskFailed}
	}
	if stale != nil {
		return *stale
	}
	return TaskStatus{Marker: Marker{Phase: ph.Name, Index: i}, State: TaskWaiting}
}

// Complete reports whether every task of every phase is done.
func Complete(sts []PhaseStatus) bool {
	for _, st := range sts {
		if st.Done < st.Phase.Tasks {
			return false
		}
	}
	return true
}

// PrintStatus writes one line a phase (with the times its done tasks
// recorded), then a line for each running, failed or interrupted task.
func PrintStatus(w io.Writer, sts []PhaseStatus) {
	for _, st := range sts {
		times := ""
		if st.Times.TimedTasks > 0 {
			times = "  (" + st.Times.String() + ")"
		}
		fmt.Fprintf(w, "%-24s %6d/%-6d done  %d running  %d failed  %d interrupted  %s%s\n", st.Phase.Name, st.Done, st.Phase.Tasks,
			len(st.Running), len(st.Failed), len(st.Interrupted), st.State(), times)
		for _, ts := range st.Running {
			fmt.Fprintf(w, "  task %d running on %s%s\n", ts.Index, leaseNote(ts.Marker), logNote(ts.Marker))
		}
		for _, ts := range st.Failed {
			fmt.Fprintf(w, "  task %d failed at %s: %s%s\n", ts.Index, ts.Finished, ts.Error, logNote(ts.Marker))
		}
		for _, ts := range st.Interrupted {
			m := ts.Marker
			lease := fmt.Sprintf("pid %d, since %s", m.PID, m.Started)
			if m.Heartbeat != "" {
				lease += ", heartbeat " + seconds(m.Heartbeat)
			}
			fmt.Fprintf(w, "  task %d interrupted on %s (%s): %s; launch again to rerun it%s\n", ts.Index, m.Host, lease, ts.Why, logNote(m))
		}
	}
}

// leaseNote describes a lease: host, pid, since, last heartbeat.
func leaseNote(m Marker) string {
	s := fmt.Sprintf("%s (pid %d) since %s", m.Host, m.PID, m.Started)
	if m.Heartbeat != "" {
		s += ", heartbeat " + seconds(m.Heartbeat)
	}
	return s
}

// seconds shows a lease's time to the second.
func seconds(t string) string {
	if p, err := time.Parse(leaseTime, t); err == nil {
		return p.UTC().Format(time.RFC3339)
	}
	return t
}

func logNote(m Marker) string {
	if m.Log == "" {
		return ""
	}
	return "; log " + m.Log
}
