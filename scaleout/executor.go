package scaleout

import "fmt"

// Executor is what runs a plan's tasks: this machine's processes, Slurm
// job arrays, or Kubernetes Indexed Jobs.
type Executor string

// The executors.
const (
	Local Executor = "local"
	Slurm Executor = "slurm"
	K8s   Executor = "k8s"
)

// ParseExecutor reads an executor's name.
func ParseExecutor(name string) (Executor, error) {
	switch e := Executor(name); e {
	case Local, Slurm, K8s:
		return e, nil
	}
	return "", fmt.Errorf("executor must be local, slurm or k8s, not %q", name)
}
