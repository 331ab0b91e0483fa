package scaleout

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/sluice-data/sluice/io/input"
)

func files(sizes ...int64) []input.File {
	fs := make([]input.File, len(sizes))
	for i, s := range sizes {
		fs[i] = input.File{Path: fmt.Sprintf("f%02d.jsonl", i), Size: s}
	}
	return fs
}

func TestSplitIsConsecutiveBalancedAndCoversEveryFile(t *testing.T) {
	cases := []struct {
		name  string
		sizes []int64
		n     int
		want  [][2]int
	}{
		{"even", []int64{10, 10, 10, 10}, 2, [][2]int{{0, 2}, {2, 4}}},
		{"one big file first", []int64{100, 10, 10, 10}, 2, [][2]int{{0, 1}, {1, 4}}},
		{"more tasks than files", []int64{5, 5, 5}, 7, [][2]int{{0, 1}, {1, 2}, {2, 3}}},
		{"one task", []int64{1, 2, 3}, 1, [][2]int{{0, 3}}},
		{"empty files still count", []int64{0, 0, 0, 0}, 2, [][2]int{{0, 2}, {2, 4}}},
		{"every shard gets a file", []int64{1000, 1, 1, 1}, 4, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Split(files(c.sizes...), c.n)
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("Split(%v, %d) = %v, want %v", c.sizes, c.n, got, c.want)
			}
		})
	}
	// Any split: consecutive, non-empty, covering.
	for n := 1; n <= 12; n++ {
		sizes := []int64{7, 300, 2, 2, 90, 1, 1, 1, 50, 3}
		got := Split(files(sizes...), n)
		next := 0
		for _, r := range got {
			if r[0] != next || r[1] <= r[0] {
				t.Fatalf("n=%d: shards %v are not consecutive and non-empty", n, got)
			}
			next = r[1]
		}
		if next != len(sizes) || len(got) != min(n, len(sizes)) {
			t.Fatalf("n=%d: shards %v do not cover the %d files", n, got, len(sizes))
		}
	}
}
