package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
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
		s.histogram = s.layout()
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

// signalChart is a histogram of a signal with its thresholds: each bar
// its rows on the kept side in green and on the removed side in red. With
// other, the same signal of another run is drawn beside it, in the same
// bars (--compare).
func signalChart(s *Signal, other *Signal) (Chart, error) {
	hist := s.histogram
	n := len(hist.Bins)
	pos, width := make([]float64, n), make([]float64, n)
	a := axisSpace{log: hist.LogX}
	for i, b := range hist.Bins {
		// A gap of 4% of the bar's width on each side, on the axis' scale.
		lo, hi := a.to(b.Lo), a.to(b.Hi)
		l, r := a.from(lo+0.04*(hi-lo)), a.from(hi-0.04*(hi-lo))
		pos[i], width[i] = (l+r)/2, r-l
	}
	var ser []series
	if other == nil {
		ser = s.sideSeries()
	} else {
		ser = compareSeries(s, other)
		hist.LogY = false // shares side by side, on a linear axis
	}
	title := s.Column
	if s.Stage != "" {
		title += " (" + s.Stage + ")"
	}
	yLabel := "rows"
	if other != nil {
		yLabel = "% of rows"
	}
	xLabel := s.Column
	if hist.LogX {
		xLabel += " (log scale)"
	}
	if hist.LogY {
		yLabel += " (log scale)"
	}
	p := newPlot(title, xLabel, yLabel)
	var marks []mark
	bs := &bars{pos: pos, width: width, series: ser, grouped: other != nil, marks: &marks}
	p.Add(bs)
	lo, hi := hist.Bins[0].Lo, hist.Bins[n-1].Hi
	if hist.LogX {
		p.X.Scale, p.X.Tick.Marker = log1pScale{}, log1pTicks{}
	}
	top := 0.0
	for i := range pos {
		top = math.Max(top, bs.total(i))
	}
	if hist.LogY {
		bs.base = 0.5
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		p.Y.Min = bs.base
		// Room above the bars for the threshold labels, a line each.
		p.Y.Max = math.Max(top, 1) * math.Pow(2.2, float64(1+len(s.Thresholds)))
	} else {
		p.Y.Tick.Marker = countTicks{}
		p.Y.Min = 0
		p.Y.Max = math.Max(top, 1) * (1 + 0.12*float64(1+len(s.Thresholds)))
	}
	row := 0
	for _, t := range s.Thresholds {
		// A threshold outside the bars is not drawn (the caption says it).
		if x := s.lineAt(t); x >= lo && x <= hi {
			p.Add(&vline{x: x, label: t.label(), row: row, title: t.Title, marks: &marks})
			row++
		}
	}
	p.X.Min, p.X.Max = lo, hi
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

// lineAt is where the line of threshold t goes: at its value, or, when
// each bar is one integer value, between the bars the threshold parts.
func (s *Signal) lineAt(t Threshold) float64 {
	if !s.perValue || t.Value != math.Trunc(t.Value) {
		return t.Value
	}
	if t.Kind == "max" {
		return t.Value + 0.5 // t.Value itself passes
	}
	return t.Value - 0.5 // min passes t.Value; below does not
}

// label is what a threshold's line says: the share of rows on each side,
// with arrows that point to the sides.
func (t Threshold) label() string {
	left, right := "removed "+t.LeftShare, "kept "+t.RightShare
	if t.LeftIsPassing {
		left, right = "kept "+t.LeftShare, "removed "+t.RightShare
	}
	return fmt.Sprintf("← %s · %s: %s · %s →", left, t.Key, number(t.Value), right)
}

// sideSeries are the bars of a signal: the rows on the kept side and on
// the removed side of its thresholds (one series of rows without any).
func (s *Signal) sideSeries() []series {
	n := len(s.Bins)
	kept := series{Name: "on the kept side", Color: keptColor, Values: make([]float64, n), Titles: make([]string, n)}
	removed := series{Name: "on the removed side", Color: removedColor, Values: make([]float64, n), Titles: make([]string, n)}
	for i, b := range s.Bins {
		where := s.binName(i)
		kept.Values[i], removed.Values[i] = float64(b.Kept), float64(b.Removed)
		if len(s.Thresholds) == 0 {
			kept.Titles[i] = fmt.Sprintf("%s: %s rows (%s)", where, thousands(b.Kept), percent(b.Kept, s.Rows))
			continue
		}
		kept.Titles[i] = fmt.Sprintf("%s: %s rows (%s) kept, of %s", where, thousands(b.Kept), percent(b.Kept, s.Rows), thousands(b.Rows()))
		removed.Titles[i] = fmt.Sprintf("%s: %s rows (%s) removed, of %s", where, thousands(b.Removed), percent(b.Removed, s.Rows), thousands(b.Rows()))
	}
	if len(s.Thresholds) == 0 {
		kept.Name, kept.Color = "rows", otherColor
		return []series{kept}
	}
	return []series{kept, removed}
}

// binName writes the values of bar i: "x = 3", "x 40 to 60", and for the
// end bars, which also hold the rows outside the range drawn, from the
// smallest value or to the largest.
func (s *Signal) binName(i int) string {
	b := s.Bins[i]
	if s.perValue {
		return fmt.Sprintf("%s = %s", s.Column, number((b.Lo+b.Hi)/2))
	}
	lo, hi := b.Lo, b.Hi
	if i == 0 {
		lo = math.Min(lo, s.Min)
	}
	if i == len(s.Bins)-1 {
		hi = math.Max(hi, s.Max)
	}
	return fmt.Sprintf("%s %s to %s", s.Column, number(lo), number(hi))
}

// compareSeries are the shares of rows of other (A, the compared run) and
// of s (B, this run) in the bars of s.
func compareSeries(s, other *Signal) []series {
	n := len(s.Bins)
	a := series{Name: "A: compared run", Color: "#f28e2b", Values: make([]float64, n), Titles: make([]string, n)}
	b := series{Name: "B: this run", Color: otherColor, Values: make([]float64, n), Titles: make([]string, n)}
	theirs := other.countIn(s.Bins)
	for i, bin := range s.Bins {
		a.Values[i] = float64(theirs[i]) / math.Max(1, float64(other.Rows)) * 100
		b.Values[i] = float64(bin.Rows()) / math.Max(1, float64(s.Rows)) * 100
		a.Titles[i] = fmt.Sprintf("A, the compared run: %.2f%% of rows in %s", a.Values[i], s.binName(i))
		b.Titles[i] = fmt.Sprintf("B, this run: %.2f%% of rows in %s", b.Values[i], s.binName(i))
	}
	return []series{a, b}
}

// countIn counts the rows of s in the bars of another chart (rows outside
// them go to the end bars).
func (s *Signal) countIn(bins []Bin) []int64 {
	out := make([]int64, len(bins))
	w := (s.h.hi - s.h.lo) / fineBins
	for _, side := range s.h.lin {
		for i, c := range side {
			if c == 0 {
				continue
			}
			v := s.h.lo + (float64(i)+0.5)*w
			j, _ := slices.BinarySearchFunc(bins, v, func(b Bin, v float64) int {
				if b.Hi <= v {
					return -1
				}
				return 1
			})
			out[min(j, len(bins)-1)] += c
		}
	}
	return out
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

// contamChart draws the evaluation sets most found in the corpus, the
// top ones only (the table lists every set).
func (rep *Report) contamChart() (Chart, error) {
	var cats, labels, titles []string
	var vals []float64
	for _, e := range rep.Contam {
		if len(cats) == rep.opts.Top {
			break
		}
		cats = append(cats, e.Name)
		vals = append(vals, float64(e.Contaminated))
		labels = append(labels, fmt.Sprintf("%s of %s (%s)", thousands(e.Contaminated), thousands(e.Examples), e.Fraction))
		titles = append(titles, fmt.Sprintf("%s: %s of %s examples found in the corpus", e.Name, thousands(e.Contaminated), thousands(e.Examples)))
	}
	title := "Evaluation examples found in the corpus"
	if len(cats) < len(rep.Contam) {
		title = fmt.Sprintf("Evaluation sets most found in the corpus (top %d of %d)", len(cats), len(rep.Contam))
	}
	return barChart(barSpec{id: "contamination", title: title, valueLabel: "examples found",
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
