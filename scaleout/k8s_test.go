package scaleout

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/internal/testenv"
	"go.yaml.in/yaml/v3"
)

// Settings the Jobs cannot run with are refused together, before
// anything is written.
func TestK8sOptionsAreCheckedFirst(t *testing.T) {
	p, planPath, _ := smallPlan(t)
	err := K8sOptions{Namespace: "Data_1", CPU: "two", Mem: "4 GB"}.Check()
	for _, want := range []string{"--k8s-image", "--k8s-claim", "--k8s-namespace", "--k8s-cpu", "--k8s-mem"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not name %s: %v", want, err)
		}
	}
	if _, err := K8sManifests(p, planPath, K8sOptions{Image: "img"}); err == nil || !strings.Contains(err.Error(), "shared volume") {
		t.Errorf("a Job without shared storage: %v", err)
	}
	if jobs, _ := filepath.Glob(filepath.Join(p.Out, "_jobs", "*")); len(jobs) != 0 {
		t.Errorf("refused options wrote %v", jobs)
	}
	if err := (K8sOptions{MountPath: "/mnt/elsewhere"}).CheckPaths(p); err == nil || !strings.Contains(err.Error(), "outside /mnt/elsewhere") {
		t.Errorf("an output and inputs off the claim: %v", err)
	}
	if err := (K8sOptions{Image: "img", Claim: "corpus.pvc-1", CPU: "500m", Mem: "8Gi"}).Check(); err != nil {
		t.Errorf("valid options refused: %v", err)
	}
	// An object-store output needs no claim; a Secret must be a name.
	if err := (K8sOptions{Image: "img", ObjectStore: true, Secret: "s3-creds"}).Check(); err != nil {
		t.Errorf("a bucket output without a claim refused: %v", err)
	}
	if err := (K8sOptions{Image: "img", ObjectStore: true, Secret: "S3 creds"}).Check(); err == nil || !strings.Contains(err.Error(), "--k8s-secret") {
		t.Errorf("a Secret that is no Kubernetes name: %v", err)
	}
}

// readJob decodes a written manifest strictly into the Job fields the
// manifests set: an unknown or misspelt field fails.
func readJob(t *testing.T, path string) k8sJob {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var j k8sJob
	if err := dec.Decode(&j); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, b)
	}
	return j
}

func TestK8sManifestsOneIndexedJobAPhase(t *testing.T) {
	p, planPath, dir := smallPlan(t)
	p.Binary = "/usr/local/bin/sluice"
	o := K8sOptions{Image: "registry.example/sluice:1", Namespace: "data", Claim: "corpus-pvc", Parallelism: 2, CPU: "2", Mem: "4Gi", MountPath: dir}
	paths, err := K8sManifests(p, planPath, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != len(p.Phases)+1 || filepath.Base(paths[len(paths)-1]) != "k8s-apply.sh" {
		t.Fatalf("paths %v: want a manifest a phase and k8s-apply.sh", paths)
	}
	apply, _ := os.ReadFile(paths[len(paths)-1])
	var names []string
	at := -1
	for k, ph := range p.Phases {
		j := readJob(t, paths[k])
		names = append(names, j.Metadata.Name)
		if !dnsLabel.MatchString(j.Metadata.Name) || !strings.HasPrefix(j.Metadata.Name, fmt.Sprintf("sluice-%02d-", k)) {
			t.Errorf("%s: job name %q is not a DNS label of the phase", ph.Name, j.Metadata.Name)
		}
		c := j.Template().Containers[0]
		got := []any{j.APIVersion, j.Kind, j.Metadata.Namespace, j.Spec.CompletionMode, j.Spec.Completions, j.Spec.Parallelism,
			j.Spec.Template.Spec.RestartPolicy, c.Image, c.WorkingDir, c.Resources.Requests["cpu"], c.Resources.Requests["memory"],
			c.Resources.Limits["memory"], c.VolumeMounts[0].MountPath, j.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName}
		want := []any{"batch/v1", "Job", "data", "Indexed", ph.Tasks, min(ph.Tasks, 2),
			"Never", o.Image, p.Dir, "2", "4Gi", "4Gi", dir, "corpus-pvc"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: fields %v, want %v", ph.Name, got, want)
		}
		if want := fmt.Sprintf(`exec %s task %s --phase %s --index "$JOB_COMPLETION_INDEX"`, p.Binary, planPath, ph.Name); len(c.Args) != 1 || c.Args[0] != want {
			t.Errorf("%s: the container runs %q, want %q", ph.Name, c.Args, want)
		}
		// Applied in phase order.
		line := fmt.Sprintf("run_phase %s %s %s\n", j.Metadata.Name, paths[k], ph.Name)
		i := strings.Index(string(apply), line)
		if i <= at {
			t.Errorf("k8s-apply.sh lacks %q after the phase before:\n%s", line, apply)
		}
		at = i
	}
	if len(slices.Compact(slices.Sorted(slices.Values(names)))) != len(names) {
		t.Errorf("job names repeat: %v", names)
	}
	if !strings.Contains(string(apply), "kubectl get -n data") {
		t.Errorf("k8s-apply.sh does not use the namespace:\n%s", apply)
	}
}

// Template returns the pod spec of the job's template.
func (j k8sJob) Template() k8sPod { return j.Spec.Template.Spec }

// A relaunch after a phase completed writes no Job for it.
func TestK8sManifestsLeaveOutCompletePhases(t *testing.T) {
	p, planPath, dir := smallPlan(t)
	runPhases(t, p, p.Phases[:1])
	paths, err := K8sManifests(p, planPath, K8sOptions{Image: "img", Claim: "pvc", MountPath: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != len(p.Phases) {
		t.Fatalf("%d files for %d phases, one complete: %v", len(paths), len(p.Phases), paths)
	}
	if j := readJob(t, paths[0]); !strings.HasSuffix(j.Metadata.Name, dnsName(p.Phases[1].Name)) {
		t.Errorf("first Job %s, want the second phase's", j.Metadata.Name)
	}
}

// fakeKubectl is a kubectl for the apply script: Jobs are files in $STATE
// holding their true conditions; a Job applied while $STATE/fail-NAME
// exists fails, else it completes. Every call is logged to $STATE/calls.
const fakeKubectl = `
echo "$*" >> "$STATE/calls"
while [ "$1" = -n ]; do shift 2; done
verb=$1; shift
[ "${1:-}" = -n ] && shift 2
case $verb in
get) job=${1#job/}; [ -f "$STATE/$job" ] || exit 1
  case "$*" in *failedIndexes*) echo 1;; *) cat "$STATE/$job";; esac ;;
apply) file=$2; job=$(sed -n 's/^    name: //p' "$file" | head -n 1)
  if [ -f "$STATE/fail-$job" ]; then echo "Failed " > "$STATE/$job"; else echo "Complete " > "$STATE/$job"; fi ;;
delete) rm -f "$STATE/${1#job/}" ;;
esac
`

// The apply script runs the phases in order, stops with the failed phase
// and how to see its logs when a Job fails, and on a second run skips the
// Jobs that completed and replaces the one that failed.
func TestK8sApplyScriptStopsAtAFailedJobAndReplacesIt(t *testing.T) {
	sh := testenv.Require(t, "sh")
	p, planPath, dir := smallPlan(t)
	paths, err := K8sManifests(p, planPath, K8sOptions{Image: "img", Claim: "pvc", Namespace: "ns", MountPath: dir})
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin")
	writeScript(t, filepath.Join(bin, "kubectl"), fakeKubectl)
	state := filepath.Join(dir, "state")
	os.MkdirAll(state, 0o755)
	second := readJob(t, paths[1]).Metadata.Name
	os.WriteFile(filepath.Join(state, "fail-"+second), nil, 0o644)
	run := func() (string, error) {
		cmd := exec.Command(sh, paths[len(paths)-1])
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "STATE="+state, "SLUICE_K8S_POLL=0")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run()
	if err == nil || !strings.Contains(out, second+" failed") || !strings.Contains(out, "kubectl logs -n ns -l job-name="+second) {
		t.Fatalf("a failed Job: err %v, output:\n%s", err, out)
	}
	calls, _ := os.ReadFile(filepath.Join(state, "calls"))
	if applies := strings.Count(string(calls), "apply"); applies != 2 {
		t.Errorf("%d Jobs applied before the failure stopped the script, want 2:\n%s", applies, calls)
	}
	os.Remove(filepath.Join(state, "fail-"+second))
	os.Remove(filepath.Join(state, "calls"))
	if out, err := run(); err != nil || !strings.Contains(out, "every phase complete") {
		t.Fatalf("second run: err %v, output:\n%s", err, out)
	}
	calls, _ = os.ReadFile(filepath.Join(state, "calls"))
	if c := string(calls); strings.Count(c, "apply") != len(p.Phases)-1 || !strings.Contains(c, "delete -n ns job/"+second) {
		t.Errorf("second run: want the failed Job deleted and every phase but the first applied:\n%s", c)
	}
}
