package scaleout

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sluice-data/sluice/io/dataset"
)

// A launch's folder: a new or empty one is made, the same plan resumes,
// another plan needs --overwrite, and a user's folder or a file is never
// written into.
func TestPreparePlanDir(t *testing.T) {
	dir := t.TempDir()
	plan := func(out, pipeline string) *Plan {
		return &Plan{Out: out, Pipeline: pipeline, Binary: "sluice", Shards: [][2]int{{0, 1}},
			Phases: []Phase{{Name: string(Write), Kind: Write, Stage: -1, Tasks: 1}}}
	}
	planPath := func(out string) string { return filepath.Join(dir, out, PlanFile) }

	if err := PreparePlanDir(plan("new", "a"), planPath("new"), false); err != nil {
		t.Fatalf("a new folder: %v", err)
	}
	if st, err := os.Stat(filepath.Join(dir, "new")); err != nil || !st.IsDir() {
		t.Fatalf("a new folder was not made: %v", err)
	}
	if err := plan("new", "a").WritePlan(planPath("new")); err != nil {
		t.Fatal(err)
	}
	resumed := plan("new", "a")
	resumed.Binary = "/elsewhere/sluice" // how, not what
	if err := PreparePlanDir(resumed, planPath("new"), false); err != nil {
		t.Errorf("the same plan: %v", err)
	}
	if err := PreparePlanDir(plan("new", "b"), planPath("new"), false); !errors.Is(err, dataset.ErrRefused) {
		t.Errorf("another plan without --overwrite: %v, want a refusal", err)
	}

	user := filepath.Join(dir, "user")
	os.MkdirAll(user, 0o755)
	os.WriteFile(filepath.Join(user, "notes.txt"), []byte("mine"), 0o644)
	for _, overwrite := range []bool{false, true} {
		if err := PreparePlanDir(plan("user", "a"), planPath("user"), overwrite); !errors.Is(err, dataset.ErrRefused) {
			t.Errorf("a user's folder (overwrite %v): %v, want a refusal", overwrite, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(user, "notes.txt")); err != nil || string(b) != "mine" {
		t.Errorf("the user's file: %q, %v", b, err)
	}

	os.WriteFile(filepath.Join(dir, "afile"), []byte("mine"), 0o644)
	if err := PreparePlanDir(plan("afile", "a"), planPath("afile"), true); !errors.Is(err, dataset.ErrRefused) {
		t.Errorf("a file: %v, want a refusal", err)
	}
}
