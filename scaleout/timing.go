package scaleout

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// A task's done marker records how long the task took and how much of it
// was the fixed cost of being a task rather than the work itself:
//
//	setup      from the process's start to the start of the work: the
//	           process and the Go runtime starting, reading the plan,
//	           checking the phases before, parsing the pipeline file,
//	           taking the lease, removing an earlier attempt's files (and
//	           for an object-store output, fetching the intermediates)
//	work       the phase's own work (for write: the pass over the shard
//	           into its work folder)
//	teardown   after the work until the done marker: moving the write's
//	           files into the dataset and its shard manifest (uploading,
//	           for an object-store output), stopping the lease
//
// overhead is setup plus teardown.

// SpawnedEnv is the environment variable the local executor sets to the
// time (Unix nanoseconds) just before it starts a task's process, so that
// the task's setup counts from then.
const SpawnedEnv = "SLUICE_TASK_SPAWNED"

// initialized is when this package was initialised: close to the start
// of the process when it was not started by the local executor.
var initialized = time.Now()

// ProcessStart returns when this process started, as far as it can tell:
// the time the local executor set in SpawnedEnv (which it then unsets, so
// that no process this one starts reads it), else when this package was
// initialised, a few milliseconds after the process started. Only the
// first call does: a process that runs several tasks counts its start in
// the first one's setup, and later calls return the time of the call.
func ProcessStart() time.Time {
	if !processStartTaken.CompareAndSwap(false, true) {
		return time.Now()
	}
	v, ok := os.LookupEnv(SpawnedEnv)
	if !ok {
		return initialized
	}
	os.Unsetenv(SpawnedEnv)
	ns, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return initialized
	}
	t := time.Unix(0, ns)
	if t.After(initialized) || initialized.Sub(t) > 10*time.Minute {
		return initialized // not this process's start
	}
	return t
}

var processStartTaken atomic.Bool

// peakRSS returns the peak resident memory of this process since it
// started or since resetPeakRSS, in bytes; 0 when unknown. On Linux it
// is the status file's VmHWM, which resetPeakRSS resets (a serving
// process runs many tasks and reports each one's peak); elsewhere the
// process's peak from getrusage, which nothing resets.
func peakRSS() int64 {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		if kb, ok := statusKB(b, "VmHWM:"); ok {
			return kb << 10
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) // bytes there
	}
	return int64(ru.Maxrss) << 10 // kilobytes on Linux and the BSDs
}

// resetPeakRSS sets the peak that peakRSS reports back to the resident
// memory now, where the system allows it (Linux: clear_refs).
func resetPeakRSS() {
	if f, err := os.OpenFile("/proc/self/clear_refs", os.O_WRONLY, 0); err == nil {
		f.WriteString("5") // 5: reset the peak resident set size
		f.Close()
	}
}

// statusKB reads the field named key (with its colon) of a
// /proc/PID/status file, in kilobytes.
func statusKB(status []byte, key string) (int64, bool) {
	for line := range strings.SplitSeq(string(status), "\n") {
		rest, ok := strings.CutPrefix(line, key)
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
		return kb, err == nil
	}
	return 0, false
}

// taskClock times one attempt of a task.
type taskClock struct {
	started   time.Time // the process's start
	workStart time.Time // zero until the work starts
	workEnd   time.Time // zero until the work ends
}

// stamp records the clock's times and the process's peak memory in m, at
// now.
func (c *taskClock) stamp(m *Marker, now time.Time) {
	m.WallSeconds = seconds3(now.Sub(c.started))
	m.PeakRSS = peakRSS()
	if c.workStart.IsZero() {
		return // failed before its work: all of it was overhead
	}
	end := c.workEnd
	if end.IsZero() {
		end = now
	}
	m.SetupSeconds = seconds3(c.workStart.Sub(c.started))
	m.OverheadSeconds = seconds3(c.workStart.Sub(c.started) + now.Sub(end))
}

// seconds3 is d in seconds, to the microsecond.
func seconds3(d time.Duration) float64 {
	return float64(max(d, 0).Microseconds()) / 1e6
}

// PhaseTimes sums what the done markers of a phase's tasks recorded.
type PhaseTimes struct {
	// TimedTasks are the done tasks whose markers hold times (markers of
	// an earlier version hold none).
	TimedTasks int `json:"timed_tasks"`
	// TaskSeconds is the sum of the tasks' wall times, each from its
	// process's start to its done marker; MaxTaskSeconds the longest.
	TaskSeconds    float64 `json:"task_seconds"`
	MaxTaskSeconds float64 `json:"max_task_seconds"`
	// OverheadSeconds is the part of TaskSeconds outside the tasks' work,
	// SetupSeconds the part of it before the work.
	OverheadSeconds float64 `json:"overhead_seconds"`
	SetupSeconds    float64 `json:"setup_seconds"`
	// PeakRSS is the largest peak resident memory of a task, bytes.
	PeakRSS int64 `json:"peak_rss_bytes"`
}

// String tells the summed task time, its overhead and the largest peak
// memory of a task.
func (pt PhaseTimes) String() string {
	s := fmt.Sprintf("task time %.2fs, overhead %.2fs", pt.TaskSeconds, pt.OverheadSeconds)
	if pt.PeakRSS > 0 {
		s += fmt.Sprintf("; peak RSS of a task %.1f MiB", float64(pt.PeakRSS)/(1<<20))
	}
	return s
}

// add counts a done task's marker.
func (pt *PhaseTimes) add(m Marker) {
	if m.WallSeconds <= 0 {
		return
	}
	pt.TimedTasks++
	pt.TaskSeconds += m.WallSeconds
	pt.MaxTaskSeconds = max(pt.MaxTaskSeconds, m.WallSeconds)
	pt.OverheadSeconds += m.OverheadSeconds
	pt.SetupSeconds += m.SetupSeconds
	pt.PeakRSS = max(pt.PeakRSS, m.PeakRSS)
}

// doneMarker reads the done marker of task i of ph, and reports whether
// the task is done (as isDone). A marker that is not JSON is a zero
// Marker: the task is still done.
func (p *Plan) doneMarker(ph Phase, i int) (Marker, bool) {
	var m Marker
	path := p.markerPath(ph, i, done)
	b, _, err := storeOf(path).read(path)
	if err != nil || !p.merged(ph) {
		return m, false
	}
	json.Unmarshal(b, &m)
	return m, true
}

// TimesOf sums the times the done markers of the given tasks of ph
// recorded.
func (p *Plan) TimesOf(ph Phase, tasks []int) PhaseTimes {
	var pt PhaseTimes
	for _, i := range tasks {
		if m, ok := p.doneMarker(ph, i); ok {
			pt.add(m)
		}
	}
	return pt
}
