package blob

import (
	"context"
	"net/url"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/blob/azureblob" // az://container/key
	_ "gocloud.dev/blob/gcsblob" // gs://bucket/key
)

// Google Cloud Storage takes its credentials from Application Default
// Credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud's, the metadata
// server), or none with STORAGE_EMULATOR_HOST (an emulator). Azure Blob
// Storage takes AZURE_STORAGE_ACCOUNT with AZURE_STORAGE_KEY,
// AZURE_STORAGE_SAS_TOKEN or AZURE_STORAGE_CONNECTION_STRING, else the
// Azure SDK's default credential (environment, workload and managed
// identity, the az command line); AZURE_STORAGE_DOMAIN,
// AZURE_STORAGE_PROTOCOL and AZURE_STORAGE_IS_LOCAL_EMULATOR point it at
// another endpoint (Azurite).
func init() {
	openers["gs"] = func(ctx context.Context, bu string) (*blob.Bucket, error) {
		return blob.OpenBucket(ctx, bu)
	}
	openers["az"] = func(ctx context.Context, bu string) (*blob.Bucket, error) {
		// The environment is read at each opening (blob.Reset opens again).
		o := &azureblob.URLOpener{MakeClient: azureblob.NewDefaultClient, ServiceURLOptions: *azureblob.NewDefaultServiceURLOptions()}
		return o.OpenBucketURL(ctx, &url.URL{Scheme: "azblob", Host: strings.TrimPrefix(bu, "az://")})
	}
}
