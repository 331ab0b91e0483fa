package scaleout

import "testing"

// Tasks running at once on one machine share its cores: a task gets the
// plan's workers or its share of the cores, whichever is fewer, and at
// least one.
func TestTaskWorkersShareTheCores(t *testing.T) {
	for _, c := range []struct{ planned, cores, running, want int }{
		{planned: 2, cores: 2, running: 2, want: 1},    // the default on 2 cores: not 2 tasks of 2
		{planned: 64, cores: 64, running: 64, want: 1}, // not 64 tasks of 64 workers
		{planned: 64, cores: 64, running: 4, want: 16},
		{planned: 8, cores: 64, running: 4, want: 8}, // fewer asked for: as asked
		{planned: 0, cores: 16, running: 3, want: 5}, // 0: every core, shared
		{planned: 3, cores: 2, running: 5, want: 1},
		{planned: 4, cores: 8, running: 0, want: 4},
	} {
		if got := taskWorkers(c.planned, c.cores, c.running); got != c.want {
			t.Errorf("taskWorkers(%d planned, %d cores, %d running) = %d, want %d", c.planned, c.cores, c.running, got, c.want)
		}
	}
}
