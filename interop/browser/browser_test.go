package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// ciEnv is the variable CI sets to 1: a missing browser then fails the
// test instead of skipping it (the rule of the main module's
// internal/testenv, which this module cannot import).
const ciEnv = "SLUICE_CI"

// requireChromium returns the path of Chromium, or skips (fails in CI).
func requireChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv(ciEnv) == "1" {
		t.Fatalf("Chromium is needed and %s=1: none of chromium, chromium-browser, google-chrome is on the PATH", ciEnv)
	}
	t.Skipf("skipping: Chromium is not installed (apt-get install chromium); with %s=1 this fails", ciEnv)
	return ""
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// sluice builds the sluice binary of the repository once.
func sluice(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "sluice-browser-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "sluice")
		cmd := exec.Command("go", "build", "-o", binPath, ".")
		cmd.Dir = filepath.Join("..", "..")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func run(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("sluice %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// browser is one headless Chromium tab and what it logged.
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	problems []string // console errors, exceptions, failed or outside requests
	requests []string
	dialogs  int
}

func (b *browser) problem(format string, args ...any) {
	b.mu.Lock()
	b.problems = append(b.problems, fmt.Sprintf(format, args...))
	b.mu.Unlock()
}

func newBrowser(t *testing.T) *browser {
	exe := requireChromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("no-first-run", true),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(cancel3)
	b := &browser{ctx: ctx}
	err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				b.problem("console %s: %s", e.Type, consoleText(e.Args))
			}
		case *runtime.EventExceptionThrown:
			b.problem("exception: %s", e.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError {
				b.problem("log error: %s %s", e.Entry.Text, e.Entry.URL)
			}
		case *network.EventLoadingFailed:
			b.problem("request failed: %s", e.ErrorText)
		case *network.EventRequestWillBeSent:
			b.mu.Lock()
			b.requests = append(b.requests, e.Request.URL)
			b.mu.Unlock()
		case *page.EventJavascriptDialogOpening:
			b.mu.Lock()
			b.dialogs++
			b.mu.Unlock()
			go chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	for _, enable := range []cdp.Command[cdp.Empty, cdp.Empty]{log.Enable, runtime.Enable} {
		if _, err := chromedp.Call(ctx, enable, cdp.Empty{}); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func consoleText(args []*runtime.RemoteObject) string {
	var parts []string
	for _, a := range args {
		if len(a.Value) > 0 {
			parts = append(parts, string(a.Value))
		} else {
			parts = append(parts, a.Description)
		}
	}
	return strings.Join(parts, " ")
}

// open loads the page at width pixels and waits for it.
func (b *browser) open(t *testing.T, path string, width int64) {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(b.ctx,
		chromedp.EmulateViewport(width, 900),
		chromedp.Navigate("file://"+filepath.ToSlash(abs)),
		chromedp.WaitReady("body"),
	)
	if err != nil {
		t.Fatalf("open %s at %dpx: %v", path, width, err)
	}
}

func (b *browser) eval(t *testing.T, js string, v any) {
	t.Helper()
	raw, err := chromedp.Run(b.ctx, chromedp.Evaluate[json.RawMessage](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
}

// checkClean fails on any console error, exception, failed request,
// dialog, or request for anything but the page itself.
func (b *browser) checkClean(t *testing.T, page string) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		t.Errorf("%s: %s", page, p)
	}
	for _, u := range b.requests {
		if !strings.HasPrefix(u, "file://") || !strings.HasSuffix(u, filepath.Base(page)) {
			t.Errorf("%s: the page requested %s; it must fetch nothing", page, u)
		}
	}
	if b.dialogs > 0 {
		t.Errorf("%s: %d dialogs opened: a script ran", page, b.dialogs)
	}
}

// artifact is where a screenshot goes: $SLUICE_ARTIFACTS, or the
// system's temporary folder, which outlives the test.
func artifact(t *testing.T, name string) string {
	dir := os.Getenv("SLUICE_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "sluice-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, name)
}

type counts struct {
	RowsIn      int64 `json:"rows_in"`
	RowsOut     int64 `json:"rows_out"`
	Removed     int64 `json:"removed"`
	Quarantined int64 `json:"quarantined"`
}

type manifest struct {
	Counts counts `json:"counts"`
	Stages []struct {
		Name    string           `json:"name"`
		RowsIn  int64            `json:"rows_in"`
		RowsOut int64            `json:"rows_out"`
		Removed map[string]int64 `json:"removed"`
	} `json:"stages"`
}

func readManifest(t *testing.T, dir string) manifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func number(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(strings.ReplaceAll(strings.TrimSpace(s), ",", ""), 10, 64)
	if err != nil {
		t.Fatalf("not a number on the page: %q", s)
	}
	return n
}

// TestDemoReport opens the report the demo writes.
func TestDemoReport(t *testing.T) {
	b := newBrowser(t)
	bin := sluice(t)
	out := filepath.Join(t.TempDir(), "sluice-demo")
	stdout := run(t, bin, "demo", "-o", out)
	pagePath := filepath.Join(out, "report.html")
	if !strings.Contains(stdout, pagePath) {
		t.Errorf("the demo does not print the path of its report %s:\n%s", pagePath, stdout)
	}
	first, second := readManifest(t, out), readManifest(t, filepath.Join(out, "decontaminated"))

	for _, width := range []int64{1280, 390} {
		b.open(t, pagePath, width)

		// Every chart has its marks: a hover region per bar or line,
		// and the library's drawing under them.
		var charts []struct {
			ID     string `json:"id"`
			Marks  int    `json:"marks"`
			Rects  int    `json:"rects"`
			Paths  int    `json:"paths"`
			Width  int    `json:"width"`
			Height int    `json:"height"`
		}
		b.eval(t, `[...document.querySelectorAll("figure.fig")].map(f => {
			const svg = f.querySelector("svg"), r = svg.getBoundingClientRect();
			return {id: f.id, marks: +f.dataset.marks, rects: svg.querySelectorAll("rect.mark").length,
				paths: svg.querySelectorAll("path").length, width: Math.round(r.width), height: Math.round(r.height)};
		})`, &charts)
		if len(charts) < 8 {
			t.Errorf("%dpx: %d charts on the page, want the funnel, reasons, signals, tokens, languages, clusters, contamination, quarantine and times", width, len(charts))
		}
		for _, c := range charts {
			if c.Marks == 0 || c.Rects != c.Marks || c.Paths < c.Marks {
				t.Errorf("%dpx: chart %s has %d marks, %d hover regions and %d paths", width, c.ID, c.Marks, c.Rects, c.Paths)
			}
			if c.Width < 200 || c.Width > int(width) || c.Height < 80 {
				t.Errorf("%dpx: chart %s is drawn %dx%d", width, c.ID, c.Width, c.Height)
			}
		}

		// The page fits the window: nothing wider than the viewport
		// (tables scroll inside their own box).
		var fit struct {
			Scroll int `json:"scroll"`
			Inner  int `json:"inner"`
		}
		b.eval(t, `({scroll: document.documentElement.scrollWidth, inner: window.innerWidth})`, &fit)
		if fit.Scroll > fit.Inner {
			t.Errorf("%dpx: the page is %dpx wide, wider than the window", width, fit.Scroll)
		}

		// The funnel numbers equal the manifests.
		var cards map[string]string
		b.eval(t, `Object.fromEntries([...document.querySelectorAll("[data-count]")].map(e => [e.dataset.count, e.textContent]))`, &cards)
		want := map[string]int64{"rows_in": first.Counts.RowsIn, "rows_out": second.Counts.RowsOut,
			"removed": first.Counts.Removed + second.Counts.Removed, "quarantined": first.Counts.Quarantined + second.Counts.Quarantined}
		for k, v := range want {
			if got := number(t, cards[k]); got != v {
				t.Errorf("%dpx: the funnel says %s %d, the manifests %d", width, k, got, v)
			}
		}
		var rows []map[string]string
		b.eval(t, `[...document.querySelectorAll("#funnel-table tr[data-stage]")].map(tr => {
			const o = {stage: tr.dataset.stage};
			tr.querySelectorAll("[data-col]").forEach(td => o[td.dataset.col] = td.textContent);
			tr.querySelectorAll("[data-reason]").forEach(s => o["reason:" + s.dataset.reason] = s.textContent);
			return o;
		})`, &rows)
		stages := append(first.Stages, second.Stages...)
		if len(rows) != len(stages) {
			t.Fatalf("%dpx: the funnel table has %d stages, the manifests %d", width, len(rows), len(stages))
		}
		for i, s := range stages {
			r := rows[i]
			if r["stage"] != s.Name || number(t, r["rows_in"]) != s.RowsIn || number(t, r["rows_out"]) != s.RowsOut {
				t.Errorf("%dpx: funnel row %d is %v; the manifest has %s %d in, %d out", width, i, r, s.Name, s.RowsIn, s.RowsOut)
			}
			for reason, n := range s.Removed {
				if got := number(t, r["reason:"+reason]); got != n {
					t.Errorf("%dpx: %s removed %d for %s on the page, %d in the manifest", width, s.Name, got, reason, n)
				}
			}
		}

		shot := artifact(t, fmt.Sprintf("report-demo-%dpx.png", width))
		png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(shot, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot at %dpx: %s", width, shot)
	}
	b.checkClean(t, pagePath)
}

// hostile is markup that would run if the page did not escape it.
const hostile = `</svg></pre><script>document.title="pwned"</script><img src=x onerror="document.title='pwned'">`

// TestReportEscapesMarkup puts markup in ids, texts and source names, in
// rows that are removed (examples), kept (tokens per source) and
// quarantined, and checks that the page shows it as text and runs none.
func TestReportEscapesMarkup(t *testing.T) {
	b := newBrowser(t)
	bin := sluice(t)
	dir := t.TempDir()
	var lines []string
	good := "The quick brown fox jumps over the lazy dog, and then the dog sleeps in the sun with the fox. "
	for i := 0; i < 6; i++ {
		src := fmt.Sprintf("web%d%s", i%2, hostile)
		lines = append(lines, jsonLine(t, map[string]any{"id": fmt.Sprintf("keep-%d%s", i, hostile), "source": src,
			"text": strings.Repeat(good, 8) + hostile}))
		lines = append(lines, jsonLine(t, map[string]any{"id": fmt.Sprintf("short-%d%s", i, hostile), "source": src,
			"text": "too short " + hostile}))
	}
	lines = append(lines, `{"id": "<script>broken`+hostile)
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	pipe := filepath.Join(dir, "pipeline.yaml")
	yaml := fmt.Sprintf("input: [%q]\noutput: %q\nstages:\n  - gopher_quality: {}\n  - tokens: {group_by: [source]}\n", in, out)
	if err := os.WriteFile(pipe, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, bin, "run", pipe)
	pagePath := filepath.Join(dir, "report.html")
	run(t, bin, "report", out, "-o", pagePath)

	b.open(t, pagePath, 1280)
	var got struct {
		Title   string `json:"title"`
		Scripts int    `json:"scripts"`
		Images  int    `json:"images"`
		Text    string `json:"text"`
		Marks   int    `json:"marks"`
	}
	b.eval(t, `({title: document.title, scripts: document.scripts.length, images: document.images.length,
		text: document.body.innerText, marks: document.querySelectorAll("rect.mark").length})`, &got)
	if got.Title == "pwned" || got.Scripts != 0 || got.Images != 0 {
		t.Errorf("markup from the data became elements: title %q, %d scripts, %d images", got.Title, got.Scripts, got.Images)
	}
	for _, want := range []string{"short-0" + hostile, "too short " + hostile, "web0" + hostile} {
		if !strings.Contains(got.Text, want) {
			t.Errorf("the page does not show %q as text", want)
		}
	}
	var titles []string
	b.eval(t, `[...document.querySelectorAll("rect.mark title")].map(t => t.textContent)`, &titles)
	if !strings.Contains(strings.Join(titles, "\n"), "web1"+hostile) {
		t.Errorf("no hover title names the source %q as text", "web1"+hostile)
	}
	b.checkClean(t, pagePath)
}

func jsonLine(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
