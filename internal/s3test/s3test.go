// Package s3test starts a real S3-compatible server for tests: versitygw
// with its POSIX back end, on 127.0.0.1, storing its buckets in a
// temporary directory. A test that needs it is skipped when the versitygw
// command is not installed, and fails when SLUICE_CI=1 (see
// internal/testenv); .ci/run installs it with
//
//	go install github.com/versity/versitygw/cmd/versitygw@v1.8.0
package s3test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/sluice-data/sluice/internal/testenv"
	"github.com/sluice-data/sluice/io/blob"
)

// The credentials of the server's one account.
const (
	AccessKey = "sluicetestkey"
	SecretKey = "sluicetestsecret0123456789"
)

// Server is a running versitygw.
type Server struct {
	// Endpoint is its URL, http://127.0.0.1:PORT.
	Endpoint string
	// Dir is where it keeps its buckets: Dir/BUCKET/KEY.
	Dir string
	// Bucket is a bucket made for the test; URL(key) names its objects.
	Bucket string
	cmd    *exec.Cmd
	log    *bytes.Buffer
}

// Start starts a server, creates a bucket in it and points the process's
// S3 client at it: AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY are set for the test (so the sluice commands it
// runs in process, and those it starts, use the server), and no shared
// configuration file or instance role of the machine is read. The server
// stops when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := testenv.Require(t, "versitygw")
	dir := t.TempDir()
	root := filepath.Join(dir, "buckets")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	s := &Server{Dir: root, log: &bytes.Buffer{}}
	var err error
	for try := 0; try < 5; try++ {
		if err = s.start(bin); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("versitygw did not start: %v\n%s", err, s.log)
	}
	t.Cleanup(func() { s.Stop() })
	Use(t, s.Endpoint, AccessKey, SecretKey)
	s.Bucket = "sluice-test"
	s.CreateBucket(t, s.Bucket)
	return s
}

func (s *Server) start(bin string) error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := l.Addr().String()
	l.Close()
	s.log.Reset()
	cmd := exec.Command(bin, "--access", AccessKey, "--secret", SecretKey, "--port", addr, "posix", s.Dir)
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		return err
	}
	s.cmd = cmd
	s.Endpoint = "http://" + addr
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(s.Endpoint + "/"); err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.Stop()
	return fmt.Errorf("no answer on %s", addr)
}

// Stop stops the server.
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
		s.cmd = nil
	}
}

// Use points the process's S3 client at endpoint with the given
// credentials, for the rest of the test.
func Use(t testing.TB, endpoint, key, secret string) {
	t.Helper()
	none := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL":            endpoint,
		"AWS_ENDPOINT_URL_S3":         "",
		"AWS_ACCESS_KEY_ID":           key,
		"AWS_SECRET_ACCESS_KEY":       secret,
		"AWS_SESSION_TOKEN":           "",
		"AWS_REGION":                  "us-east-1",
		"AWS_PROFILE":                 "",
		"AWS_CONFIG_FILE":             none,
		"AWS_SHARED_CREDENTIALS_FILE": none,
		"AWS_EC2_METADATA_DISABLED":   "true",
	} {
		t.Setenv(k, v)
	}
	blob.SetEndpoint("")
	blob.Reset()
	t.Cleanup(blob.Reset)
}

// URL returns the s3:// URL of key in the test's bucket.
func (s *Server) URL(key string) string { return "s3://" + s.Bucket + "/" + key }

// Client returns an S3 client of the server, for what sluice does not do
// (creating buckets).
func (s *Server) Client() *s3.Client {
	return s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(s.Endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(AccessKey, SecretKey, ""),
	})
}

// CreateBucket creates a bucket.
func (s *Server) CreateBucket(t testing.TB, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.Client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatalf("creating bucket %s: %v\n%s", name, err, s.log)
	}
}

// Put uploads a local file as key.
func (s *Server) Put(t testing.TB, key, local string) {
	t.Helper()
	if err := blob.Upload(context.Background(), local, s.URL(key)); err != nil {
		t.Fatal(err)
	}
}

// PutDir uploads every file under the local directory dir under prefix,
// keeping their relative paths.
func (s *Server) PutDir(t testing.TB, prefix, dir string) {
	t.Helper()
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		return blob.Upload(context.Background(), p, s.URL(prefix+"/"+filepath.ToSlash(rel)))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Keys returns the keys of the objects under prefix in the test's bucket.
func (s *Server) Keys(t testing.TB, prefix string) []string {
	t.Helper()
	objs, err := blob.List(context.Background(), s.URL(prefix))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range objs {
		keys = append(keys, o.URL[len("s3://"+s.Bucket+"/"):])
	}
	return keys
}
