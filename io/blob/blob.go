// Package blob reads and writes the objects of object stores named by URL:
// s3://bucket/key (Amazon S3 and S3-compatible stores such as MinIO, Ceph
// or R2), gs://bucket/key (Google Cloud Storage) and az://container/key
// (Azure Blob Storage), through gocloud.dev/blob.
//
// Every function takes the object's URL, so callers hold URLs where they
// hold local paths elsewhere. Buckets are opened once per process and
// shared. Credentials come from the standard places of each store: for S3
// the AWS SDK's chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY,
// AWS_PROFILE and the shared config and credentials files, web identity,
// container and instance roles); AWS_ENDPOINT_URL or SetEndpoint (the
// --s3-endpoint flag) point S3 at another store, addressed by path. Requests
// that were throttled or failed with a server error are retried with
// exponential backoff. Errors name the URL and tell a missing bucket, a
// missing object, denied access and bad credentials apart; they never hold
// a secret.
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"

	"os"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob"
	"gocloud.dev/gcerrors"
)

// Schemes are the URL schemes of the object stores sluice reads and
// writes.
var Schemes = []string{"s3", "gs", "az"}

// IsURL reports whether p is the URL of an object store (s3://, gs://,
// az://).
func IsURL(p string) bool {
	scheme, _, ok := strings.Cut(p, "://")
	if !ok {
		return false
	}
	for _, s := range Schemes {
		if scheme == s {
			return true
		}
	}
	return false
}

// IsAnyURL reports whether p looks like a URL of any scheme (http://,
// hdfs://, ...), which is not a local path either.
func IsAnyURL(p string) bool {
	i := strings.Index(p, "://")
	return i > 0 && !strings.ContainsAny(p[:i], "/\\.")
}

// Parse splits an object URL into its bucket's URL (scheme://bucket) and
// the key in it (which may be empty, for the whole bucket).
func Parse(u string) (bucketURL, key string, err error) {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok || !IsURL(u) {
		return "", "", fmt.Errorf("%s: not an object-store URL (%s://bucket/key)", u, strings.Join(Schemes, "://, ")+"://")
	}
	bucket, key, _ := strings.Cut(rest, "/")
	if bucket == "" {
		return "", "", fmt.Errorf("%s: the URL names no bucket", u)
	}
	return scheme + "://" + bucket, key, nil
}

// Join joins a URL and path elements with slashes, as path.Join does for
// the key, keeping the scheme's "//".
func Join(u string, elem ...string) string {
	b, key, err := Parse(u)
	if err != nil {
		return strings.TrimRight(u, "/") + "/" + path.Join(elem...)
	}
	k := path.Join(append([]string{key}, elem...)...)
	if k == "." || k == "" {
		return b
	}
	return b + "/" + strings.TrimPrefix(k, "/")
}

// Dir returns the URL of the "folder" u is in (its key up to the last
// slash), the bucket for a key at the top.
func Dir(u string) string {
	b, key, err := Parse(u)
	if err != nil {
		return u
	}
	d := path.Dir(strings.TrimRight(key, "/"))
	if d == "." || d == "/" {
		return b
	}
	return b + "/" + d
}

// Base returns the last element of u's key.
func Base(u string) string {
	_, key, err := Parse(u)
	if err != nil || key == "" {
		return ""
	}
	return path.Base(strings.TrimRight(key, "/"))
}

// Clean removes the trailing slashes of a URL and cleans its key.
func Clean(u string) string {
	if _, _, err := Parse(u); err != nil {
		return u
	}
	return Join(u)
}

var (
	mu       sync.Mutex
	endpoint string
	buckets  = map[string]*blob.Bucket{}
)

// SetEndpoint sets the S3 endpoint (the --s3-endpoint flag): the URL of an
// S3-compatible store. Empty means AWS_ENDPOINT_URL, else Amazon S3 itself.
// Buckets already opened keep the endpoint they were opened with.
func SetEndpoint(e string) {
	mu.Lock()
	defer mu.Unlock()
	if e != endpoint {
		endpoint = e
		for k, b := range buckets {
			if strings.HasPrefix(k, "s3://") {
				b.Close()
				delete(buckets, k)
			}
		}
	}
}

// Endpoint returns the S3 endpoint in effect: the one SetEndpoint set,
// else AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, else "" (Amazon S3).
func Endpoint() string {
	mu.Lock()
	e := endpoint
	mu.Unlock()
	if e == "" {
		e = os.Getenv("AWS_ENDPOINT_URL_S3")
	}
	if e == "" {
		e = os.Getenv("AWS_ENDPOINT_URL")
	}
	return e
}

// Reset closes every open bucket, so that the next call opens them again
// with the credentials and endpoint then in effect (tests change them).
func Reset() {
	mu.Lock()
	defer mu.Unlock()
	for k, b := range buckets {
		b.Close()
		delete(buckets, k)
	}
}

// open returns the bucket of u and the key u names in it.
func open(ctx context.Context, u string) (*blob.Bucket, string, error) {
	bu, key, err := Parse(u)
	if err != nil {
		return nil, "", err
	}
	mu.Lock()
	b := buckets[bu]
	mu.Unlock()
	if b != nil {
		return b, key, nil
	}
	switch {
	case strings.HasPrefix(bu, "s3://"):
		b, err = openS3(ctx, strings.TrimPrefix(bu, "s3://"))
	default:
		b, err = openOther(ctx, bu)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", u, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if old := buckets[bu]; old != nil {
		b.Close()
		return old, key, nil
	}
	buckets[bu] = b
	return b, key, nil
}

// Retries: how many times a throttled request or one that failed with a
// server error (5xx) or a broken connection is tried, with exponential
// backoff and jitter between tries, up to maxBackoff.
const (
	maxAttempts = 8
	maxBackoff  = 20 * time.Second
)

func openS3(ctx context.Context, bucket string) (*blob.Bucket, error) {
	cfg, err := config.LoadDefaultConfig(ctx, config.WithLogger(logging.Nop{}), config.WithRetryer(func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = maxAttempts
			o.MaxBackoff = maxBackoff
			o.RateLimiter = ratelimit.None // no client-side quota: a long run outlasts any burst of errors
		})
	}))
	if err != nil {
		return nil, fmt.Errorf("AWS configuration: %w", err)
	}
	e := Endpoint()
	cfg.Logger = logging.Nop{} // errors are returned, not logged
	cfg.ClientLogMode = 0
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		if e != "" {
			o.BaseEndpoint = aws.String(e)
			o.UsePathStyle = true // S3-compatible stores serve bucket names in the path
			o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		}
	})
	opts := &s3blob.Options{}
	if e != "" {
		// Other stores do not all take the checksums Amazon S3 asks for.
		opts.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
	}
	return s3blob.OpenBucket(ctx, client, bucket, opts)
}

// openers open the buckets of the other schemes (gs://, az://); the files
// that register them are built in as their drivers are.
var openers = map[string]func(ctx context.Context, bucketURL string) (*blob.Bucket, error){}

func openOther(ctx context.Context, bu string) (*blob.Bucket, error) {
	scheme, _, _ := strings.Cut(bu, "://")
	o := openers[scheme]
	if o == nil {
		return nil, fmt.Errorf("%s:// is not built into this sluice", scheme)
	}
	return o(ctx, bu)
}

// Error is a failed request, naming the URL.
type Error struct {
	URL  string
	Kind Kind
	Err  error
}

// Kind tells what went wrong.
type Kind uint8

// The kinds of errors.
const (
	Other          Kind = iota
	NotFound            // no such object
	NoBucket            // no such bucket
	Denied              // the credentials may not do this
	BadCredentials      // the credentials are not known or not valid
	NoCredentials       // no credentials were found
)

func (e *Error) Error() string {
	switch e.Kind {
	case NotFound:
		return fmt.Sprintf("%s: no such object", e.URL)
	case NoBucket:
		b, _, _ := Parse(e.URL)
		return fmt.Sprintf("%s: the bucket %s does not exist (or is not visible to these credentials)", e.URL, b)
	case Denied:
		return fmt.Sprintf("%s: access denied (%s)", e.URL, short(e.Err))
	case BadCredentials:
		return fmt.Sprintf("%s: the credentials were refused (%s); check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE or the shared credentials file", e.URL, short(e.Err))
	case NoCredentials:
		return fmt.Sprintf("%s: no credentials found (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or run where an instance role applies)", e.URL)
	}
	return fmt.Sprintf("%s: %s", e.URL, short(e.Err))
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, os.ErrNotExist) true for a missing object or
// bucket, as for a missing local file.
func (e *Error) Is(target error) bool {
	return target == os.ErrNotExist && (e.Kind == NotFound || e.Kind == NoBucket)
}

// KindOf returns the kind of a blob error, Other for any other error.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Other
}

// short is the store's own message: its error code and message when it
// gave them, without request ids and the SDK's layers.
func short(err error) string {
	var az *azcore.ResponseError
	if errors.As(err, &az) {
		return fmt.Sprintf("%s (HTTP %d)", az.ErrorCode, az.StatusCode)
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		if m := api.ErrorMessage(); m != "" && m != api.ErrorCode() {
			return api.ErrorCode() + ": " + m
		}
		return api.ErrorCode()
	}
	return err.Error()
}

// wrap turns a store's error into an *Error naming u.
func wrap(u string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	k := Other
	var api smithy.APIError
	code := ""
	if errors.As(err, &api) {
		code = api.ErrorCode()
	}
	var az *azcore.ResponseError
	if errors.As(err, &az) {
		code = az.ErrorCode
	}
	switch {
	case code == "NoSuchBucket" || code == "ContainerNotFound" ||
		strings.Contains(err.Error(), "bucket doesn't exist") || strings.Contains(err.Error(), "bucket does not exist"):
		k = NoBucket
	case code == "InvalidAccessKeyId" || code == "SignatureDoesNotMatch" || code == "ExpiredToken" ||
		code == "InvalidToken" || code == "AuthenticationFailed" ||
		strings.Contains(err.Error(), "failed to authenticate") || // Azure's word (Azurite's code is AuthorizationFailure)
		code == "XAdminUserNotFound": // versitygw's word for an unknown access key
		k = BadCredentials
	case strings.Contains(err.Error(), "failed to retrieve credentials") || strings.Contains(err.Error(), "no EC2 IMDS role found") ||
		strings.Contains(err.Error(), "could not find default credentials"):
		k = NoCredentials
	case gcerrors.Code(err) == gcerrors.NotFound:
		k = NotFound
	case gcerrors.Code(err) == gcerrors.PermissionDenied:
		k = Denied
	}
	return &Error{URL: u, Kind: k, Err: err}
}

// Attrs are what Stat tells of an object.
type Attrs struct {
	Size    int64
	ModTime time.Time
	ETag    string
}

// Stat returns the attributes of the object at u.
func Stat(ctx context.Context, u string) (Attrs, error) {
	b, key, err := open(ctx, u)
	if err != nil {
		return Attrs{}, err
	}
	if key == "" || strings.HasSuffix(key, "/") {
		return Attrs{}, &Error{URL: u, Kind: NotFound, Err: os.ErrNotExist}
	}
	a, err := b.Attributes(ctx, key)
	if err != nil {
		return Attrs{}, wrap(u, err)
	}
	return Attrs{Size: a.Size, ModTime: a.ModTime, ETag: a.ETag}, nil
}

// Exists reports whether the object at u exists.
func Exists(ctx context.Context, u string) (bool, error) {
	_, err := Stat(ctx, u)
	if KindOf(err) == NotFound {
		return false, nil
	}
	return err == nil, err
}

// CheckBucket checks that the bucket of u exists and that the credentials
// may list it.
func CheckBucket(ctx context.Context, u string) error {
	b, key, err := open(ctx, u)
	if err != nil {
		return err
	}
	it := b.List(&blob.ListOptions{Prefix: key, Delimiter: "/"})
	if _, err := it.Next(ctx); err != nil && err != io.EOF {
		return wrap(u, err)
	}
	return nil
}

// NewReader reads length bytes of the object at u from offset off
// (length < 0: to its end), streaming. A connection that breaks in the
// middle is opened again where it stopped, a few times, with backoff.
func NewReader(ctx context.Context, u string, off, length int64) (io.ReadCloser, error) {
	b, key, err := open(ctx, u)
	if err != nil {
		return nil, err
	}
	r, err := b.NewRangeReader(ctx, key, off, length, nil)
	if err != nil {
		return nil, wrap(u, err)
	}
	end := int64(-1)
	if length >= 0 {
		end = off + length
	}
	return &reader{ctx: ctx, b: b, key: key, url: u, r: r, off: off, end: end}, nil
}

// reader names the URL in the errors of its reads and resumes a read
// that broke.
type reader struct {
	ctx      context.Context
	b        *blob.Bucket
	key, url string
	r        *blob.Reader
	off, end int64 // the next byte to read; where to stop, -1 at the end
	resumed  int
}

// resumes is how often a broken read is opened again.
const resumes = 5

func (r *reader) Read(p []byte) (int, error) {
	for {
		n, err := r.r.Read(p)
		r.off += int64(n)
		if err == nil || err == io.EOF {
			return n, err
		}
		if r.resumed >= resumes || r.ctx.Err() != nil || KindOf(wrap(r.url, err)) != Other {
			return n, wrap(r.url, err)
		}
		r.resumed++
		r.r.Close()
		time.Sleep(time.Duration(r.resumed*r.resumed) * 100 * time.Millisecond)
		length := int64(-1)
		if r.end >= 0 {
			length = r.end - r.off
		}
		nr, err2 := r.b.NewRangeReader(r.ctx, r.key, r.off, length, nil)
		if err2 != nil {
			return n, wrap(r.url, err)
		}
		r.r = nr
		if n > 0 {
			return n, nil
		}
	}
}

func (r *reader) Close() error { return r.r.Close() }

// ReadFile returns the whole object at u.
func ReadFile(ctx context.Context, u string) ([]byte, error) {
	b, key, err := open(ctx, u)
	if err != nil {
		return nil, err
	}
	data, err := b.ReadAll(ctx, key)
	return data, wrap(u, err)
}

// Object is one object of a listing.
type Object struct {
	URL     string
	Size    int64
	ModTime time.Time
}

// List returns every object whose URL starts with prefix, sorted by URL.
// A prefix ending in "/" lists a "folder"; without it, keys that merely
// start with the same letters are listed too.
func List(ctx context.Context, prefix string) ([]Object, error) {
	b, key, err := open(ctx, prefix)
	if err != nil {
		return nil, err
	}
	bu, _, _ := Parse(prefix)
	var out []Object
	it := b.List(&blob.ListOptions{Prefix: key})
	for {
		o, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, wrap(prefix, err)
		}
		if o.IsDir {
			continue
		}
		out = append(out, Object{URL: bu + "/" + o.Key, Size: o.Size, ModTime: o.ModTime})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URL < out[j].URL })
	return out, nil
}

// HasMeta reports whether p holds glob metacharacters.
func HasMeta(p string) bool { return strings.ContainsAny(p, "*?[") }

// Glob returns the objects whose URL matches pattern, as path.Match
// matches (a "*" does not cross a "/"), sorted. The listing starts at the
// longest prefix of pattern without metacharacters.
func Glob(ctx context.Context, pattern string) ([]Object, error) {
	bu, key, err := Parse(pattern)
	if err != nil {
		return nil, err
	}
	if _, err := path.Match(key, ""); err != nil {
		return nil, fmt.Errorf("%s: bad pattern: %w", pattern, err)
	}
	lit := key
	if i := strings.IndexAny(key, "*?[\\"); i >= 0 {
		lit = key[:i]
	}
	all, err := List(ctx, bu+"/"+lit)
	if err != nil {
		return nil, err
	}
	var out []Object
	for _, o := range all {
		k := strings.TrimPrefix(o.URL, bu+"/")
		if ok, _ := path.Match(key, k); ok {
			out = append(out, o)
		}
	}
	return out, nil
}

// Writer writes an object: parts of it are uploaded while it is written
// (a multipart upload, several parts in flight), and the object exists
// only once Close returns without error. Abort cancels the upload.
type Writer struct {
	w      *blob.Writer
	url    string
	cancel context.CancelFunc
	n      int64
}

// Upload part sizes and parallelism: a writer holds up to partSize times
// partsInFlight bytes. A multipart upload has at most maxParts parts, so
// Upload sizes its parts by the file's size.
const (
	partSize      = 8 << 20
	partsInFlight = 4
	maxParts      = 9000
)

// Create starts writing the object at u, replacing any object there once
// closed. Objects up to some 70 GB may be written so; Upload takes any
// size.
func Create(ctx context.Context, u string) (*Writer, error) {
	return create(ctx, u, false, partSize)
}

// CreateNew is Create, but Close fails with ErrExists when an object is
// already at u, where the store can tell.
func CreateNew(ctx context.Context, u string) (*Writer, error) {
	return create(ctx, u, true, partSize)
}

// ErrExists is returned by a Writer of CreateNew when the object exists.
var ErrExists = errors.New("object exists")

func create(ctx context.Context, u string, ifNotExist bool, part int) (*Writer, error) {
	b, key, err := open(ctx, u)
	if err != nil {
		return nil, err
	}
	if key == "" || strings.HasSuffix(key, "/") {
		return nil, fmt.Errorf("%s: not an object's URL (it ends in /)", u)
	}
	ctx, cancel := context.WithCancel(ctx)
	w, err := b.NewWriter(ctx, key, &blob.WriterOptions{
		BufferSize: part, MaxConcurrency: partsInFlight,
		ContentType: contentType(key), IfNotExist: ifNotExist,
	})
	if err != nil {
		cancel()
		return nil, wrap(u, err)
	}
	return &Writer{w: w, url: u, cancel: cancel}, nil
}

func contentType(key string) string {
	switch {
	case strings.HasSuffix(key, ".json"):
		return "application/json"
	case strings.HasSuffix(key, ".jsonl"):
		return "application/jsonl"
	}
	return "application/octet-stream"
}

func (w *Writer) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.n += int64(n)
	if err != nil {
		err = wrap(w.url, err)
	}
	return n, err
}

// Close completes the upload; the object exists once it returns nil.
func (w *Writer) Close() error {
	defer w.cancel()
	err := w.w.Close()
	if gcerrors.Code(err) == gcerrors.FailedPrecondition || gcerrors.Code(err) == gcerrors.AlreadyExists {
		return fmt.Errorf("%s: %w", w.url, ErrExists)
	}
	return wrap(w.url, err)
}

// Abort cancels the upload: no object is written.
func (w *Writer) Abort() {
	w.cancel()
	w.w.Close()
}

// WriteFile writes data as the object at u.
func WriteFile(ctx context.Context, u string, data []byte) error {
	w, err := Create(ctx, u)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}

// Upload copies the local file at local to the object at u.
func Upload(ctx context.Context, local, u string) error {
	f, err := os.Open(local)
	if err != nil {
		return err
	}
	defer f.Close()
	part := partSize
	if st, err := f.Stat(); err == nil && st.Size()/maxParts >= int64(part) {
		part = int(st.Size()/maxParts) + 1<<20
	}
	w, err := create(ctx, u, false, part)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, f); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}

// Copy copies the object at src to dst, in the store (both in one
// bucket).
func Copy(ctx context.Context, dst, src string) error {
	sb, sk, err := Parse(src)
	if err != nil {
		return err
	}
	db, dk, err := Parse(dst)
	if err != nil {
		return err
	}
	if sb != db {
		return fmt.Errorf("%s: cannot copy to %s, another bucket", src, dst)
	}
	b, _, err := open(ctx, src)
	if err != nil {
		return err
	}
	return wrap(src, b.Copy(ctx, dk, sk, nil))
}

// Delete removes the object at u; a missing object is no error.
func Delete(ctx context.Context, u string) error {
	b, key, err := open(ctx, u)
	if err != nil {
		return err
	}
	err = wrap(u, b.Delete(ctx, key))
	if KindOf(err) == NotFound {
		return nil
	}
	return err
}
