// Package blobtest starts the emulators of Google Cloud Storage
// (fake-gcs-server, from the Go module proxy) and Azure Blob Storage
// (Azurite, from npm) on 127.0.0.1 for the tests of gs:// and az://
// paths, and points the process's clients at them. A test that needs one
// is skipped when its command is not installed, and fails when
// SLUICE_CI=1 (see internal/testenv); .ci/run installs both:
//
//	go install github.com/fsouza/fake-gcs-server@v1.56.1
//	npm install -g azurite@3.37.0
//
// S3 has its own package, internal/s3test.
package blobtest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/sluice-data/sluice/internal/testenv"
	"github.com/sluice-data/sluice/io/blob"
)

// Emulator is a running emulator with one bucket (a container, in Azure's
// words) made for the test.
type Emulator struct {
	// Scheme is gs or az.
	Scheme string
	// Endpoint is the emulator's address, http://127.0.0.1:PORT.
	Endpoint string
	Bucket   string
	cmd      *exec.Cmd
	log      *bytes.Buffer
}

// URL returns the URL of key in the test's bucket.
func (e *Emulator) URL(key string) string { return e.Scheme + "://" + e.Bucket + "/" + key }

func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

func (e *Emulator) start(t testing.TB, ready func() bool, bin string, args ...string) {
	t.Helper()
	e.log = &bytes.Buffer{}
	e.cmd = exec.Command(bin, args...)
	e.cmd.Stdout, e.cmd.Stderr = e.log, e.log
	if err := e.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.cmd.Process.Kill()
		e.cmd.Wait()
	})
	deadline := time.Now().Add(30 * time.Second)
	for !ready() {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not start:\n%s", bin, e.log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// StartGCS starts fake-gcs-server with a bucket and sets
// STORAGE_EMULATOR_HOST for the test.
func StartGCS(t testing.TB) *Emulator {
	t.Helper()
	bin := testenv.Require(t, "fake-gcs-server")
	port := freePort(t)
	e := &Emulator{Scheme: "gs", Endpoint: "http://127.0.0.1:" + port, Bucket: "sluice-test"}
	e.start(t, func() bool {
		resp, err := http.Get(e.Endpoint + "/storage/v1/b")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	}, bin, "-scheme", "http", "-host", "127.0.0.1", "-port", port, "-backend", "memory",
		"-public-host", "127.0.0.1:"+port, "-external-url", e.Endpoint, "-log-level", "error")
	resp, err := http.Post(e.Endpoint+"/storage/v1/b?project=test", "application/json",
		strings.NewReader(fmt.Sprintf(`{"name":%q}`, e.Bucket)))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("creating bucket: %v %v\n%s", err, resp, e.log)
	}
	resp.Body.Close()
	t.Setenv("STORAGE_EMULATOR_HOST", "127.0.0.1:"+port)
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "")
	blob.Reset()
	t.Cleanup(blob.Reset)
	return e
}

// Azurite's well-known development account.
const (
	AzureAccount = "devstoreaccount1"
	AzureKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// StartAzurite starts Azurite's blob service with a container and sets
// the AZURE_STORAGE_* variables for the test.
func StartAzurite(t testing.TB) *Emulator {
	t.Helper()
	bin := testenv.Require(t, "azurite-blob")
	port := freePort(t)
	dir := t.TempDir()
	e := &Emulator{Scheme: "az", Endpoint: "http://127.0.0.1:" + port, Bucket: "sluice-test"}
	e.start(t, func() bool {
		resp, err := http.Get(e.Endpoint + "/")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	}, bin, "--blobHost", "127.0.0.1", "--blobPort", port, "--location", dir, "--skipApiVersionCheck", "--silent", "--loose")
	UseAzure(t, e.Endpoint, AzureKey)
	CreateAzureContainer(t, e.Endpoint, e.Bucket)
	return e
}

// UseAzure points the process's Azure client at endpoint with the
// development account and the given key.
func UseAzure(t testing.TB, endpoint, key string) {
	t.Helper()
	for k, v := range map[string]string{
		"AZURE_STORAGE_ACCOUNT":              AzureAccount,
		"AZURE_STORAGE_KEY":                  key,
		"AZURE_STORAGE_DOMAIN":               strings.TrimPrefix(endpoint, "http://"),
		"AZURE_STORAGE_PROTOCOL":             "http",
		"AZURE_STORAGE_IS_LOCAL_EMULATOR":    "true",
		"AZURE_STORAGE_CONNECTION_STRING":    "",
		"AZURE_STORAGEBLOB_CONNECTIONSTRING": "",
		"AZURE_STORAGE_SAS_TOKEN":            "",
	} {
		t.Setenv(k, v)
	}
	blob.Reset()
	t.Cleanup(blob.Reset)
}

// CreateAzureContainer creates a container through the REST API, signed
// with the development account's key.
func CreateAzureContainer(t testing.TB, endpoint, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := createContainer(ctx, endpoint, name); err != nil {
		t.Fatalf("creating container %s: %v", name, err)
	}
}

func createContainer(ctx context.Context, endpoint, name string) error {
	cred, err := azblob.NewSharedKeyCredential(AzureAccount, AzureKey)
	if err != nil {
		return err
	}
	client, err := azblob.NewClientWithSharedKeyCredential(endpoint+"/"+AzureAccount+"/", cred, nil)
	if err != nil {
		return err
	}
	_, err = client.CreateContainer(ctx, name, nil)
	return err
}
