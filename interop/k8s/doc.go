// Package k8s checks that the Kubernetes Jobs `sluice launch --executor
// k8s` writes are what the Kubernetes API accepts: every manifest decodes
// strictly (no unknown or misspelt field) into the batch/v1 Job type of
// k8s.io/api, and the fields that make a launch work (Indexed completion,
// the task command, the shared volume at the plan's directory, resources)
// hold what the flags asked for.
//
// It is a separate Go module (github.com/sluice-data/sluice/interop/k8s) so
// that the main module does not depend on k8s.io/api and its dependencies;
// the test builds the sluice binary from the repository root and runs it.
package k8s
