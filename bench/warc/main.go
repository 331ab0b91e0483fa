// Command warcbench measures sluice's WARC reader and HTML text extraction
// on one core, side by side with peers in the same run: for reading,
// github.com/nlnwa/gowarc and bare gzip decompression (the floor); for
// extraction, github.com/markusmobius/go-trafilatura (the Go port of
// trafilatura). It lives in its own module so that the peers do not become
// dependencies of sluice.
//
//	warcbench gen -n 2000 -o pages.warc.gz    # a generated crawl of 50-100 KB pages
//	warcbench read pages.warc.gz              # MB/s of gzipped WARC per core
//	warcbench extract pages.warc.gz           # pages/s per core, plain and main vs trafilatura
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/klauspost/compress/gzip"
	trafilatura "github.com/markusmobius/go-trafilatura"
	"github.com/nlnwa/gowarc"
	"github.com/sluice-data/sluice/io/warc"
	"github.com/sluice-data/sluice/kernels/htmltext"
)

func main() {
	runtime.GOMAXPROCS(1) // every figure is per core
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: warcbench gen|read|extract ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = gen(os.Args[2:])
	case "read":
		err = read(os.Args[2:])
	case "extract":
		err = extract(os.Args[2:])
	default:
		err = fmt.Errorf("unknown subcommand %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "warcbench:", err)
		os.Exit(1)
	}
}

// best runs f reps times and returns the shortest time.
func best(reps int, f func() error) (time.Duration, error) {
	var min time.Duration
	for i := 0; i < reps; i++ {
		runtime.GC()
		t0 := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		if d := time.Since(t0); i == 0 || d < min {
			min = d
		}
	}
	return min, nil
}

func read(args []string) error {
	fs := flag.NewFlagSet("read", flag.ExitOnError)
	reps := fs.Int("reps", 3, "runs of each reader; the fastest counts")
	fs.Parse(args)
	path := fs.Arg(0)
	data, err := os.ReadFile(path) // from memory: reading, not the disk, is measured
	if err != nil {
		return err
	}
	var raw int64
	var records int
	sluiceRead := func() error {
		r, err := warc.NewReader(bytes.NewReader(data), warc.Options{})
		if err != nil {
			return err
		}
		br := warc.NewBatchReader(memory.DefaultAllocator, r, warc.BatchOptions{Types: []string{"response"}, Rows: 4096})
		defer br.Release()
		records = 0
		for {
			rec, bad, err := br.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil || len(bad) > 0 {
				return fmt.Errorf("sluice reader: %v %v", err, bad)
			}
			if rec != nil {
				records += int(rec.NumRows())
				rec.Release()
			}
		}
	}
	gunzip := func() error {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return err
		}
		raw, err = io.Copy(io.Discard, zr)
		return err
	}
	gowarcRead := func() error {
		r, err := gowarc.NewWarcFileReaderFromStream(bytes.NewReader(data), 0, gowarc.WithSpecViolationPolicy(gowarc.ErrIgnore),
			gowarc.WithSyntaxErrorPolicy(gowarc.ErrIgnore), gowarc.WithUnknownRecordTypePolicy(gowarc.ErrIgnore))
		if err != nil {
			return err
		}
		defer r.Close()
		for {
			rec, _, _, err := r.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if rec.Type() != gowarc.Response {
				continue
			}
			if b, ok := rec.Block().(gowarc.HttpResponseBlock); ok {
				p, err := b.PayloadBytes()
				if err != nil {
					return err
				}
				if _, err := io.Copy(io.Discard, p); err != nil {
					return err
				}
			}
		}
	}
	tg, err := best(*reps, gunzip)
	if err != nil {
		return err
	}
	ts, err := best(*reps, sluiceRead)
	if err != nil {
		return err
	}
	tw, err := best(*reps, gowarcRead)
	if err != nil {
		return err
	}
	mb := float64(len(data)) / 1e6
	fmt.Printf("input: %s, %.1f MB gzipped, %.1f MB decompressed (ratio %.2f), %d responses, 1 core\n",
		path, mb, float64(raw)/1e6, float64(raw)/float64(len(data)), records)
	line := func(name string, d time.Duration) {
		fmt.Printf("  %-34s %7.3fs %7.1f MB/s gzipped  %7.1f MB/s decompressed  %5.2fx gzip floor time\n",
			name, d.Seconds(), mb/d.Seconds(), float64(raw)/1e6/d.Seconds(), d.Seconds()/tg.Seconds())
	}
	line("gzip -d only (klauspost, floor)", tg)
	line("sluice io/warc -> Arrow batches", ts)
	line("nlnwa/gowarc payloads", tw)
	fmt.Printf("  sluice is %.2fx the speed of gowarc\n", tw.Seconds()/ts.Seconds())
	return nil
}

func extract(args []string) error {
	fs := flag.NewFlagSet("extract", flag.ExitOnError)
	n := fs.Int("pages", 500, "pages to extract (from the start of the file)")
	reps := fs.Int("reps", 3, "runs of each extractor; the fastest counts")
	fs.Parse(args)
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := warc.NewReader(f, warc.Options{})
	if err != nil {
		return err
	}
	var bodies [][]byte
	var total int
	for len(bodies) < *n {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if rec.Get("WARC-Type") != "response" {
			continue
		}
		resp := warc.ParseHTTPResponse(rec.Block, 1<<30)
		bodies = append(bodies, bytes.Clone(resp.Body))
		total += len(resp.Body)
	}
	var e htmltext.Extractor
	var outChars int
	run := func(mode htmltext.Mode) func() error {
		return func() error {
			outChars = 0
			for _, b := range bodies {
				outChars += len(e.Extract(b, "text/html; charset=utf-8", mode).Text)
			}
			return nil
		}
	}
	traf := func() error {
		outChars = 0
		for _, b := range bodies {
			res, err := trafilatura.Extract(bytes.NewReader(b), trafilatura.Options{ExcludeComments: true})
			if err != nil {
				continue // trafilatura finds no content in some pages
			}
			outChars += len(res.ContentText)
		}
		return nil
	}
	fmt.Printf("%d pages, mean %.1f KB, 1 core\n", len(bodies), float64(total)/float64(len(bodies))/1e3)
	var tPlain, tMain time.Duration
	for _, c := range []struct {
		name string
		f    func() error
		d    *time.Duration
	}{{"sluice plain", run(htmltext.Plain), &tPlain}, {"sluice main", run(htmltext.Main), &tMain}, {"go-trafilatura", traf, nil}} {
		d, err := best(*reps, c.f)
		if err != nil {
			return err
		}
		if c.d != nil {
			*c.d = d
		}
		extra := ""
		if c.d == nil {
			extra = fmt.Sprintf("  (sluice main is %.1fx its speed)", d.Seconds()/tMain.Seconds())
		}
		fmt.Printf("  %-16s %8.1f pages/s %7.1f MB/s  %6.0f chars of text a page%s\n", c.name,
			float64(len(bodies))/d.Seconds(), float64(total)/1e6/d.Seconds(), float64(outChars)/float64(len(bodies)), extra)
	}
	return nil
}

// gen writes a crawl of generated pages.
func gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	n := fs.Int("n", 2000, "pages")
	out := fs.String("o", "pages.warc.gz", "output file")
	seed := fs.Uint64("seed", 1, "random seed")
	fs.Parse(args)
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	w := warc.NewWriter(bw, true)
	g := newGenerator(*seed)
	for i := 0; i < *n; i++ {
		page := g.page(i)
		url := fmt.Sprintf("https://site%d.example/%s/%d.html", i%97, g.word(), i)
		fields := []warc.Field{{Name: "WARC-Type", Value: "request"}, {Name: "WARC-Target-URI", Value: url}}
		if err := w.Write(fields, []byte("GET / HTTP/1.1\r\nHost: example\r\nUser-Agent: bench\r\n\r\n")); err != nil {
			return err
		}
		fields = []warc.Field{{Name: "WARC-Type", Value: "response"}, {Name: "WARC-Target-URI", Value: url},
			{Name: "WARC-Date", Value: "2024-06-01T00:00:00Z"}, {Name: "WARC-Record-ID", Value: fmt.Sprintf("<urn:uuid:%d>", i)},
			{Name: "Content-Type", Value: "application/http; msgtype=response"}}
		block := warc.HTTPBlock(200, []warc.Field{{Name: "Content-Type", Value: "text/html; charset=utf-8"},
			{Name: "Server", Value: "nginx"}, {Name: "Cache-Control", Value: "max-age=600"}}, page)
		if err := w.Write(fields, block); err != nil {
			return err
		}
		if err := w.Write([]warc.Field{{Name: "WARC-Type", Value: "metadata"}, {Name: "WARC-Target-URI", Value: url}},
			[]byte("fetchTimeMs: 120\r\n")); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// generator makes pages of 50-100 KB shaped like news and blog pages:
// head with styles and scripts, navigation, a cookie banner, an article
// of Zipf-distributed words, a sidebar of links, a footer.
type generator struct {
	rng   *rand.Rand
	vocab []string
	cdf   []float64
}

func newGenerator(seed uint64) *generator {
	g := &generator{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	syll := []string{"ka", "ro", "men", "ti", "sa", "lo", "ver", "an", "de", "mi", "str", "on", "el", "wa", "ter", "ri", "us", "pe", "gra", "fi", "the", "in", "or", "al"}
	var sum float64
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for k := 0; k < 1+g.rng.IntN(4); k++ {
			b.WriteString(syll[g.rng.IntN(len(syll))])
		}
		g.vocab = append(g.vocab, b.String())
		sum += 1 / math.Pow(float64(i+1), 1.07)
		g.cdf = append(g.cdf, sum)
	}
	for i := range g.cdf {
		g.cdf[i] /= sum
	}
	return g
}

func (g *generator) word() string {
	x := g.rng.Float64()
	lo, hi := 0, len(g.cdf)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if g.cdf[mid] < x {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return g.vocab[lo]
}

func (g *generator) sentence(b *bytes.Buffer) {
	n := 6 + g.rng.IntN(18)
	for i := 0; i < n; i++ {
		w := g.word()
		if i == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(w)
		if i > 0 && i < n-1 && g.rng.IntN(12) == 0 {
			b.WriteByte(',')
		}
	}
	b.WriteString(". ")
}

func (g *generator) links(b *bytes.Buffer, n int, class string) {
	fmt.Fprintf(b, "<ul class=\"%s\">\n", class)
	for i := 0; i < n; i++ {
		fmt.Fprintf(b, "  <li class=\"%s-item\"><a href=\"/%s/%s-%d\" title=\"%s\">%s %s</a></li>\n", class, g.word(), g.word(), g.rng.IntN(99999), g.word(), g.word(), g.word())
	}
	b.WriteString("</ul>\n")
}

func (g *generator) page(i int) []byte {
	var b bytes.Buffer
	target := 50_000 + g.rng.IntN(50_000)
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s %s %s | Site %d</title>\n", g.word(), g.word(), g.word(), i%97)
	for k := 0; k < 8; k++ {
		fmt.Fprintf(&b, "<meta name=\"%s\" content=\"%s %s %s\">\n", g.word(), g.word(), g.word(), g.word())
	}
	b.WriteString("<style>\n")
	for k := 0; k < 60; k++ {
		fmt.Fprintf(&b, ".%s-%s { margin: %dpx %dpx; color: #%06x; font-size: %d.%dem; }\n", g.word(), g.word(), g.rng.IntN(40), g.rng.IntN(40), g.rng.IntN(1<<24), 1, g.rng.IntN(9))
	}
	b.WriteString("</style>\n<script>\n")
	for k := 0; k < 80; k++ {
		fmt.Fprintf(&b, "function %s_%d(e){var %s=document.querySelector('.%s');if(%s){%s.classList.toggle('%s');}return %d;}\n", g.word(), k, g.word(), g.word(), g.word(), g.word(), g.word(), g.rng.IntN(1000))
	}
	b.WriteString("</script>\n</head>\n<body class=\"page\">\n<div class=\"cookie-banner\"><p>We use cookies to improve your experience. By using this site you accept our use of cookies.</p><button>Accept</button></div>\n")
	b.WriteString("<header class=\"site-header\"><nav class=\"main-nav\">\n")
	g.links(&b, 30, "nav")
	b.WriteString("</nav></header>\n<main><article class=\"post\">\n")
	fmt.Fprintf(&b, "<h1>%s %s %s</h1>\n<p class=\"byline\">By %s %s</p>\n", g.word(), g.word(), g.word(), g.word(), g.word())
	side := b.Len()
	for b.Len()-side < target*45/100 {
		if g.rng.IntN(6) == 0 {
			fmt.Fprintf(&b, "<h2>%s %s</h2>\n", g.word(), g.word())
		}
		b.WriteString("<p>")
		for s := 0; s < 2+g.rng.IntN(6); s++ {
			if g.rng.IntN(8) == 0 {
				fmt.Fprintf(&b, "<a href=\"/%s\">%s %s</a> ", g.word(), g.word(), g.word())
			}
			g.sentence(&b)
		}
		b.WriteString("</p>\n")
	}
	b.WriteString("</article></main>\n<aside class=\"sidebar\"><h3>Popular</h3>\n")
	g.links(&b, 25, "popular")
	b.WriteString("</aside>\n<footer class=\"site-footer\">\n")
	for b.Len() < target-2000 {
		g.links(&b, 20, "footer-links")
	}
	b.WriteString("<p>&copy; 2024 Example Media. All rights reserved.</p></footer>\n")
	fmt.Fprintf(&b, "<script type=\"application/ld+json\">{\"@context\":\"https://schema.org\",\"@type\":\"NewsArticle\",\"headline\":\"%s %s\"}</script>\n</body>\n</html>\n", g.word(), g.word())
	return b.Bytes()
}
