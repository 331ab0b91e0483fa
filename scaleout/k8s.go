package scaleout

import (
	"fmt"
	"strings"

	"github.com/sluice-data/sluice/io/dataset"
)

// K8sOptions are the settings of the Kubernetes Indexed Jobs.
type K8sOptions struct {
	Image     string // container image with the sluice binary (required)
	Namespace string // metadata.namespace, when set
	// Claim is a PersistentVolumeClaim mounted at the plan's directory, so
	// that pods see the inputs and the output at the paths the plan names.
	Claim       string
	Parallelism int    // pods at once, when above 0
	CPU         string // resources.requests.cpu, when set
	Mem         string // resources.requests.memory (and limit), when set
}

// K8sManifests writes one Indexed Job manifest per phase into OUT/_jobs/
// and OUT/_jobs/k8s-apply.sh, which applies them in order, waiting for
// each to complete. A pod runs task $JOB_COMPLETION_INDEX of its phase.
func K8sManifests(p *Plan, planPath string, o K8sOptions) ([]string, error) {
	if o.Image == "" {
		return nil, fmt.Errorf("k8s: give the container image (--k8s-image)")
	}
	var paths []string
	apply := "#!/bin/sh\n# Applies the phases in order, each after the one before completed.\nset -eu\n"
	for k, ph := range p.Phases {
		name := dnsName(fmt.Sprintf("sluice-%02d-%s", k, ph.Name))
		var b strings.Builder
		b.WriteString("apiVersion: batch/v1\nkind: Job\nmetadata:\n")
		fmt.Fprintf(&b, "  name: %s\n", name)
		if o.Namespace != "" {
			fmt.Fprintf(&b, "  namespace: %s\n", o.Namespace)
		}
		b.WriteString("spec:\n  completionMode: Indexed\n")
		fmt.Fprintf(&b, "  completions: %d\n", ph.Tasks)
		par := ph.Tasks
		if o.Parallelism > 0 {
			par = min(par, o.Parallelism)
		}
		fmt.Fprintf(&b, "  parallelism: %d\n", par)
		b.WriteString("  backoffLimitPerIndex: 3\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n")
		b.WriteString("        - name: task\n")
		fmt.Fprintf(&b, "          image: %s\n", o.Image)
		fmt.Fprintf(&b, "          workingDir: %s\n", p.Dir)
		b.WriteString("          command: [\"sh\", \"-c\"]\n")
		fmt.Fprintf(&b, "          args: [%q]\n", fmt.Sprintf(`exec %s task %s --phase %s --index "$JOB_COMPLETION_INDEX"`,
			shellQuote(p.Binary), shellQuote(planPath), ph.Name))
		if o.CPU != "" || o.Mem != "" {
			b.WriteString("          resources:\n            requests:\n")
			if o.CPU != "" {
				fmt.Fprintf(&b, "              cpu: %q\n", o.CPU)
			}
			if o.Mem != "" {
				fmt.Fprintf(&b, "              memory: %q\n            limits:\n              memory: %q\n", o.Mem, o.Mem)
			}
		}
		if o.Claim != "" {
			fmt.Fprintf(&b, "          volumeMounts:\n            - name: data\n              mountPath: %s\n", p.Dir)
			fmt.Fprintf(&b, "      volumes:\n        - name: data\n          persistentVolumeClaim:\n            claimName: %s\n", o.Claim)
		}
		path := p.absPath("_jobs", fmt.Sprintf("%02d-%s.yaml", k, ph.Name))
		if err := dataset.WriteFile(path, []byte(b.String())); err != nil {
			return nil, err
		}
		paths = append(paths, path)
		ns := ""
		if o.Namespace != "" {
			ns = " -n " + o.Namespace
		}
		apply += fmt.Sprintf("kubectl apply%s -f %s\nkubectl wait%s --for=condition=complete --timeout=-1s job/%s\n", ns, shellQuote(path), ns, name)
	}
	script := p.absPath("_jobs", "k8s-apply.sh")
	if err := dataset.WriteFile(script, []byte(apply)); err != nil {
		return nil, err
	}
	return append(paths, script), nil
}

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
