package scaleout

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/sluice-data/sluice/io/blob"
	"github.com/sluice-data/sluice/io/dataset"
	"go.yaml.in/yaml/v3"
)

// K8sOptions are the settings of the Kubernetes Indexed Jobs.
type K8sOptions struct {
	Image     string // container image with the sluice binary (required)
	Namespace string // metadata.namespace, when set
	// Claim is a PersistentVolumeClaim mounted at the plan's directory, so
	// that pods see the inputs and the output at the paths the plan names
	// (required unless the output is in an object store: tasks share their
	// files through it).
	Claim string
	// Secret names a Secret whose keys become the pods' environment
	// (envFrom), e.g. AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY for an
	// s3:// output.
	Secret string
	// ObjectStore tells that the output is an object-store URL: the tasks
	// share their files through it, and no claim is needed.
	ObjectStore bool
	Parallelism int    // pods at once, when above 0
	CPU         string // resources.requests.cpu, when set
	Mem         string // resources.requests.memory (and limit), when set
	// MountPath is where the claim is mounted, on this machine and in the
	// pods; the plan's directory when empty.
	MountPath string
}

// mountPath returns where the claim is mounted for plan p.
func (o K8sOptions) mountPath(p *Plan) string {
	if o.MountPath != "" {
		return o.MountPath
	}
	return p.Dir
}

// CheckPaths reports the plan's paths that pods would not see: the
// output and the inputs must be under the claim's mount path.
func (o K8sOptions) CheckPaths(p *Plan) error {
	if p.IsRemote() && o.Claim == "" {
		// No volume: the pods read the inputs from the object store.
		var errs []error
		for _, in := range p.Inputs {
			if !blob.IsURL(in.Path) && len(errs) < 5 {
				errs = append(errs, fmt.Errorf("%s is a local file and no --k8s-claim is mounted: pods would not see it (put the inputs in the bucket too, or give --k8s-claim)", in.Path))
			}
		}
		return errors.Join(errs...)
	}
	mount := o.mountPath(p)
	if !filepath.IsAbs(mount) {
		return fmt.Errorf("--k8s-mount %s: give an absolute path", mount)
	}
	var paths []string
	if !p.IsRemote() {
		paths = append(paths, p.Out)
	}
	for _, in := range p.Inputs {
		if !blob.IsURL(in.Path) {
			paths = append(paths, in.Path)
		}
	}
	var errs []error
	for _, path := range paths {
		if !filepath.IsAbs(path) {
			path = filepath.Join(p.Dir, path)
		}
		if rel, err := filepath.Rel(mount, path); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			errs = append(errs, fmt.Errorf("%s is outside %s, where the claim is mounted: pods would not see it (run launch from the claim's mount point, or give --k8s-mount)", path, mount))
		}
		if len(errs) == 5 {
			break
		}
	}
	return errors.Join(errs...)
}

var (
	dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	quantity = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$`)
)

// Check reports every setting the Jobs cannot run with, before anything
// is written: the image and the claim are required, names must be
// Kubernetes names and resources Kubernetes quantities.
func (o K8sOptions) Check() error {
	var errs []error
	if o.Image == "" {
		errs = append(errs, errors.New("--k8s-image: give the container image that holds the sluice binary"))
	}
	switch {
	case o.Claim == "" && o.ObjectStore:
	case o.Claim == "":
		errs = append(errs, errors.New("--k8s-claim: give the PersistentVolumeClaim that holds the inputs and the output; the tasks of a launch share their files, so pods need a shared volume"))
	case !dnsLabel.MatchString(o.Claim) && !validSubdomain(o.Claim):
		errs = append(errs, fmt.Errorf("--k8s-claim %q: not a Kubernetes object name (lowercase letters, digits, - and .)", o.Claim))
	}
	if o.Secret != "" && !validSubdomain(o.Secret) {
		errs = append(errs, fmt.Errorf("--k8s-secret %q: not a Kubernetes object name (lowercase letters, digits, - and .)", o.Secret))
	}
	if o.Namespace != "" && !dnsLabel.MatchString(o.Namespace) {
		errs = append(errs, fmt.Errorf("--k8s-namespace %q: not a Kubernetes namespace name (lowercase letters, digits and -, at most 63)", o.Namespace))
	}
	if o.CPU != "" && !quantity.MatchString(o.CPU) {
		errs = append(errs, fmt.Errorf("--k8s-cpu %q: not a Kubernetes quantity (e.g. 2, 500m)", o.CPU))
	}
	if o.Mem != "" && !quantity.MatchString(o.Mem) {
		errs = append(errs, fmt.Errorf("--k8s-mem %q: not a Kubernetes quantity (e.g. 8Gi, 512Mi)", o.Mem))
	}
	return errors.Join(errs...)
}

func validSubdomain(s string) bool {
	if len(s) > 253 {
		return false
	}
	for _, part := range strings.Split(s, ".") {
		if !dnsLabel.MatchString(part) {
			return false
		}
	}
	return true
}

// The parts of a batch/v1 Job that the manifests set, named as the API
// names them.
type (
	k8sJob struct {
		APIVersion string     `yaml:"apiVersion"`
		Kind       string     `yaml:"kind"`
		Metadata   k8sMeta    `yaml:"metadata"`
		Spec       k8sJobSpec `yaml:"spec"`
	}
	k8sMeta struct {
		Name      string            `yaml:"name"`
		Namespace string            `yaml:"namespace,omitempty"`
		Labels    map[string]string `yaml:"labels,omitempty"`
	}
	k8sJobSpec struct {
		CompletionMode       string      `yaml:"completionMode"`
		Completions          int         `yaml:"completions"`
		Parallelism          int         `yaml:"parallelism"`
		BackoffLimitPerIndex int         `yaml:"backoffLimitPerIndex"`
		MaxFailedIndexes     int         `yaml:"maxFailedIndexes"`
		Template             k8sTemplate `yaml:"template"`
	}
	k8sTemplate struct {
		Metadata k8sMeta `yaml:"metadata"`
		Spec     k8sPod  `yaml:"spec"`
	}
	k8sPod struct {
		RestartPolicy string         `yaml:"restartPolicy"`
		Containers    []k8sContainer `yaml:"containers"`
		Volumes       []k8sVolume    `yaml:"volumes,omitempty"`
	}
	k8sContainer struct {
		Name         string        `yaml:"name"`
		Image        string        `yaml:"image"`
		WorkingDir   string        `yaml:"workingDir,omitempty"`
		Command      []string      `yaml:"command"`
		Args         []string      `yaml:"args"`
		Env          []k8sEnv      `yaml:"env,omitempty"`
		EnvFrom      []k8sEnvFrom  `yaml:"envFrom,omitempty"`
		Resources    *k8sResources `yaml:"resources,omitempty"`
		VolumeMounts []k8sMount    `yaml:"volumeMounts,omitempty"`
	}
	k8sEnv struct {
		Name  string `yaml:"name"`
		Value string `yaml:"value"`
	}
	k8sEnvFrom struct {
		SecretRef k8sSecretRef `yaml:"secretRef"`
	}
	k8sSecretRef struct {
		Name string `yaml:"name"`
	}
	k8sResources struct {
		Requests map[string]string `yaml:"requests,omitempty"`
		Limits   map[string]string `yaml:"limits,omitempty"`
	}
	k8sMount struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	}
	k8sVolume struct {
		Name                  string   `yaml:"name"`
		PersistentVolumeClaim k8sClaim `yaml:"persistentVolumeClaim"`
	}
	k8sClaim struct {
		ClaimName string `yaml:"claimName"`
	}
)

// K8sManifests writes one Indexed Job manifest per phase not yet complete
// into OUT/_jobs/ and OUT/_jobs/k8s-apply.sh, which applies them in order:
// it skips a phase whose Job completed, deletes and recreates one that
// failed, waits for each to complete, and stops with the phase, the
// failed indexes and how to see their logs when a Job fails. A pod runs
// task $JOB_COMPLETION_INDEX of its phase. Complete phases are left out,
// so a relaunch applies only what is left.
//
// For an object-store output the files go to a local folder instead,
// k8s-<bucket>-<prefix>/ in the launch's directory, for kubectl to read.
func K8sManifests(p *Plan, planPath string, o K8sOptions) ([]string, error) {
	o.ObjectStore = o.ObjectStore || p.IsRemote()
	if err := errors.Join(o.Check(), o.CheckPaths(p)); err != nil {
		return nil, err
	}
	status := Status(p)
	var paths []string
	ns := ""
	if o.Namespace != "" {
		ns = " -n " + o.Namespace
	}
	var script strings.Builder
	script.WriteString(k8sApplyHeader)
	for k, ph := range p.Phases {
		name := dnsName(fmt.Sprintf("sluice-%02d-%s", k, ph.Name))
		if status[k].State() == "complete" {
			fmt.Fprintf(&script, "echo %s: complete\n", shellQuote(ph.Name))
			continue
		}
		job := k8sJobOf(p, planPath, o, ph, name)
		b, err := yaml.Marshal(job)
		if err != nil {
			return nil, err
		}
		path := filepath.Join(k8sDir(p), fmt.Sprintf("%02d-%s.yaml", k, ph.Name))
		if err := dataset.WriteFile(path, b); err != nil {
			return nil, err
		}
		paths = append(paths, path)
		fmt.Fprintf(&script, "run_phase %s %s %s\n", shellQuote(name), shellQuote(path), shellQuote(ph.Name))
	}
	fmt.Fprintf(&script, "echo \"every phase complete; see: sluice status %s\"\n", shellQuote(p.Out))
	text := strings.ReplaceAll(script.String(), "$NS", ns)
	text = strings.ReplaceAll(text, "$OUT", shellQuote(p.Out))
	path := filepath.Join(k8sDir(p), "k8s-apply.sh")
	if err := dataset.WriteFile(path, []byte(text)); err != nil {
		return nil, err
	}
	return append(paths, path), nil
}

// k8sDir is where the manifests are written: OUT/_jobs, or for an
// object-store output k8s-<bucket>-<prefix>/ in the launch's directory.
func k8sDir(p *Plan) string {
	if p.IsRemote() {
		return filepath.Join(p.Dir, dnsName("k8s-"+strings.TrimPrefix(p.Out[strings.Index(p.Out, "://")+3:], "/")))
	}
	return p.absPath("_jobs")
}

func k8sJobOf(p *Plan, planPath string, o K8sOptions, ph Phase, name string) k8sJob {
	par := ph.Tasks
	if o.Parallelism > 0 {
		par = min(par, o.Parallelism)
	}
	c := k8sContainer{Name: "task", Image: o.Image, WorkingDir: p.Dir, Command: []string{"sh", "-c"},
		Args: []string{fmt.Sprintf(`exec %s task %s --phase %s --index "$JOB_COMPLETION_INDEX"`,
			shellQuote(p.Binary), shellQuote(planPath), ph.Name)},
		VolumeMounts: []k8sMount{{Name: "data", MountPath: o.mountPath(p)}}}
	volumes := []k8sVolume{{Name: "data", PersistentVolumeClaim: k8sClaim{ClaimName: o.Claim}}}
	if o.Claim == "" { // an object-store output: no volume, no directory of the launch's
		c.WorkingDir, c.VolumeMounts, volumes = "", nil, nil
	}
	if o.Secret != "" {
		c.EnvFrom = []k8sEnvFrom{{SecretRef: k8sSecretRef{Name: o.Secret}}}
	}
	if e := blob.Endpoint(); e != "" && p.IsRemote() {
		c.Env = append(c.Env, k8sEnv{Name: "AWS_ENDPOINT_URL", Value: e})
	}
	if o.CPU != "" || o.Mem != "" {
		c.Resources = &k8sResources{Requests: map[string]string{}}
		if o.CPU != "" {
			c.Resources.Requests["cpu"] = o.CPU
		}
		if o.Mem != "" {
			c.Resources.Requests["memory"] = o.Mem
			c.Resources.Limits = map[string]string{"memory": o.Mem}
		}
	}
	labels := map[string]string{"app.kubernetes.io/name": "sluice", "sluice.dev/phase": dnsName(ph.Name)}
	return k8sJob{APIVersion: "batch/v1", Kind: "Job",
		Metadata: k8sMeta{Name: name, Namespace: o.Namespace, Labels: labels},
		Spec: k8sJobSpec{CompletionMode: "Indexed", Completions: ph.Tasks, Parallelism: par,
			BackoffLimitPerIndex: 3, MaxFailedIndexes: ph.Tasks,
			Template: k8sTemplate{Metadata: k8sMeta{Labels: labels},
				Spec: k8sPod{RestartPolicy: "Never", Containers: []k8sContainer{c},
					Volumes: volumes}}}}
}

// k8sApplyHeader is the start of k8s-apply.sh: run_phase NAME FILE PHASE
// applies a phase's Job unless it completed, replaces it when it failed,
// and waits until it completes or fails.
const k8sApplyHeader = `#!/bin/sh
# Applies the phases of a launch in order, each after the one before
# completed. A Job that completed is skipped, one that failed is deleted
# and created again; a Job that fails stops the script (exit 1).
set -eu
poll="${SLUICE_K8S_POLL:-10}"

job_state() { # prints complete, failed, running or absent
  if ! out=$(kubectl get$NS "job/$1" -o 'jsonpath={range .status.conditions[?(@.status=="True")]}{.type}{" "}{end}' 2>/dev/null); then
    echo absent; return
  fi
  case " $out " in
    *" Complete "*) echo complete ;;
    *" Failed "*) echo failed ;;
    *) echo running ;;
  esac
}

run_phase() {
  name=$1 file=$2 phase=$3
  case $(job_state "$name") in
    complete) echo "$phase: complete"; return ;;
    failed) echo "$phase: the Job failed before; deleting it to run the phase again"
      kubectl delete$NS "job/$name" --wait=true ;;
  esac
  kubectl apply$NS -f "$file"
  while :; do
    case $(job_state "$name") in
      complete) echo "$phase: complete"; return ;;
      failed)
        failed=$(kubectl get$NS "job/$name" -o 'jsonpath={.status.failedIndexes}' 2>/dev/null || true)
        echo "$phase: the Job $name failed (failed indexes: ${failed:-unknown})." >&2
        echo "  its logs: kubectl logs$NS -l job-name=$name --prefix; the tasks' state: sluice status $OUT" >&2
        echo "  fix the cause and launch again: finished tasks are kept, failed ones rerun." >&2
        exit 1 ;;
      absent) echo "$phase: the Job $name is gone (deleted while it ran)" >&2; exit 1 ;;
    esac
    sleep "$poll"
  done
}

`

// dnsName makes s a valid Kubernetes object name.
func dnsName(s string) string {
	s = strings.ToLower(s)
	s = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, s)
	if len(s) > 63 {
		s = s[:63]
	}
	return strings.Trim(s, "-")
}
