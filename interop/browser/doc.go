// Package browser checks the page `sluice report` writes in a real
// browser: headless Chromium, driven over the DevTools protocol by
// github.com/chromedp/chromedp.
//
// The package has no code of its own; its tests build the sluice binary
// from the repository root, run the demo (which writes
// sluice-demo/report.html) and a report over rows whose ids, texts and
// sources hold markup, open the pages from file:// and check that nothing
// is fetched, nothing runs, no error is logged, every chart has its marks,
// the funnel equals the manifests, and the page fits 1280 and 390 pixels
// wide. Screenshots go to $SLUICE_ARTIFACTS, or to the system's temporary
// folder, and their paths are logged.
//
// It is a separate Go module so that the main module does not depend on
// chromedp. Without Chromium the tests skip, unless SLUICE_CI=1 (set by
// .ci/run, which installs Debian's chromium), where they fail.
package browser
