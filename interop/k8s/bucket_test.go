package k8s

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

// startS3 starts versitygw with its POSIX back end on 127.0.0.1 and
// returns its endpoint and the folder its buckets are in (a folder made
// there is a bucket). Without versitygw the test is skipped, or fails
// when SLUICE_CI=1.
func startS3(t *testing.T) (string, string) {
	t.Helper()
	bin, err := exec.LookPath("versitygw")
	if err != nil {
		if os.Getenv("SLUICE_CI") == "1" {
			t.Fatalf("versitygw is not installed: %v", err)
		}
		t.Skipf("versitygw is not installed: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	root := t.TempDir()
	cmd := exec.Command(bin, "--access", "k8stestkey", "--secret", "k8stestsecret0123456789", "--port", addr, "posix", root)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	endpoint := "http://" + addr
	for deadline := time.Now().Add(15 * time.Second); ; {
		if resp, err := http.Get(endpoint + "/"); err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw does not answer on %s", addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return endpoint, root
}

// A launch whose output is a bucket writes Jobs without a volume: the
// pods take their credentials from the Secret (envFrom), the S3 endpoint
// from the launch, and run the tasks of the plan in the bucket.
func TestLaunchOnABucketWritesJobsWithoutAVolume(t *testing.T) {
	endpoint, root := startS3(t)
	bin := buildSluice(t)
	dir := t.TempDir()
	in := filepath.Join(root, "corpus", "in")
	os.MkdirAll(in, 0o755)
	for f := 0; f < 4; f++ {
		var b strings.Builder
		for i := 0; i < 30; i++ {
			fmt.Fprintf(&b, "{\"id\":\"d%d-%d\",\"text\":\"document %d says something about the river number %d\"}\n", f, i, i, i%7)
		}
		os.WriteFile(filepath.Join(in, fmt.Sprintf("part-%d.jsonl", f)), []byte(b.String()), 0o644)
	}
	pipeline := filepath.Join(dir, "pipeline.yaml")
	os.WriteFile(pipeline, []byte("input: [\"s3://corpus/in/\"]\nstages:\n  - dedup_exact: {}\n"), 0o644)
	launch := func(pipeline, out string, args ...string) (string, error) {
		cmd := exec.CommandContext(t.Context(), bin, append([]string{"launch", pipeline, "-o", out, "--tasks", "4",
			"--executor", "k8s", "--k8s-image", "registry.example/sluice:0.1", "--s3-endpoint", endpoint}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID=k8stestkey", "AWS_SECRET_ACCESS_KEY=k8stestsecret0123456789",
			"AWS_REGION=us-east-1", "AWS_EC2_METADATA_DISABLED=true", "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null")
		res, err := cmd.CombinedOutput()
		return string(res), err
	}
	// A local input is refused: pods without a volume would not see it.
	local := filepath.Join(dir, "local.yaml")
	os.WriteFile(local, []byte("input: [\""+filepath.Join(in, "part-0.jsonl")+"\"]\nstages:\n  - dedup_exact: {}\n"), 0o644)
	if out, err := launch(local, "s3://corpus/refused"); err == nil || !strings.Contains(out, "no --k8s-claim") {
		t.Errorf("a local input without a claim: %v\n%s", err, out)
	}
	out, err := launch(pipeline, "s3://corpus/out", "--k8s-secret", "corpus-s3")
	if err != nil {
		t.Fatalf("sluice launch: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(root, "corpus", "out", "_plan.json")); err != nil {
		t.Errorf("the plan is not in the bucket: %v", err)
	}
	manifests, _ := filepath.Glob(filepath.Join(dir, "k8s-corpus-out", "*.yaml"))
	if len(manifests) < 2 {
		t.Fatalf("%d Job manifests written: %v\n%s", len(manifests), manifests, out)
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
		pod := job.Spec.Template.Spec
		if len(pod.Volumes) != 0 || len(pod.Containers) != 1 {
			t.Fatalf("%s: %d volumes, %d containers; want no volume", path, len(pod.Volumes), len(pod.Containers))
		}
		c := pod.Containers[0]
		if len(c.VolumeMounts) != 0 || c.WorkingDir != "" {
			t.Errorf("%s: mounts %+v, working dir %q", path, c.VolumeMounts, c.WorkingDir)
		}
		if !strings.Contains(strings.Join(c.Args, " "), "sluice task s3://corpus/out/_plan.json --phase ") {
			t.Errorf("%s: runs %q", path, c.Args)
		}
		if len(c.EnvFrom) != 1 || c.EnvFrom[0].SecretRef == nil || c.EnvFrom[0].SecretRef.Name != "corpus-s3" {
			t.Errorf("%s: envFrom %+v, want the Secret corpus-s3", path, c.EnvFrom)
		}
		if len(c.Env) != 1 || c.Env[0].Name != "AWS_ENDPOINT_URL" || c.Env[0].Value != endpoint {
			t.Errorf("%s: env %+v, want AWS_ENDPOINT_URL=%s", path, c.Env, endpoint)
		}
		if strings.Contains(string(data), "AWS_SECRET_ACCESS_KEY") || strings.Contains(string(data), "k8stestsecret") {
			t.Errorf("%s holds a secret:\n%s", path, data)
		}
	}
}
