package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot/vg"
)

// displayBins is the number of bars of a signal histogram.
const displayBins = 40

// draw makes the charts of the page.
func (rep *Report) draw() error {
	add := func(c Chart, err error) error {
		if err != nil {
			return err
		}
		rep.charts[c.ID] = c
		return nil
	}
	if err := add(rep.funnelChart()); err != nil {
		return err
	}
	if len(rep.Reasons) > 0 {
		if err := add(rep.reasonsChart()); err != nil {
			return err
		}
	}
	for _, s := range rep.Signals {
		c, err := signalChart(s, nil)
		if err != nil {
			return err
		}
		s.Chart = c
	}
	if t := rep.Tokens; t != nil && len(t.Sources) > 0 {
		if err := add(rep.tokensChart()); err != nil {
			return err
		}
	}
	if len(rep.Languages) > 0 {
		if err := add(rep.languagesChart()); err != nil {
			return err
		}
	}
	if len(rep.Clusters) > 0 {
		if err := add(rep.clustersChart()); err != nil {
			return err
		}
	}
	if len(rep.Contam) > 0 {
		if err := add(rep.contamChart()); err != nil {
			return err
		}
	}
	if len(rep.Quarantine) > 0 {
		if err := add(rep.quarantineChart()); err != nil {
			return err
		}
	}
	if len(rep.Funnel) > 0 {
		if err := add(rep.timesChart()); err != nil {
			return err
		}
	}
	for i, ph := range rep.Tasks {
		if err := add(taskChart(i, ph)); err != nil {
			return err
		}
	}
	return nil
}

// Chart returns the chart of the page with that id (empty when none).
func (rep *Report) Chart(id string) Chart { return rep.charts[id] }

// Charts returns every chart of the page, signals included.
func (rep *Report) Charts() []Chart {
	var out []Chart
	for _, c := range rep.charts {
		out = append(out, c)
	}
	for _, s := range rep.Signals {
		out = append(out, s.Chart)
	}
	slices.SortFunc(out, func(a, b Chart) int {
		if a.ID < b.ID {
			return -1
		}
		if a.ID > b.ID {
			return 1
		}
		return 0
	})
	return out
}

func (rep *Report) stepName(s Step) string {
	if len(rep.Runs) > 1 {
		return fmt.Sprintf("%d. %s", s.Run+1, s.Stage)
	}
	return s.Stage
}

// funnelChart is a stepped bar: for each stage the rows it kept and, after
// them, the rows it removed; the first bar is the lines read and those
// quarantined.
func (rep *Report) funnelChart() (Chart, error) {
	c := rep.Counts
	cats := []string{"read"}
	kept := series{Name: "kept", Color: keptColor, Values: []float64{float64(c.RowsIn - c.Quarantined)}}
	removed := series{Name: "removed", Color: removedColor, Values: []float64{0}}
	quar := series{Name: "quarantined", Color: "#999999", Values: []float64{float64(c.Quarantined)}}
	kept.Titles = []string{fmt.Sprintf("%s rows read", thousands(c.RowsIn-c.Quarantined))}
	removed.Titles = []string{""}
	quar.Titles = []string{fmt.Sprintf("%s lines quarantined", thousands(c.Quarantined))}
	labels := []string{fmt.Sprintf("%s in", thousands(c.RowsIn))}
	if c.Quarantined > 0 {
		labels[0] += fmt.Sprintf(", %s quarantined", thousands(c.Quarantined))
	}
	for _, s := range rep.Funnel {
		gone := s.RowsIn + s.Inserted - s.RowsOut
		cats = append(cats, rep.stepName(s))
		kept.Values = append(kept.Values, float64(s.RowsOut))
		removed.Values = append(removed.Values, float64(max(gone, 0)))
		quar.Values = append(quar.Values, 0)
		kept.Titles = append(kept.Titles, fmt.Sprintf("%s: %s rows out of %s in", s.Stage, thousands(s.RowsOut), thousands(s.RowsIn)))
		removed.Titles = append(removed.Titles, fmt.Sprintf("%s: %s rows removed", s.Stage, thousands(gone)))
		quar.Titles = append(quar.Titles, "")
		l := thousands(s.RowsOut)
		if gone > 0 {
			l += " (−" + thousands(gone) + ")"
		}
		labels = append(labels, l)
	}
	return barChart(barSpec{id: "funnel", title: "Rows through the stages", valueLabel: "rows", catLabel: "",
		categories: cats, series: []series{kept, removed, quar}, labels: labels})
}

func (rep *Report) reasonsChart() (Chart, error) {
	var cats, labels, titles []string
	var vals []float64
	for _, r := range rep.Reasons {
		n := max(r.Rows, r.Manifest)
		name := r.Stage + ": " + r.Reason
		if len(rep.Runs) > 1 {
			name = fmt.Sprintf("%d. %s", r.Run+1, name)
		}
		cats = append(cats, name)
		vals = append(vals, float64(n))
		share := percent(n, rep.Counts.RowsIn)
		labels = append(labels, fmt.Sprintf("%s (%s)", thousands(n), share))
		titles = append(titles, fmt.Sprintf("%s removed %s rows for %s, %s of the rows read", r.Stage, thousands(n), r.Reason, share))
	}
	return barChart(barSpec{id: "reasons", title: "Rows removed by reason", valueLabel: "rows removed",
		categories: cats, series: []series{{Name: "removed", Color: removedColor, Values: vals, Titles: titles}}, labels: labels})
}

// displayRange is the range a signal's chart shows: where the middle 99%
// of the rows are, widened to the thresholds within the data's range.
func displayRange(s *Signal) (lo, hi float64) {
	if s.hi <= s.lo {
		return s.lo - 0.5, s.hi + 0.5
	}
	w := (s.hi - s.lo) / fineBins
	var cum int64
	lo, hi = s.lo, s.hi
	cut := s.Rows / 200
	for i, n := range s.bins {
		cum += n
		if cum > cut {
			lo = s.lo + float64(i)*w
			break
		}
	}
	cum = 0
	for i := len(s.bins) - 1; i >= 0; i-- {
		cum += s.bins[i]
		if cum > cut {
			hi = s.lo + float64(i+1)*w
			break
		}
	}
	for _, t := range s.Thresholds {
		if t.Value >= s.lo && t.Value <= s.hi {
			lo, hi = math.Min(lo, t.Value), math.Max(hi, t.Value)
		}
	}
	if hi <= lo {
		hi = lo + w
	}
	return lo, hi
}

// rebin counts the rows of s in n equal bins over [lo, hi]; rows outside
// go to the end bins.
func rebin(s *Signal, lo, hi float64, n int) []float64 {
	out := make([]float64, n)
	w := (s.hi - s.lo) / fineBins
	for i, c := range s.bins {
		if c == 0 {
			continue
		}
		mid := s.lo + (float64(i)+0.5)*w
		if s.hi <= s.lo {
			mid = s.lo
		}
		b := int((mid - lo) / (hi - lo) * float64(n))
		out[min(max(b, 0), n-1)] += float64(c)
	}
	return out
}

// signalChart is a histogram of a signal with its thresholds. With other,
// the same signal of another run is drawn beside it (--compare).
func signalChart(s *Signal, other *Signal) (Chart, error) {
	lo, hi := displayRange(s)
	if other != nil {
		olo, ohi := displayRange(other)
		lo, hi = math.Min(lo, olo), math.Max(hi, ohi)
	}
	n := displayBins
	integer := s.integer
	if integer && hi-lo+1 <= displayBins {
		lo, hi = math.Floor(lo)-0.5, math.Floor(hi)+0.5
		n = int(hi - lo)
	}
	w := (hi - lo) / float64(n)
	pos, width := make([]float64, n), make([]float64, n)
	for i := range pos {
		pos[i] = lo + (float64(i)+0.5)*w
		width[i] = w * 0.92
	}
	counts := rebin(s, lo, hi, n)
	pass := series{Name: "on the kept side", Color: keptColor, Values: make([]float64, n), Titles: make([]string, n)}
	fail := series{Name: "on the removed side", Color: removedColor, Values: make([]float64, n), Titles: make([]string, n)}
	for i, c := range counts {
		from, to := lo+float64(i)*w, lo+float64(i+1)*w
		title := fmt.Sprintf("%s %s to %s: %s rows (%s)", s.Column, number(from), number(to), thousands(int64(c)), percent(int64(c), s.Rows))
		if integer && w == 1 {
			title = fmt.Sprintf("%s = %s: %s rows (%s)", s.Column, number(pos[i]), thousands(int64(c)), percent(int64(c), s.Rows))
		}
		ok := true
		for _, t := range s.Thresholds {
			ok = ok && t.passes(pos[i])
		}
		if ok {
			pass.Values[i], pass.Titles[i] = c, title
		} else {
			fail.Values[i], fail.Titles[i] = c, title
		}
	}
	ser := []series{pass, fail}
	if len(s.Thresholds) == 0 {
		pass.Name, pass.Color = "rows", otherColor
		ser = []series{pass}
	}
	grouped := false
	if other != nil {
		oc := rebin(other, lo, hi, n)
		a := series{Name: "this run", Color: otherColor, Values: make([]float64, n), Titles: make([]string, n)}
		b := series{Name: "compared run", Color: "#f28e2b", Values: oc, Titles: make([]string, n)}
		for i := range counts {
			a.Values[i] = counts[i] / math.Max(1, float64(s.Rows)) * 100
			b.Values[i] = oc[i] / math.Max(1, float64(other.Rows)) * 100
			a.Titles[i] = fmt.Sprintf("this run: %s of rows at %s", fmt.Sprintf("%.2f%%", a.Values[i]), number(pos[i]))
			b.Titles[i] = fmt.Sprintf("compared run: %s of rows at %s", fmt.Sprintf("%.2f%%", b.Values[i]), number(pos[i]))
		}
		ser, grouped = []series{a, b}, true
	}
	title := s.Column
	if s.Stage != "" {
		title += " (" + s.Stage + ")"
	}
	yLabel := "rows"
	if other != nil {
		yLabel = "% of rows"
	}
	p := newPlot(title, s.Column, yLabel)
	var marks []mark
	p.Add(&bars{pos: pos, width: width, series: ser, grouped: grouped, marks: &marks})
	p.Y.Tick.Marker = countTicks{}
	p.Y.Min = 0
	p.X.Min, p.X.Max = lo, hi
	for _, t := range s.Thresholds {
		left, right := "removed "+t.LeftShare, "kept "+t.RightShare
		if t.LeftIsPassing {
			left, right = "kept "+t.LeftShare, "removed "+t.RightShare
		}
		p.Add(&vline{x: t.Value, left: left, right: right, title: t.Title, marks: &marks})
	}
	// Room above the bars for the shares written by the lines.
	top := 0.0
	for _, sr := range ser {
		for _, v := range sr.Values {
			top = math.Max(top, v)
		}
	}
	p.Y.Max = top * 1.18
	c, err := render("signal-"+s.Column, p, vg.Points(480), vg.Points(260), &marks)
	if err != nil {
		return c, err
	}
	if len(ser) > 1 {
		for _, sr := range ser {
			c.Legend = append(c.Legend, LegendItem{sr.Name, sr.Color})
		}
	}
	return c, nil
}

// tokensChart stacks the tokens of each source by language (the top
// languages; the rest as "other").
func (rep *Report) tokensChart() (Chart, error) {
	t := rep.Tokens
	top := rep.opts.Top
	sources := t.Sources
	var cats []string
	for i, s := range sources {
		if i == top {
			break
		}
		cats = append(cats, s.Name)
	}
	var langs []string
	for i, l := range rep.Languages {
		if i == min(top, len(palette)-1) {
			break
		}
		langs = append(langs, l.Name)
	}
	if len(langs) == 0 {
		langs = []string{""}
	}
	var ser []series
	for li, l := range langs {
		name := l
		if name == "" {
			name = "tokens"
		}
		s := series{Name: name, Color: palette[li%len(palette)], Values: make([]float64, len(cats)), Titles: make([]string, len(cats))}
		for i, src := range cats {
			v := t.bySourceLang[[2]string{src, l}]
			s.Values[i] = float64(v)
			s.Titles[i] = fmt.Sprintf("%s, %s: %s tokens", src, name, thousands(v))
		}
		ser = append(ser, s)
	}
	if len(rep.Languages) > len(langs) {
		in := map[string]bool{}
		for _, l := range langs {
			in[l] = true
		}
		s := series{Name: "other languages", Color: palette[len(palette)-1], Values: make([]float64, len(cats)), Titles: make([]string, len(cats))}
		for k, v := range t.bySourceLang {
			if in[k[1]] {
				continue
			}
			if i := slices.Index(cats, k[0]); i >= 0 {
				s.Values[i] += float64(v)
			}
		}
		for i, src := range cats {
			s.Titles[i] = fmt.Sprintf("%s, other languages: %s tokens", src, thousands(int64(s.Values[i])))
		}
		ser = append(ser, s)
	}
	labels := make([]string, len(cats))
	for i := range cats {
		labels[i] = compact(float64(sources[i].Tokens))
	}
	return barChart(barSpec{id: "tokens", title: "Tokens per source and language", valueLabel: "tokens (" + t.Column + ")",
		categories: cats, series: ser, labels: labels})
}

func (rep *Report) languagesChart() (Chart, error) {
	var cats, labels, titles []string
	var vals []float64
	for i, l := range rep.Languages {
		if i == rep.opts.Top {
			break
		}
		cats = append(cats, l.Name)
		vals = append(vals, float64(l.Rows))
		labels = append(labels, fmt.Sprintf("%s (%s)", thousands(l.Rows), l.RowShare))
		titles = append(titles, fmt.Sprintf("%s: %s rows, %s of the kept rows", l.Name, thousands(l.Rows), l.RowShare))
	}
	return barChart(barSpec{id: "languages", title: fmt.Sprintf("Languages of the kept rows (top %d)", len(cats)), valueLabel: "rows",
		categories: cats, series: []series{{Name: "rows", Color: otherColor, Values: vals, Titles: titles}}, labels: labels})
}

func (rep *Report) clustersChart() (Chart, error) {
	var cats, labels, titles []string
	var vals []float64
	for _, c := range rep.Clusters {
		name := strconv.FormatInt(c.Size, 10)
		if len(rep.Clusters) > 0 && rep.Clusters[0].Stage != rep.Clusters[len(rep.Clusters)-1].Stage {
			name = c.Stage + " " + name
		}
		cats = append(cats, name)
		vals = append(vals, float64(c.Clusters))
		labels = append(labels, thousands(c.Clusters))
		titles = append(titles, fmt.Sprintf("%s: %s clusters of %d documents", c.Stage, thousands(c.Clusters), c.Size))
	}
	return barChart(barSpec{id: "clusters", title: "Duplicate clusters by size", valueLabel: "clusters (log scale)", catLabel: "documents in the cluster",
		categories: cats, series: []series{{Name: "clusters", Color: otherColor, Values: vals, Titles: titles}}, labels: labels,
		logScale: true, vertical: true})
}

func (rep *Report) contamChart() (Chart, error) {
	var cats, labels, titles []string
	var vals []float64
	for _, e := range rep.Contam {
		cats = append(cats, e.Name)
		vals = append(vals, float64(e.Contaminated))
		labels = append(labels, fmt.Sprintf("%s of %s (%s)", thousands(e.Contaminated), thousands(e.Examples), e.Fraction))
		titles = append(titles, fmt.Sprintf("%s: %s of %s examples found in the corpus", e.Name, thousands(e.Contaminated), thousands(e.Examples)))
	}
	return barChart(barSpec{id: "contamination", title: "Evaluation examples found in the corpus", valueLabel: "examples",
		categories: cats, series: []series{{Name: "contaminated", Color: removedColor, Values: vals, Titles: titles}}, labels: labels})
}

func (rep *Report) quarantineChart() (Chart, error) {
	var cats, labels, titles []string
	var vals []float64
	for _, q := range rep.Quarantine {
		cats = append(cats, q.Kind)
		vals = append(vals, float64(q.Lines))
		labels = append(labels, thousands(q.Lines))
		titles = append(titles, fmt.Sprintf("%s: %s lines", q.Kind, thousands(q.Lines)))
	}
	return barChart(barSpec{id: "quarantine", title: "Quarantined lines by error", valueLabel: "lines",
		categories: cats, series: []series{{Name: "lines", Color: "#999999", Values: vals, Titles: titles}}, labels: labels})
}

func (rep *Report) timesChart() (Chart, error) {
	var cats, labels, titles []string
	var vals []float64
	for _, s := range rep.Funnel {
		cats = append(cats, rep.stepName(s))
		vals = append(vals, s.Seconds)
		labels = append(labels, seconds(s.Seconds))
		titles = append(titles, fmt.Sprintf("%s: %.6f s", s.Stage, s.Seconds))
	}
	return barChart(barSpec{id: "times", title: "Time per stage (summed over workers)", valueLabel: "seconds",
		categories: cats, series: []series{{Name: "seconds", Color: otherColor, Values: vals, Titles: titles}}, labels: labels})
}

func taskChart(i int, ph Phase) (Chart, error) {
	var cats, labels, titles []string
	var vals []float64
	for _, t := range ph.Tasks {
		cats = append(cats, strconv.Itoa(t.Index))
		vals = append(vals, t.Seconds)
		if len(ph.Tasks) <= 24 {
			labels = append(labels, seconds(t.Seconds))
		}
		titles = append(titles, fmt.Sprintf("%s task %d on %s: %.3f s", ph.Name, t.Index, t.Host, t.Seconds))
	}
	return barChart(barSpec{id: fmt.Sprintf("tasks-%d", i), title: "Task times of " + ph.Name, valueLabel: "seconds", catLabel: "task",
		categories: cats, series: []series{{Name: "seconds", Color: otherColor, Values: vals, Titles: titles}}, labels: labels, vertical: true})
}

// seconds writes a duration short: 0.8 ms, 12 ms, 1.3 s, 2 min.
func seconds(s float64) string {
	switch {
	case s < 0.01:
		return fmt.Sprintf("%.1f ms", s*1000)
	case s < 1:
		return fmt.Sprintf("%.0f ms", s*1000)
	case s < 120:
		return fmt.Sprintf("%.1f s", s)
	}
	return fmt.Sprintf("%.1f min", s/60)
}
