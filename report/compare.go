package report

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
)

// Comparison is what differs between a report and the report of another
// run: the configs, the counts and the signal distributions. As in
// `sluice diff A B`, A is the compared run (the baseline) and B this one,
// and a change is B − A: what this run has more than the compared one.
type Comparison struct {
	Other   *Report
	Config  []ConfigDiff
	Counts  []CountDiff
	Signals []Chart
}

// ConfigDiff is one setting that differs: its value in the compared run
// (A) and in this run (B).
type ConfigDiff struct{ Key, A, B string }

// CountDiff is one count of the compared run (A) and of this run (B).
type CountDiff struct {
	Name string
	A, B int64
}

// Change is B − A, written with its sign ("=" when none).
func (d CountDiff) Change() string {
	if d.A == d.B {
		return "="
	}
	return fmt.Sprintf("%+d", d.B-d.A)
}

// Compare compares rep with other.
func Compare(rep, other *Report) (*Comparison, error) {
	c := &Comparison{Other: other}
	a, b := flatConfig(other), flatConfig(rep)
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	for _, k := range sortedKeys(keys) {
		if a[k] != b[k] {
			c.Config = append(c.Config, ConfigDiff{Key: k, A: orNone(a[k]), B: orNone(b[k])})
		}
	}
	add := func(name string, x, y int64) { c.Counts = append(c.Counts, CountDiff{name, x, y}) }
	add("rows in", other.Counts.RowsIn, rep.Counts.RowsIn)
	add("written", other.Counts.RowsOut, rep.Counts.RowsOut)
	add("removed", other.Counts.Removed, rep.Counts.Removed)
	add("quarantined", other.Counts.Quarantined, rep.Counts.Quarantined)
	ra, rb := reasonCounts(other), reasonCounts(rep)
	names := map[string]bool{}
	for k := range ra {
		names[k] = true
	}
	for k := range rb {
		names[k] = true
	}
	for _, k := range sortedKeys(names) {
		add("removed by "+k, ra[k], rb[k])
	}
	if rep.Tokens != nil && other.Tokens != nil {
		add("tokens written", other.Tokens.Total, rep.Tokens.Total)
	}
	for _, s := range rep.Signals {
		i := slices.IndexFunc(other.Signals, func(o *Signal) bool { return o.Column == s.Column })
		if i < 0 {
			continue
		}
		ch, err := signalChart(s, other.Signals[i])
		if err != nil {
			return nil, err
		}
		ch.ID = "compare-" + s.Column
		c.Signals = append(c.Signals, ch)
	}
	return c, nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// reasonCounts are the rows removed by "stage: reason", over the chain.
func reasonCounts(rep *Report) map[string]int64 {
	out := map[string]int64{}
	for _, s := range rep.Funnel {
		for _, r := range s.Removed {
			out[s.Stage+": "+r.Name] += r.Rows
		}
	}
	return out
}

// flatConfig is every setting of the chain's stages as "stage.key" (with
// ".n" for the n-th stage of a name) -> its JSON value, and the options
// that decide rows (text and id fields).
func flatConfig(rep *Report) map[string]string {
	out := map[string]string{}
	seen := map[string]int{}
	for _, r := range rep.Runs {
		for _, s := range r.Manifest.Stages {
			name := s.Name
			if n := seen[s.Name]; n > 0 {
				name = fmt.Sprintf("%s#%d", s.Name, n+1)
			}
			seen[s.Name]++
			out[name] = "(stage)"
			b, err := json.Marshal(s.Config)
			if err != nil {
				continue
			}
			var v any
			if json.Unmarshal(b, &v) == nil {
				flatten(name, v, out)
			}
		}
	}
	return out
}

func flatten(prefix string, v any, out map[string]string) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			flatten(prefix+"."+k, x, out)
		}
	default:
		b, _ := json.Marshal(t)
		out[prefix] = string(b)
	}
}
