package report

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Charts are drawn by gonum.org/v1/plot into its SVG canvas (vgsvg): axes,
// ticks, log scales and text layout are the library's. The marks are
// plot.Plotters of this file, so that each one also leaves a transparent
// rectangle with a <title> (the exact value, shown on hover) over it.

// Chart is one figure of the page: an inline SVG and what it shows.
type Chart struct {
	ID     string
	SVG    template.HTML
	Marks  int          // marks drawn (bars, threshold lines), each with a hover title
	Legend []LegendItem // series of a stacked or grouped chart
}

// LegendItem names the colour of a series.
type LegendItem struct {
	Name  string
	Color string // #rrggbb
}

// palette are the colours of series, in order (Tableau 10).
var palette = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

const (
	keptColor    = "#59a14f"
	removedColor = "#e15759"
	lineColor    = "#b00020"
	otherColor   = "#4e79a7"
)

func rgb(hex string) color.Color {
	var r, g, b uint8
	fmt.Sscanf(hex, "#%02x%02x%02x", &r, &g, &b)
	return color.RGBA{R: r, G: g, B: b, A: 255}
}

// chartFont is the face of all chart text: Liberation Sans has the
// metrics of Arial and Helvetica, which the page's CSS falls back to.
var chartFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

func textStyle(size vg.Length) text.Style {
	return text.Style{Color: color.Black, Font: font.From(chartFont, size), Handler: plot.DefaultTextHandler}
}

// newPlot returns a plot with the page's fonts, a title and axis labels.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(chartFont, 12)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(chartFont, 10.5)
		a.Tick.Label.Font = font.From(chartFont, 9.5)
	}
	p.BackgroundColor = color.White
	return p
}

// mark is the hover region of one mark, in canvas coordinates.
type mark struct {
	r     vg.Rectangle
	title string
}

// series are the values of one colour across the categories of a bar
// chart.
type series struct {
	Name   string
	Color  string
	Values []float64
	Titles []string // hover text of each bar; "" draws no hover region
}

// bars is a plot.Plotter of bars: one bar per category, the series stacked
// on it (or side by side when grouped), starting at base, with the number
// of each stack written at its end.
type bars struct {
	pos, width []float64 // centre and width of each category, in data units
	series     []series
	horizontal bool
	grouped    bool
	base       float64  // where bars start: 0, or the axis minimum of a log scale
	labels     []string // written past the end of each category's bars; nil for none
	marks      *[]mark
}

func (b *bars) total(i int) float64 {
	if b.grouped {
		m := b.base
		for _, s := range b.series {
			m = math.Max(m, s.Values[i])
		}
		return m
	}
	t := b.base
	for _, s := range b.series {
		if s.Values[i] > 0 {
			t += s.Values[i]
		}
	}
	return t
}

// Plot implements plot.Plotter.
func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	rect := func(catLo, catHi, lo, hi float64) vg.Rectangle {
		if b.horizontal {
			return vg.Rectangle{Min: vg.Point{X: trX(lo), Y: trY(catLo)}, Max: vg.Point{X: trX(hi), Y: trY(catHi)}}
		}
		return vg.Rectangle{Min: vg.Point{X: trX(catLo), Y: trY(lo)}, Max: vg.Point{X: trX(catHi), Y: trY(hi)}}
	}
	sty := textStyle(8.5)
	for i := range b.pos {
		cum := b.base
		lo, hi := b.pos[i]-b.width[i]/2, b.pos[i]+b.width[i]/2
		for k, s := range b.series {
			v := s.Values[i]
			if v <= 0 {
				continue
			}
			clo, chi := lo, hi
			start, end := cum, cum+v
			if b.grouped {
				w := (hi - lo) / float64(len(b.series))
				clo, chi = lo+float64(k)*w, lo+float64(k+1)*w
				start, end = b.base, v
			}
			r := rect(clo, chi, start, end)
			c.FillPolygon(rgb(s.Color), []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
			if i < len(s.Titles) && s.Titles[i] != "" {
				*b.marks = append(*b.marks, mark{r, s.Titles[i]})
			}
			if !b.grouped {
				cum = end
			}
		}
		if i < len(b.labels) && b.labels[i] != "" {
			end := b.total(i)
			if b.horizontal {
				pt := vg.Point{X: trX(end) + 3, Y: trY(b.pos[i])}
				s := sty
				s.YAlign = text.YCenter
				c.FillText(s, pt, b.labels[i])
			} else {
				pt := vg.Point{X: trX(b.pos[i]), Y: trY(end) + 2}
				s := sty
				s.XAlign = text.XCenter
				c.FillText(s, pt, b.labels[i])
			}
		}
	}
}

// DataRange implements plot.DataRanger.
func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	cmin, cmax := math.Inf(1), math.Inf(-1)
	vmax := b.base
	for i := range b.pos {
		cmin = math.Min(cmin, b.pos[i]-b.width[i]/2)
		cmax = math.Max(cmax, b.pos[i]+b.width[i]/2)
		vmax = math.Max(vmax, b.total(i))
	}
	if b.horizontal {
		return b.base, vmax, cmin, cmax
	}
	return cmin, cmax, b.base, vmax
}

// GlyphBoxes implements plot.GlyphBoxer: room for the numbers past the
// ends of the bars.
func (b *bars) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	var out []plot.GlyphBox
	sty := textStyle(8.5)
	for i := range b.pos {
		if i >= len(b.labels) || b.labels[i] == "" {
			continue
		}
		end := b.total(i)
		r := sty.Rectangle(b.labels[i])
		if b.horizontal {
			r.Min.X += 3
			r.Max.X += 3
			r.Min.Y, r.Max.Y = -r.Max.Y/2, r.Max.Y/2
			out = append(out, plot.GlyphBox{X: p.X.Norm(end), Y: p.Y.Norm(b.pos[i]), Rectangle: r})
		} else {
			r.Min.X, r.Max.X = -r.Max.X/2, r.Max.X/2
			r.Min.Y += 2
			r.Max.Y += 2
			out = append(out, plot.GlyphBox{X: p.X.Norm(b.pos[i]), Y: p.Y.Norm(end), Rectangle: r})
		}
	}
	return out
}

// vline is a plot.Plotter of a threshold: a dashed vertical line with
// its label (the shares of rows on each side) near the top, on line row,
// centred on the line and moved inside the plot where it would be cut.
type vline struct {
	x     float64
	label string
	row   int
	title string
	marks *[]mark
}

// Plot implements plot.Plotter.
func (l *vline) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(l.x)
	if x < c.Min.X || x > c.Max.X {
		return
	}
	sty := draw.LineStyle{Color: rgb(lineColor), Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
	c.StrokeLine2(sty, x, c.Min.Y, x, c.Max.Y)
	if l.label != "" {
		ts := thresholdLabelStyle()
		r := labelBox(ts, l.label, x, c.Min.X, c.Max.X)
		y := c.Max.Y - 2 - vg.Length(l.row)*(ts.Height(l.label)+2)
		c.FillText(ts, vg.Point{X: r.Min.X, Y: y}, l.label)
	}
	*l.marks = append(*l.marks, mark{vg.Rectangle{Min: vg.Point{X: x - 3, Y: c.Min.Y}, Max: vg.Point{X: x + 3, Y: c.Max.Y}}, l.title})
}

func thresholdLabelStyle() text.Style {
	ts := textStyle(8.5)
	ts.Color = rgb(lineColor)
	ts.YAlign = text.YTop
	return ts
}

// labelBox is where a label centred on x goes between the edges lo and
// hi: moved in whole where it would cross one (cut only if it is wider
// than the plot).
func labelBox(ts text.Style, label string, x, lo, hi vg.Length) vg.Rectangle {
	w := ts.Width(label)
	left := x - w/2
	left = min(left, hi-w)
	left = max(left, lo)
	return vg.Rectangle{Min: vg.Point{X: left}, Max: vg.Point{X: left + w}}
}

// DataRange implements plot.DataRanger: the line's x, no y.
func (l *vline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return l.x, l.x, math.Inf(1), math.Inf(-1)
}

// log1pScale is an axis on the scale of log(1+x): a skewed signal of no
// negative values, 0 included.
type log1pScale struct{}

// Normalize implements plot.Normalizer.
func (log1pScale) Normalize(min, max, x float64) float64 {
	lo, hi := math.Log1p(min), math.Log1p(max)
	if hi <= lo {
		return 0
	}
	return (math.Log1p(x) - lo) / (hi - lo)
}

// log1pTicks marks a log1pScale axis at 0 and at 1, 2 and 5 times the
// powers of ten, labelled short, the 2s and 5s unlabelled when the axis
// spans more than three decades.
type log1pTicks struct{}

// Ticks implements plot.Ticker.
func (log1pTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	if min <= 0 {
		ticks = append(ticks, plot.Tick{Value: 0, Label: "0"})
	}
	// Below 1 the scale is nearly linear: the marks start at 0.1, or at 1
	// when the axis reaches 10 or more.
	from := math.Max(min, 0.1)
	if max >= 10 {
		from = math.Max(min, 1)
	}
	decades := math.Log10(math.Max(max, 1)) - math.Log10(from)
	for e := math.Floor(math.Log10(from)); math.Pow(10, e) <= max; e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if v < min || v > max {
				continue
			}
			label := compact(v)
			if m != 1 && decades > 3 {
				label = ""
			}
			ticks = append(ticks, plot.Tick{Value: v, Label: label})
		}
	}
	return ticks
}

// render draws p as an SVG of w x h points and adds the hover regions.
func render(id string, p *plot.Plot, w, h vg.Length, drawn *[]mark) (Chart, error) {
	c := vgsvg.NewWith(vgsvg.UseWH(w, h))
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return Chart{}, err
	}
	s := buf.String()
	start := strings.Index(s, "<svg")
	open := strings.Index(s[max(start, 0):], ">")
	tail := "</g>\n</svg>\n"
	if start < 0 || open < 0 || !strings.HasSuffix(s, tail) {
		return Chart{}, fmt.Errorf("chart %s: unexpected SVG from the plot library", id)
	}
	var out strings.Builder
	fmt.Fprintf(&out, `<svg class="chart" viewBox="0 0 %.6g %.6g" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="%s">`,
		w.Points(), h.Points(), html.EscapeString(p.Title.Text))
	out.WriteString(s[start+open+1 : len(s)-len(tail)])
	marks := *drawn
	out.WriteString(`<g class="marks">`)
	for _, m := range marks {
		x0, x1 := math.Min(float64(m.r.Min.X), float64(m.r.Max.X)), math.Max(float64(m.r.Min.X), float64(m.r.Max.X))
		y0, y1 := math.Min(float64(m.r.Min.Y), float64(m.r.Max.Y)), math.Max(float64(m.r.Min.Y), float64(m.r.Max.Y))
		fmt.Fprintf(&out, `<rect class="mark" x="%.5g" y="%.5g" width="%.5g" height="%.5g"><title>%s</title></rect>`,
			x0, y0, math.Max(x1-x0, 1), math.Max(y1-y0, 1), html.EscapeString(m.title))
	}
	out.WriteString("</g>\n" + tail)
	return Chart{ID: id, SVG: template.HTML(out.String()), Marks: len(marks)}, nil
}

// barChart draws one bar per category, horizontal when the labels are
// names (reasons, languages, stages), with its number at its end.
type barSpec struct {
	id, title, valueLabel string
	categories            []string
	series                []series
	labels                []string
	logScale              bool
	vertical              bool // categories along x
	catLabel              string
}

func barChart(b barSpec) (Chart, error) {
	n := len(b.categories)
	pos, width := make([]float64, n), make([]float64, n)
	for i := range pos {
		// Horizontal bars list the first category on top.
		pos[i] = float64(i)
		if !b.vertical {
			pos[i] = float64(n - 1 - i)
		}
		width[i] = 0.7
	}
	var p *plot.Plot
	if b.vertical {
		p = newPlot(b.title, b.catLabel, b.valueLabel)
	} else {
		p = newPlot(b.title, b.valueLabel, b.catLabel)
	}
	var marks []mark
	bs := &bars{pos: pos, width: width, series: b.series, horizontal: !b.vertical, labels: b.labels, marks: &marks}
	valueAxis := &p.X
	if b.vertical {
		valueAxis = &p.Y
	}
	if b.logScale {
		bs.base = 0.5
		valueAxis.Scale = plot.LogScale{}
		valueAxis.Tick.Marker = plot.LogTicks{Prec: -1}
	} else {
		valueAxis.Tick.Marker = countTicks{}
	}
	valueAxis.Min = bs.base
	p.Add(bs)
	names := make([]string, n)
	for i, c := range b.categories {
		names[i] = shorten(c, 28)
	}
	if b.vertical {
		p.NominalX(names...)
	} else {
		rev := make([]string, n)
		for i := range names {
			rev[n-1-i] = names[i]
		}
		p.NominalY(rev...)
	}
	w, h := vg.Points(480), vg.Points(300)
	if !b.vertical {
		h = vg.Points(math.Max(140, math.Min(560, 60+float64(n)*22)))
	}
	ch, err := render(b.id, p, w, h, &marks)
	if err != nil {
		return ch, err
	}
	if len(b.series) > 1 {
		for _, s := range b.series {
			ch.Legend = append(ch.Legend, LegendItem{Name: s.Name, Color: s.Color})
		}
	}
	return ch, nil
}

// countTicks marks a count axis with round numbers written short (1.5k, 2M).
type countTicks struct{}

func (countTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = compact(ticks[i].Value)
		}
	}
	return ticks
}

// shorten cuts s to n characters, ending it with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
