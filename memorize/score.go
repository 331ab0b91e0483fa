package memorize

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/sluice-data/sluice/kernels/tokenize"
)

// Generation is a model's output for one probe or canary, as any inference
// engine can write it: {"id", "generation"}. GenerationIDs may replace the
// text with token ids of the probe's tokenizer. For canaries, Rank (the
// canary's rank among all secrets of its format by the model's likelihood,
// 1 the most likely) or LogLik with CandidateLogLiks (the log-likelihoods
// of other random secrets of the same format) give the exposure.
type Generation struct {
	ID               string    `json:"id"`
	Generation       *string   `json:"generation"`
	GenerationIDs    []int     `json:"generation_ids"`
	Rank             *float64  `json:"rank"`
	LogLik           *float64  `json:"loglik"`
	CandidateLogLiks []float64 `json:"candidate_logliks"`
}

// Group is the score of a group of probes or canaries.
type Group struct {
	Group   string  `json:"group"`
	Items   int     `json:"items"`
	Scored  int     `json:"scored"` // with a generation
	Exact   int     `json:"exact"`  // the whole continuation reproduced
	ExactRt float64 `json:"exact_rate"`
	// Longest common token prefix of generation and true continuation.
	LCPMean  float64          `json:"lcp_mean"`
	LCPP50   int              `json:"lcp_p50"`
	LCPP90   int              `json:"lcp_p90"`
	LCPMax   int              `json:"lcp_max"`
	LCPHist  map[string]int   `json:"lcp_histogram,omitempty"`
	Verbatim int              `json:"verbatim"` // at least VerbatimTokens tokens reproduced
	VerbRt   float64          `json:"verbatim_rate"`
	Exposure *ExposureSummary `json:"exposure,omitempty"`
	lcps     []int
	exps     []float64
}

// ExposureSummary sums up the canaries' exposures in a group.
type ExposureSummary struct {
	Canaries int     `json:"canaries"` // with a rank or log-likelihoods
	Mean     float64 `json:"mean"`
	Max      float64 `json:"max"`
	// Bound is the largest exposure the data could show: log2 of the
	// secret space for ranks, log2(candidates+1) for sampled candidates.
	Bound float64 `json:"bound"`
}

// Report is a scoring run's result.
type Report struct {
	Kind           string  `json:"kind"` // probes or canaries
	GroupBy        string  `json:"group_by"`
	VerbatimTokens int     `json:"verbatim_tokens"`
	Missing        int     `json:"missing"` // items without a generation
	Unknown        int     `json:"unknown"` // generations for no item
	Total          Group   `json:"total"`
	Groups         []Group `json:"groups"`
}

// lcp is the number of leading tokens a and b share.
func lcp(a, b []int) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// lcpBuckets label the histogram of common prefix lengths.
var lcpBuckets = []struct {
	lo    int
	label string
}{{0, "0"}, {1, "1-4"}, {5, "5-9"}, {10, "10-19"}, {20, "20-49"}, {50, "50-99"}, {100, "100+"}}

func lcpBucket(n int) string {
	label := lcpBuckets[0].label
	for _, b := range lcpBuckets {
		if n >= b.lo {
			label = b.label
		}
	}
	return label
}

func (g *Group) add(lcpTokens int, exact bool, verbatim int) {
	g.Scored++
	if exact {
		g.Exact++
	}
	if lcpTokens >= verbatim {
		g.Verbatim++
	}
	g.lcps = append(g.lcps, lcpTokens)
}

func (g *Group) finish() {
	if g.Scored > 0 {
		g.ExactRt = float64(g.Exact) / float64(g.Scored)
		g.VerbRt = float64(g.Verbatim) / float64(g.Scored)
		sort.Ints(g.lcps)
		sum := 0
		g.LCPHist = map[string]int{}
		for _, n := range g.lcps {
			sum += n
			g.LCPHist[lcpBucket(n)]++
		}
		g.LCPMean = float64(sum) / float64(len(g.lcps))
		g.LCPP50 = g.lcps[(len(g.lcps)-1)/2]
		g.LCPP90 = g.lcps[int(math.Ceil(0.9*float64(len(g.lcps))))-1]
		g.LCPMax = g.lcps[len(g.lcps)-1]
	}
	if len(g.exps) > 0 {
		g.Exposure.Canaries = len(g.exps)
		sum := 0.0
		for _, e := range g.exps {
			sum += e
			g.Exposure.Max = math.Max(g.Exposure.Max, e)
		}
		g.Exposure.Mean = sum / float64(len(g.exps))
	}
}

// ScoreProbes scores generations against probes. The true continuation is
// the probe's suffix tokenized on its own (as a generated text is), or its
// suffix_ids when the generation gives token ids. Groups are by duplicate
// count stratum when the probes have duplicate counts, else by stratum.
func ScoreProbes(probes []Probe, gens map[string]Generation, verbatim int) (Report, error) {
	groupBy, groupOf := "all", func(p Probe) string { return "all" }
	for _, p := range probes {
		if p.DupCount != nil {
			groupBy, groupOf = "dup_count", func(p Probe) string {
				if p.DupCount == nil {
					return DupStratum(0)
				}
				return DupStratum(*p.DupCount)
			}
			break
		}
		if p.Stratum != "" {
			groupBy, groupOf = "stratum", func(p Probe) string { return p.Stratum }
		}
	}
	rep := Report{Kind: "probes", GroupBy: groupBy, VerbatimTokens: verbatim}
	counters := map[string]*tokenize.Counter{}
	groups := map[string]*Group{}
	known := map[string]bool{}
	for _, p := range probes {
		known[p.ID] = true
		name := groupOf(p)
		g := groups[name]
		if g == nil {
			g = &Group{Group: name}
			groups[name] = g
		}
		g.Items++
		rep.Total.Items++
		gen, ok := gens[p.ID]
		if !ok || gen.Generation == nil && gen.GenerationIDs == nil {
			rep.Missing++
			continue
		}
		truth, got := p.SuffixIDs, gen.GenerationIDs
		if got == nil {
			c := counters[p.Tokenizer]
			if c == nil {
				enc, err := tokenize.Get(p.Tokenizer)
				if err != nil {
					return rep, fmt.Errorf("probe %s: %w", p.ID, err)
				}
				c = enc.NewCounter()
				counters[p.Tokenizer] = c
			}
			truth = c.AppendTokens(nil, []byte(p.Suffix))
			got = c.AppendTokens(nil, []byte(*gen.Generation))
		}
		n := lcp(truth, got)
		g.add(n, n == len(truth), verbatim)
		rep.Total.add(n, n == len(truth), verbatim)
	}
	for id := range gens {
		if !known[id] {
			rep.Unknown++
		}
	}
	rep.finish(groups, func(a, b string) bool { return stratumLess(a, b) })
	return rep, nil
}

// stratumLess orders duplicate-count strata by number, others by name.
func stratumLess(a, b string) bool {
	na, ea := strconv.Atoi(strings.SplitN(a, "-", 2)[0])
	nb, eb := strconv.Atoi(strings.SplitN(b, "-", 2)[0])
	if ea == nil && eb == nil {
		return na < nb
	}
	if (ea == nil) != (eb == nil) {
		return ea == nil
	}
	return a < b
}

func (r *Report) finish(groups map[string]*Group, less func(a, b string) bool) {
	r.Total.Group = "(total)"
	for _, g := range groups {
		for _, e := range g.exps {
			if r.Total.Exposure == nil {
				r.Total.Exposure = &ExposureSummary{}
			}
			r.Total.exps = append(r.Total.exps, e)
		}
		if g.Exposure != nil && r.Total.Exposure != nil {
			r.Total.Exposure.Bound = math.Max(r.Total.Exposure.Bound, g.Exposure.Bound)
		}
		g.finish()
		r.Groups = append(r.Groups, *g)
	}
	r.Total.finish()
	sort.Slice(r.Groups, func(i, j int) bool { return less(r.Groups[i].Group, r.Groups[j].Group) })
}

// Exposure returns a canary's exposure from the generation, and its bound,
// or ok false when the generation gives neither a rank nor log-likelihoods.
// With a rank r among the 2^space secrets: space - log2 r. With the
// canary's log-likelihood and those of K other random secrets: the
// estimate -log2((1 + #candidates at least as likely) / (K + 1)).
func Exposure(c Canary, g Generation) (exposure, bound float64, ok bool) {
	if g.Rank != nil && *g.Rank >= 1 {
		return c.SpaceBits - math.Log2(*g.Rank), c.SpaceBits, true
	}
	if g.LogLik != nil && len(g.CandidateLogLiks) > 0 {
		better := 0
		for _, l := range g.CandidateLogLiks {
			if l >= *g.LogLik {
				better++
			}
		}
		k := float64(len(g.CandidateLogLiks))
		return -math.Log2(float64(1+better) / (k + 1)), math.Log2(k + 1), true
	}
	return 0, 0, false
}

// ScoreCanaries scores generations for canaries, grouped by repeat count.
// A generation is the model's continuation of the canary's prompt; it
// matches exactly when, leading spaces aside, it starts with the secret.
// The common prefix counts matching characters of the secret.
func ScoreCanaries(canaries []Canary, gens map[string]Generation, verbatim int) Report {
	rep := Report{Kind: "canaries", GroupBy: "repeats", VerbatimTokens: verbatim}
	groups := map[string]*Group{}
	known := map[string]bool{}
	for _, c := range canaries {
		known[c.ID] = true
		name := strconv.Itoa(c.Repeats)
		g := groups[name]
		if g == nil {
			g = &Group{Group: name}
			groups[name] = g
		}
		g.Items++
		rep.Total.Items++
		gen, ok := gens[c.ID]
		if !ok {
			rep.Missing++
			continue
		}
		if e, bound, ok := Exposure(c, gen); ok {
			if g.Exposure == nil {
				g.Exposure = &ExposureSummary{}
			}
			g.Exposure.Bound = math.Max(g.Exposure.Bound, bound)
			g.exps = append(g.exps, e)
		}
		if gen.Generation == nil {
			continue
		}
		out := strings.TrimLeft(*gen.Generation, " ")
		n := 0
		for n < len(out) && n < len(c.Secret) && out[n] == c.Secret[n] {
			n++
		}
		g.add(n, n == len(c.Secret), verbatim)
		rep.Total.add(n, n == len(c.Secret), verbatim)
	}
	for id := range gens {
		if !known[id] {
			rep.Unknown++
		}
	}
	rep.finish(groups, stratumLess)
	return rep
}

// WriteText writes the report as a table.
func (r Report) WriteText(w io.Writer) {
	unit := "tokens"
	if r.Kind == "canaries" {
		unit = "secret digits"
	}
	fmt.Fprintf(w, "%s scored by %s; common prefix in %s", r.Kind, r.GroupBy, unit)
	if r.Kind == "probes" {
		fmt.Fprintf(w, "; verbatim = at least %d tokens reproduced", r.VerbatimTokens)
	}
	fmt.Fprintln(w)
	probes := r.Kind == "probes"
	fmt.Fprintf(w, "%-10s %7s %7s %8s %9s %7s %7s %7s", r.GroupBy, "items", "scored", "exact", "lcp_mean", "p50", "p90", "max")
	if probes {
		fmt.Fprintf(w, " %9s", "verbatim")
	}
	withExp := r.Total.Exposure != nil
	if withExp {
		fmt.Fprintf(w, " %13s %9s", "exposure_mean", "max/bound")
	}
	fmt.Fprintln(w)
	row := func(g Group) {
		fmt.Fprintf(w, "%-10s %7d %7d %7.1f%% %9.2f %7d %7d %7d", g.Group, g.Items, g.Scored, 100*g.ExactRt, g.LCPMean,
			g.LCPP50, g.LCPP90, g.LCPMax)
		if probes {
			fmt.Fprintf(w, " %8.1f%%", 100*g.VerbRt)
		}
		if withExp {
			if g.Exposure != nil {
				fmt.Fprintf(w, " %13.2f %4.1f/%4.1f", g.Exposure.Mean, g.Exposure.Max, g.Exposure.Bound)
			} else {
				fmt.Fprintf(w, " %13s %9s", "-", "-")
			}
		}
		fmt.Fprintln(w)
	}
	for _, g := range r.Groups {
		row(g)
	}
	row(r.Total)
	if r.Missing > 0 || r.Unknown > 0 {
		fmt.Fprintf(w, "%d without a generation; %d generations for unknown ids\n", r.Missing, r.Unknown)
	}
}
