package scaleout

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// PhaseStatus is a phase's progress, read from the task markers.
type PhaseStatus struct {
	Phase   Phase
	Done    int
	Running []Marker
	// Interrupted are tasks marked running on this host whose process is
	// gone (killed): the next launch reruns them from a clean start.
	Interrupted []Marker
	Failed      []Marker
}

// Status reads the progress of every phase of the plan.
func Status(p *Plan) []PhaseStatus {
	host, _ := os.Hostname()
	var out []PhaseStatus
	for _, ph := range p.Phases {
		st := PhaseStatus{Phase: ph}
		for i := 0; i < ph.Tasks; i++ {
			if p.isDone(ph, i) {
				st.Done++
				continue
			}
			if m, ok := p.readMarker(ph, i, running); ok {
				if m.Host == host && !alive(m.PID) {
					st.Interrupted = append(st.Interrupted, m)
				} else {
					st.Running = append(st.Running, m)
				}
				continue
			}
			if m, ok := p.readMarker(ph, i, failed); ok {
				st.Failed = append(st.Failed, m)
			}
		}
		out = append(out, st)
	}
	return out
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
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

// PrintStatus writes one line a phase, then a line for each running,
// interrupted or failed task.
func PrintStatus(w io.Writer, sts []PhaseStatus) {
	for _, st := range sts {
		state := "waiting"
		switch {
		case st.Done == st.Phase.Tasks:
			state = "complete"
		case len(st.Failed) > 0:
			state = "failed"
		case len(st.Running) > 0 || st.Done > 0:
			state = "running"
		}
		fmt.Fprintf(w, "%-24s %6d/%-6d done  %d running  %d failed  %s\n", st.Phase.Name, st.Done, st.Phase.Tasks,
			len(st.Running), len(st.Failed), state)
		for _, m := range st.Running {
			fmt.Fprintf(w, "  task %d running on %s (pid %d) since %s%s\n", m.Index, m.Host, m.PID, m.Started, logNote(m))
		}
		for _, m := range st.Interrupted {
			fmt.Fprintf(w, "  task %d interrupted (pid %d is gone); launch again to rerun it%s\n", m.Index, m.PID, logNote(m))
		}
		for _, m := range st.Failed {
			fmt.Fprintf(w, "  task %d failed at %s: %s%s\n", m.Index, m.Finished, m.Error, logNote(m))
		}
	}
}

func logNote(m Marker) string {
	if m.Log == "" {
		return ""
	}
	return "; log " + m.Log
}
