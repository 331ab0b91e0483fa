package stages

import "testing"

func TestBandRangesCoverEveryBandOnce(t *testing.T) {
	for _, tasks := range []int{1, 3, 7, 16} {
		next := 0
		for r := 0; r < tasks; r++ {
			lo, hi := bandRange(16, r, tasks)
			if lo != next || hi < lo {
				t.Fatalf("%d tasks: task %d covers [%d,%d), want from %d", tasks, r, lo, hi, next)
			}
			next = hi
		}
		if next != 16 {
			t.Fatalf("%d tasks cover %d of 16 bands", tasks, next)
		}
	}
}
