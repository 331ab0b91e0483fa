package k8s

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

// buildSluice builds the sluice binary from the repository root.
func buildSluice(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "sluice")
	cmd := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build in %s: %v\n%s", root, err, out)
	}
	return bin
}

func TestLaunchWritesJobsTheAPIAccepts(t *testing.T) {
	bin := buildSluice(t)
	dir := t.TempDir()
	var corpus bytes.Buffer
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&corpus, "{\"id\":\"d%d\",\"text\":\"document %d says something about the river and the sea number %d\"}\n", i, i, i%7)
	}
	for f := 0; f < 4; f++ {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("in-%d.jsonl", f)), corpus.Bytes(), 0o644)
	}
	pipeline := filepath.Join(dir, "pipeline.yaml")
	os.WriteFile(pipeline, []byte("input: ["+dir+"/in-*.jsonl]\nstages:\n  - normalize: {}\n  - dedup_exact: {}\n  - tokens: {}\n"), 0o644)
	out := filepath.Join(dir, "out")
	cmd := exec.CommandContext(t.Context(), bin, "launch", pipeline, "-o", out, "--tasks", "4", "--executor", "k8s",
		"--k8s-image", "registry.example/sluice:0.1", "--k8s-claim", "corpus", "--k8s-namespace", "data",
		"--k8s-cpu", "2", "--k8s-mem", "8Gi", "--max-parallel", "3", "--k8s-mount", dir)
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("sluice launch: %v\n%s", err, stdout)
	}
	manifests, _ := filepath.Glob(filepath.Join(out, "_jobs", "*.yaml"))
	if len(manifests) < 2 {
		t.Fatalf("%d Job manifests written: %v\n%s", len(manifests), manifests, stdout)
	}
	plan, err := filepath.Abs(filepath.Join(out, "_plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range manifests {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var job batchv1.Job
		if err := yaml.UnmarshalStrict(data, &job); err != nil {
			t.Fatalf("%s is not a batch/v1 Job: %v\n%s", path, err, data)
		}
		spec := job.Spec
		pod := spec.Template.Spec
		if job.APIVersion != "batch/v1" || job.Kind != "Job" || job.Namespace != "data" {
			t.Errorf("%s: %s %s in %q", path, job.APIVersion, job.Kind, job.Namespace)
		}
		if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion || spec.Completions == nil ||
			spec.Parallelism == nil || *spec.Parallelism > 3 || *spec.Parallelism > *spec.Completions {
			t.Errorf("%s: completion %v, completions %v, parallelism %v", path, spec.CompletionMode, spec.Completions, spec.Parallelism)
		}
		if spec.BackoffLimitPerIndex == nil || pod.RestartPolicy != "Never" {
			t.Errorf("%s: backoffLimitPerIndex %v with restart policy %q (per-index retries need Never)", path, spec.BackoffLimitPerIndex, pod.RestartPolicy)
		}
		if len(pod.Containers) != 1 || len(pod.Volumes) != 1 {
			t.Fatalf("%s: %d containers, %d volumes", path, len(pod.Containers), len(pod.Volumes))
		}
		c := pod.Containers[0]
		args := strings.Join(c.Args, " ")
		if c.Image != "registry.example/sluice:0.1" || !strings.Contains(args, "sluice task "+plan+" --phase ") || !strings.Contains(args, "$JOB_COMPLETION_INDEX") {
			t.Errorf("%s: image %s runs %q", path, c.Image, args)
		}
		if pod.Volumes[0].PersistentVolumeClaim == nil || pod.Volumes[0].PersistentVolumeClaim.ClaimName != "corpus" ||
			len(c.VolumeMounts) != 1 || c.VolumeMounts[0].Name != pod.Volumes[0].Name || c.VolumeMounts[0].MountPath != dir {
			t.Errorf("%s: volumes %+v mounted %+v; the output %s must be on the claim", path, pod.Volumes, c.VolumeMounts, out)
		}
		cpu, mem := c.Resources.Requests["cpu"], c.Resources.Requests["memory"]
		if cpu.String() != "2" || mem.String() != "8Gi" || c.Resources.Limits.Memory().String() != "8Gi" {
			t.Errorf("%s: resources %+v", path, c.Resources)
		}
	}
}
