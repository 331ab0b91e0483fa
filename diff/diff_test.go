package diff

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/pipeline"
)

// writeVersion writes rows (id, text; id "" for none) as JSONL and
// converts them into a dataset directory of parts of 500 rows.
func writeVersion(t *testing.T, dir, name string, rows [][2]string) string {
	t.Helper()
	var b strings.Builder
	for _, r := range rows {
		row := map[string]any{"text": r[1]}
		if r[0] != "" {
			row["id"] = r[0]
		}
		line, _ := json.Marshal(row)
		b.Write(append(line, '\n'))
	}
	src := filepath.Join(dir, name+".jsonl")
	if err := os.WriteFile(src, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := input.Stat(src)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name)
	cfg := pipeline.Config{Inputs: []input.File{in}, Target: dataset.ParseTarget(out), Workers: 2, BatchRows: 200, InferRows: pipeline.InferAll,
		Output: dataset.Options{MaxFileRows: 500}}
	if _, err := pipeline.Run(context.Background(), cfg, []string{"sluice", "convert", src, "-o", out}, "test"); err != nil {
		t.Fatal(err)
	}
	return out
}

// A row comparison over many spill partitions finds what one partition
// finds, and what a comparison in memory finds: rows dropped, added and
// changed, ids repeated with the same or other texts.
func TestRowsMatchWhateverThePartitions(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 5))
	var a, b [][2]string
	for i := 0; i < 3000; i++ {
		id, text := fmt.Sprintf("d%d", i), fmt.Sprintf("text %d %d", i, rng.IntN(1000))
		switch r := rng.IntN(20); {
		case r == 0: // only in A
			a = append(a, [2]string{id, text})
		case r == 1: // only in B
			b = append(b, [2]string{id, text})
		case r == 2: // changed
			a = append(a, [2]string{id, text})
			b = append(b, [2]string{id, text + " edited"})
		case r == 3: // an id twice in A, once in B with the second text
			a = append(a, [2]string{id, text}, [2]string{id, text + " again"})
			b = append(b, [2]string{id, text + " again"})
		default:
			a = append(a, [2]string{id, text})
			b = append(b, [2]string{id, text})
		}
	}
	va, err := Open(writeVersion(t, dir, "a", a))
	if err != nil {
		t.Fatal(err)
	}
	vb, err := Open(writeVersion(t, dir, "b", b))
	if err != nil {
		t.Fatal(err)
	}
	// In memory: match by id, equal texts first.
	want := Rows{Key: "id", RowsA: int64(len(a)), RowsB: int64(len(b))}
	texts := map[string][]string{}
	for _, r := range a {
		texts[r[0]] = append(texts[r[0]], r[1])
	}
	left := map[string][]string{}
	for _, r := range b {
		ts := texts[r[0]]
		k := -1
		for j, t := range ts {
			if t == r[1] {
				k = j
				break
			}
		}
		if k >= 0 {
			want.Same++
			texts[r[0]] = append(ts[:k:k], ts[k+1:]...)
			continue
		}
		left[r[0]] = append(left[r[0]], r[1])
	}
	for id, ts := range texts {
		n := min(len(ts), len(left[id]))
		want.Changed += int64(n)
		want.OnlyA += int64(len(ts) - n)
		want.OnlyB += int64(len(left[id]) - n)
		delete(left, id)
	}
	for _, ts := range left {
		want.OnlyB += int64(len(ts))
	}
	var results []*Rows
	for _, parts := range []int{0, 97} {
		res, err := Compare(context.Background(), va, vb, Options{PartitionRows: parts, Examples: 3, TempDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		r := res.Rows
		if r.Key != want.Key || r.RowsA != want.RowsA || r.RowsB != want.RowsB || r.Same != want.Same || r.OnlyA != want.OnlyA ||
			r.OnlyB != want.OnlyB || r.Changed != want.Changed {
			t.Errorf("partition rows %d: %+v, want %+v", parts, *r, want)
		}
		if len(r.Examples.OnlyA) != 3 || len(r.Examples.OnlyB) != 3 || len(r.Examples.Changed) != 3 {
			t.Errorf("partition rows %d: examples %+v", parts, r.Examples)
		}
		results = append(results, r)
	}
	if results[1].Partitions < 50 {
		t.Errorf("%d partitions", results[1].Partitions)
	}
	results[0].Partitions, results[1].Partitions = 0, 0
	if !reflect.DeepEqual(results[0], results[1]) {
		t.Errorf("one partition:\n%+v\nmany:\n%+v", results[0], results[1])
	}
	// The spill files are gone.
	if left, _ := filepath.Glob(filepath.Join(dir, "sluice-diff-*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	// Without ids on one side, rows are matched by their text.
	var noIDs [][2]string
	for _, r := range b {
		noIDs = append(noIDs, [2]string{"", r[1]})
	}
	vc, err := Open(writeVersion(t, dir, "c", noIDs))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compare(context.Background(), vb, vc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Rows; r.Key != "content" || r.Same != int64(len(b)) || r.OnlyA+r.OnlyB+r.Changed != 0 {
		t.Errorf("by content: %+v", r)
	}
}
