package scaleout

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sluice-data/sluice/io/blob"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/layout"
)

// The folder a launch writes: what it may resume, start over or refuse.

// PreparePlanDir lets a launch resume an output that holds the same plan,
// starts over with --overwrite (removing only what a launch or a sluice
// run wrote there), and refuses anything else.
func PreparePlanDir(plan *Plan, planPath string, overwrite bool) error {
	dir := filepath.Dir(planPath)
	if plan.IsRemote() {
		dir = blob.Dir(planPath)
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() && !plan.IsRemote() {
		return dataset.Refusef("%s: is a file, not a folder: a launch writes a dataset directory there; choose another output", dir)
	}
	old, err := ReadPlan(planPath)
	switch {
	case err == nil && !overwrite:
		if !samePlan(old, plan) {
			return dataset.Refusef("%s: holds a different plan (other inputs, pipeline, settings or --tasks); use --overwrite to start over", dir)
		}
		return nil
	case err == nil:
		return Clear(dir)
	case !errors.Is(err, os.ErrNotExist):
		return err
	case plan.IsRemote():
		return prepareBucketPrefix(dir, overwrite)
	}
	if err := RefuseForeignDir(dir); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(entries) == 0) {
		return os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return err
	}
	if !overwrite {
		return fmt.Errorf("%s: %w", dir, dataset.ErrExists)
	}
	return dataset.Remove(filepath.Join(dir, layout.ManifestName))
}

// RefuseForeignDir refuses, before any work, a launch into a local folder
// that holds files and is neither a launch's (no plan) nor a sluice
// dataset: a folder sluice did not write.
func RefuseForeignDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		return nil // missing (made by the launch) or unreadable (said when written)
	}
	if _, err := os.Stat(filepath.Join(dir, PlanFile)); err == nil {
		return nil
	}
	if layout.DirKind(dir) != layout.Dataset {
		return dataset.Refusef("%s: exists and is not a sluice dataset; refusing to write into it", dir)
	}
	return nil
}

// prepareBucketPrefix lets a launch write under an object-store prefix
// without a plan: an empty one, or with --overwrite a sluice dataset
// (removing only what its manifest lists and a launch writes).
func prepareBucketPrefix(dir string, overwrite bool) error {
	ctx := context.Background()
	objs, err := blob.List(ctx, dir+"/")
	if err != nil || len(objs) == 0 {
		return err
	}
	manifest := blob.Join(dir, layout.ManifestName)
	if _, err := dataset.ReadManifestAt(manifest); err != nil {
		return dataset.Refusef("%s: holds objects and is not a sluice dataset; refusing to write into it", dir)
	}
	if !overwrite {
		return fmt.Errorf("%s: %w", dir, dataset.ErrExists)
	}
	return Clear(dir)
}

// samePlan reports whether two plans would do the same work.
func samePlan(a, b *Plan) bool {
	key := func(p *Plan) []byte {
		c := *p
		// Whether to keep the work or spill changes how, not what: either
		// way the phases give the same output.
		c.Command, c.Binary, c.Version, c.KeepWork, c.NoSpill, c.Started = nil, "", "", false, false, ""
		j, _ := json.Marshal(c)
		return j
	}
	return bytes.Equal(key(a), key(b))
}
