package scaleout

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/io/input"
)

// wantPhase is a phase as the tests spell it.
type wantPhase struct {
	name  string
	stage int
	tasks int
}

func phasesOf(p *Plan) []wantPhase {
	var got []wantPhase
	for _, ph := range p.Phases {
		got = append(got, wantPhase{ph.Name, ph.Stage, ph.Tasks})
	}
	return got
}

func TestNewPlanShardsBySizeAndMakesPhasesPerGlobalStage(t *testing.T) {
	dir := t.TempDir()
	inputs := scan(t, corpus(t, dir, 6, 40))
	cfg := baseConfig(inputs)
	for _, tasks := range []int{1, 3, 10} {
		out := filepath.Join(dir, fmt.Sprintf("out-%d", tasks))
		p, err := NewPlan(context.Background(), "pipeline.yaml", allPipeline, cfg, out+"/", tasks)
		if err != nil {
			t.Fatal(err)
		}
		// Enough JSONL files stay whole; fewer than tasks are cut at
		// lines. The shards are Split's, by size.
		if tasks <= len(inputs) && !reflect.DeepEqual(p.Inputs, inputs) {
			t.Fatalf("%d tasks: plan inputs %v, want the files as given", tasks, p.Inputs)
		}
		if tasks > len(inputs) && len(p.Inputs) < tasks {
			t.Fatalf("%d tasks: %d plan inputs from %d files, want them cut into at least as many as tasks", tasks, len(p.Inputs), len(inputs))
		}
		if want := Split(p.Inputs, tasks); !reflect.DeepEqual(p.Shards, want) {
			t.Errorf("%d tasks: shards %v, Split gives %v", tasks, p.Shards, want)
		}
		shards := min(tasks, len(p.Inputs))
		if len(p.Shards) != shards {
			t.Errorf("%d tasks: %d shards, want %d", tasks, len(p.Shards), shards)
		}
		// Stages 2, 3 and 4 are global: exact, lines, MinHash (16 bands).
		want := []wantPhase{
			{"s2-exact-map", 2, shards}, {"s2-exact-reduce", 2, tasks},
			{"s3-lines-map", 3, shards}, {"s3-lines-reduce", 3, tasks},
			{"s4-minhash-sign", 4, shards}, {"s4-minhash-bucket", 4, min(tasks, 16)},
			{"s4-minhash-features", 4, shards}, {"s4-minhash-verify", 4, tasks},
			{"s4-minhash-components", 4, 1}, {"s4-minhash-link", 4, tasks},
			{"write", -1, shards}, {"merge", -1, 1},
		}
		if got := phasesOf(p); !reflect.DeepEqual(got, want) {
			t.Errorf("%d tasks: phases\n%v\nwant\n%v", tasks, got, want)
		}
		if p.Out != out || p.PipelineName != "pipeline.yaml" || p.Pipeline != string(allPipeline) {
			t.Errorf("plan out %q, pipeline %q %q", p.Out, p.PipelineName, p.Pipeline)
		}
		if wd, _ := os.Getwd(); p.Dir != wd {
			t.Errorf("plan dir %q, want the working directory %q", p.Dir, wd)
		}
	}

	// No global stage: write and merge only. The JSONL schema is inferred
	// at launch from every row.
	p, err := NewPlan(context.Background(), "plain.yaml", plainPipeline, cfg, filepath.Join(dir, "plain"), 4)
	if err != nil {
		t.Fatal(err)
	}
	if got := phasesOf(p); !reflect.DeepEqual(got, []wantPhase{{"write", -1, 4}, {"merge", -1, 1}}) {
		t.Errorf("plain pipeline phases %v", got)
	}
	if !strings.Contains(p.Settings.Schema, `"text"`) || !strings.Contains(p.Settings.Schema, `"id"`) || p.Settings.SchemaExtra {
		t.Errorf("inferred schema %q (extra %v), want id and text from every row", p.Settings.Schema, p.Settings.SchemaExtra)
	}
	if want := SettingsOf(cfg); p.Settings.Workers != want.Workers || p.Settings.BatchRows != want.BatchRows ||
		!reflect.DeepEqual(p.Settings.Output, want.Output) || p.Settings.TextField != "text" {
		t.Errorf("settings %+v, want those of the configuration %+v", p.Settings, want)
	}

	// Shards follow the bytes: one big file first gets a shard of its own.
	sized := []input.File{{Path: "a.jsonl", Size: 900, Format: input.JSONL}, {Path: "b.jsonl", Size: 100, Format: input.JSONL},
		{Path: "c.jsonl", Size: 100, Format: input.JSONL}, {Path: "d.jsonl", Size: 100, Format: input.JSONL}}
	if got := Split(sized, 2); !reflect.DeepEqual(got, [][2]int{{0, 1}, {1, 4}}) {
		t.Errorf("Split by size: %v", got)
	}
}

func TestNewPlanOverParquetInfersNoSchema(t *testing.T) {
	dir := t.TempDir()
	inputs := scan(t, toParquet(t, corpus(t, dir, 4, 10), dir, 8))
	p, err := NewPlan(context.Background(), "pipeline.yaml", exactPipeline, baseConfig(inputs), filepath.Join(dir, "out"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if p.Settings.Schema != "" {
		t.Errorf("Parquet inputs: schema %q inferred at launch", p.Settings.Schema)
	}
	// As many files as tasks: none is sliced.
	if !reflect.DeepEqual(p.Inputs, inputs) {
		t.Errorf("inputs %v, want the files whole", p.Inputs)
	}
}

func TestNewPlanRefusesWhatItCannotRun(t *testing.T) {
	dir := t.TempDir()
	inputs := scan(t, corpus(t, dir, 2, 5))
	cfg := baseConfig(inputs)
	out := filepath.Join(dir, "out")
	cases := []struct {
		name  string
		text  string
		cfg   func() any
		tasks int
		want  string
	}{
		{"no task", string(exactPipeline), nil, 0, "tasks must be at least 1"},
		{"not YAML", "stages: [", nil, 1, "pipeline.yaml"},
		{"no stages", "output: x\n", nil, 1, "no stages"},
		{"unknown stage", "stages:\n  - dedup_everything: {}\n", nil, 1, "dedup_everything"},
		{"bad parameter", "stages:\n  - dedup_minhash: {thresold: 0.5}\n", nil, 1, "thresold"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := NewPlan(context.Background(), "pipeline.yaml", []byte(c.text), cfg, out, c.tasks)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("NewPlan: %v, %v; want an error with %q", p, err, c.want)
			}
		})
	}
}

func TestPlanReadBackEqualsTheOneWritten(t *testing.T) {
	dir := t.TempDir()
	in := corpus(t, dir, 3, 10)
	for _, inputs := range [][]input.File{scan(t, in), scan(t, toParquet(t, in, dir, 4))} {
		p, err := NewPlan(context.Background(), "pipeline.yaml", allPipeline, baseConfig(inputs), filepath.Join(dir, "out"), 5)
		if err != nil {
			t.Fatal(err)
		}
		p.Version, p.Binary, p.Command = "v1.2.3", "/usr/bin/sluice", []string{"sluice", "launch", "pipeline.yaml"}
		path := filepath.Join(dir, "out", PlanFile)
		if err := p.WritePlan(path); err != nil {
			t.Fatal(err)
		}
		back, err := ReadPlan(path)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, p) {
			a, _ := json.Marshal(p)
			b, _ := json.Marshal(back)
			t.Fatalf("plan read back differs:\n%s\nwritten:\n%s", b, a)
		}
		if stray, _ := filepath.Glob(filepath.Join(dir, "out", ".*tmp*")); len(stray) > 0 {
			t.Errorf("WritePlan left %v", stray)
		}
	}
}

func TestReadPlanRefusesWhatIsNotAPlan(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadPlan(filepath.Join(dir, "missing.json")); !os.IsNotExist(err) {
		t.Errorf("missing plan: %v, want not exist", err)
	}
	for name, text := range map[string]string{
		"garbage.json": "{not json",
		"empty.json":   "{}",
		"nophase.json": `{"shards": [[0, 1]], "phases": []}`,
		"noshard.json": `{"phases": [{"name": "merge", "kind": "merge", "tasks": 1}]}`,
	} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(text), 0o644)
		if p, err := ReadPlan(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, %v; want an error naming the file", name, p, err)
		}
	}
}

func TestPlanPhaseFindsPhasesByName(t *testing.T) {
	dir := t.TempDir()
	p, err := NewPlan(context.Background(), "pipeline.yaml", exactPipeline, baseConfig(scan(t, corpus(t, dir, 3, 5))), dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range p.Phases {
		got, err := p.Phase(want.Name)
		if err != nil || got != want {
			t.Errorf("Phase(%q) = %v, %v; want %v", want.Name, got, err, want)
		}
	}
	_, err = p.Phase("s9-exact-map")
	if err == nil || !strings.Contains(err.Error(), `"s9-exact-map"`) || !strings.Contains(err.Error(), "s2-exact-reduce") {
		t.Errorf("unknown phase: %v, want an error naming it and the plan's phases", err)
	}
}

func TestRunTaskRefusesBadTasksAndPhasesOutOfOrder(t *testing.T) {
	dir := t.TempDir()
	p, _ := newPlan(t, exactPipeline, baseConfig(scan(t, corpus(t, dir, 3, 5))), filepath.Join(dir, "out"), 2)
	ctx := context.Background()
	if _, err := RunTask(ctx, p, "no-such-phase", 0, testVersion, ""); err == nil || !strings.Contains(err.Error(), "no-such-phase") {
		t.Errorf("unknown phase: %v", err)
	}
	for _, i := range []int{-1, 2} {
		if ran, err := RunTask(ctx, p, "s2-exact-map", i, testVersion, ""); ran || err == nil || !strings.Contains(err.Error(), "tasks 0 to 1") {
			t.Errorf("task %d of 2: ran %v, %v", i, ran, err)
		}
	}
	// The reduce needs every map task done.
	runPhases(t, p, []Phase{{Name: "s2-exact-map", Tasks: 1}})
	ran, err := RunTask(ctx, p, "s2-exact-reduce", 0, testVersion, "")
	if ran || err == nil || !strings.Contains(err.Error(), "needs phase s2-exact-map complete") || !strings.Contains(err.Error(), "1 of its 2") {
		t.Errorf("reduce before the map is complete: ran %v, %v", ran, err)
	}
	if _, err := RunTask(ctx, p, "merge", 0, testVersion, ""); err == nil || !strings.Contains(err.Error(), "needs phase") {
		t.Errorf("merge first: %v", err)
	}
}

// A plan that lacks a phase its stages need (edited, or written by
// another version) must make the tasks fail with an error, not crash.
func TestPlanMissingAPhaseGivesAnError(t *testing.T) {
	for _, drop := range []string{"s2-exact-reduce", "s0-minhash-link"} {
		t.Run(drop, func(t *testing.T) {
			dir := t.TempDir()
			text := exactPipeline
			if strings.HasPrefix(drop, "s0-minhash") {
				text = minhashPipeline
			}
			p, err := NewPlan(context.Background(), "pipeline.yaml", text, baseConfig(scan(t, corpus(t, dir, 2, 10))), filepath.Join(dir, "out"), 2)
			if err != nil {
				t.Fatal(err)
			}
			var kept []Phase
			for _, ph := range p.Phases {
				if ph.Name != drop {
					kept = append(kept, ph)
				}
			}
			if len(kept) == len(p.Phases) {
				t.Fatalf("the plan has no phase %s: %v", drop, p.Phases)
			}
			p.Phases = kept
			path := filepath.Join(dir, "out", PlanFile)
			if err := p.WritePlan(path); err != nil {
				t.Fatal(err)
			}
			p, err = ReadPlan(path)
			if err != nil {
				if !strings.Contains(err.Error(), drop[len("s0-"):]) {
					t.Errorf("ReadPlan: %v, want an error naming the missing phase", err)
				}
				return // refused when read: fine
			}
			var failed error
			for _, ph := range p.Phases {
				for i := 0; i < ph.Tasks && failed == nil; i++ {
					var panicked any
					func() {
						defer func() { panicked = recover() }()
						_, failed = RunTask(context.Background(), p, ph.Name, i, testVersion, "")
					}()
					if panicked != nil {
						t.Fatalf("RunTask(%s, %d) of a plan without %s panicked: %v", ph.Name, i, drop, panicked)
					}
				}
			}
			if failed == nil {
				t.Fatalf("every task of a plan without %s succeeded", drop)
			}
		})
	}
}
