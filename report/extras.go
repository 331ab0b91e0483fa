package report

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ClusterSize is how many duplicate clusters have a size.
type ClusterSize struct {
	Stage    string
	Size     int64
	Clusters int64
}

// EvalSet is what decontamination found of one evaluation set.
type EvalSet struct {
	Name         string
	Path         string
	Examples     int64
	TooShort     int64
	Contaminated int64
	Fraction     string
}

// fromReports takes what the stages reported in the manifests: duplicate
// cluster sizes, contamination per evaluation set, and the tokenizer and
// characters of the tokens stage.
func (rep *Report) fromReports() {
	for _, r := range rep.Runs {
		for _, s := range r.Manifest.Stages {
			if s.Report == nil {
				continue
			}
			b, err := json.Marshal(s.Report)
			if err != nil {
				continue
			}
			var sr struct {
				ClusterSizes map[string]int64 `json:"cluster_sizes"`
				EvalSets     []struct {
					Name         string  `json:"name"`
					Path         string  `json:"path"`
					Examples     int64   `json:"examples"`
					TooShort     int64   `json:"too_short"`
					Contaminated int64   `json:"contaminated"`
					Fraction     float64 `json:"contaminated_fraction"`
				} `json:"eval_sets"`
				Tokenizer string `json:"tokenizer"`
				Total     *struct {
					Docs   int64 `json:"documents"`
					Tokens int64 `json:"tokens"`
					Chars  int64 `json:"chars"`
				} `json:"total"`
				GroupBy []string `json:"group_by"`
				Groups  []struct {
					Key    []string `json:"key"`
					Tokens int64    `json:"tokens"`
					Chars  int64    `json:"chars"`
				} `json:"groups"`
			}
			if json.Unmarshal(b, &sr) != nil {
				continue
			}
			for size, n := range sr.ClusterSizes {
				if v, err := strconv.ParseInt(size, 10, 64); err == nil {
					rep.Clusters = append(rep.Clusters, ClusterSize{Stage: s.Name, Size: v, Clusters: n})
				}
			}
			for _, e := range sr.EvalSets {
				rep.Contam = append(rep.Contam, EvalSet{Name: e.Name, Path: e.Path, Examples: e.Examples, TooShort: e.TooShort,
					Contaminated: e.Contaminated, Fraction: fmt.Sprintf("%.2f%%", 100*e.Fraction)})
			}
			if t := rep.Tokens; t != nil && s.Name == "tokens" && sr.Total != nil && sr.Total.Tokens > 0 {
				t.Tokenizer = sr.Tokenizer
				t.Chars = sr.Total.Chars
				t.CharsPerToken = fmt.Sprintf("%.2f", float64(sr.Total.Chars)/float64(sr.Total.Tokens))
				if len(sr.GroupBy) == 1 && sr.GroupBy[0] == rep.SourceField {
					for _, g := range sr.Groups {
						for i := range t.Sources {
							if len(g.Key) == 1 && g.Key[0] == t.Sources[i].Name && g.Tokens > 0 {
								t.Sources[i].Chars = g.Chars
								t.Sources[i].CharsPerToken = fmt.Sprintf("%.2f", float64(g.Chars)/float64(g.Tokens))
							}
						}
					}
				}
			}
		}
	}
	// The sets most found first: the chart draws the top ones.
	slices.SortStableFunc(rep.Contam, func(a, b EvalSet) int {
		return cmp.Or(cmpDesc(a.Contaminated, b.Contaminated), strings.Compare(a.Name, b.Name))
	})
	slices.SortFunc(rep.Clusters, func(a, b ClusterSize) int {
		if a.Stage != b.Stage {
			return strings.Compare(a.Stage, b.Stage)
		}
		return int(a.Size - b.Size)
	})
}

// QuarantineKind is the quarantined lines of one kind of error.
type QuarantineKind struct {
	Kind     string
	Lines    int64
	Examples []QuarantineLine
}

// QuarantineLine is one quarantined line, cut for the page.
type QuarantineLine struct {
	File  string
	Line  int64
	Error string
	Raw   string
	Cut   bool
}

// errorDetail is the variable end of an error message: positions and
// quoted values, which a kind of error leaves out.
var errorDetail = regexp.MustCompile(` at (byte|offset|line) \d+.*$|: ".*$`)

// errorKind is the error without its details: "malformed JSON: unterminated string".
func errorKind(msg string) string {
	k := errorDetail.ReplaceAllString(msg, "")
	if k == "" {
		return msg
	}
	return k
}

// readQuarantine counts the quarantined lines of every dataset by kind of
// error and keeps the first of each kind.
func (rep *Report) readQuarantine() error {
	kinds := map[string]*QuarantineKind{}
	var order []string
	for _, r := range rep.Runs {
		for _, q := range r.quarantine {
			f, err := os.Open(q)
			if err != nil {
				return err
			}
			br := bufio.NewReaderSize(f, 1<<16)
			for {
				line, err := br.ReadBytes('\n')
				if len(strings.TrimSpace(string(line))) > 0 {
					var ql struct {
						File  string `json:"file"`
						Line  int64  `json:"line"`
						Error string `json:"error"`
						Raw   string `json:"raw"`
					}
					if json.Unmarshal(line, &ql) != nil {
						ql.Error = "unreadable quarantine line"
					}
					kind := errorKind(ql.Error)
					k := kinds[kind]
					if k == nil {
						k = &QuarantineKind{Kind: kind}
						kinds[kind] = k
						order = append(order, kind)
					}
					k.Lines++
					if len(k.Examples) < rep.opts.Examples {
						raw, cut := snippet(ql.Raw, rep.opts.Snippet)
						k.Examples = append(k.Examples, QuarantineLine{File: ql.File, Line: ql.Line, Error: ql.Error, Raw: raw, Cut: cut})
					}
				}
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					f.Close()
					return fmt.Errorf("%s: %w", q, err)
				}
			}
			f.Close()
		}
	}
	for _, k := range order {
		rep.Quarantine = append(rep.Quarantine, *kinds[k])
	}
	slices.SortStableFunc(rep.Quarantine, func(a, b QuarantineKind) int { return cmpDesc(a.Lines, b.Lines) })
	return nil
}

// Phase is a phase of a launched run: its tasks' times.
type Phase struct {
	Name              string
	Tasks             []Task
	Min, Median, Max  float64
	Failed            int
	TotalTaskSeconds  float64
	WallSeconds       float64
	firstStart, lastE time.Time
}

// Task is one task of a launched run.
type Task struct {
	Index   int
	Host    string
	Seconds float64
	Error   string
}

// readTasks reads the task markers a launch leaves in OUT/_work/markers:
// when each task started and finished, on which host.
func (rep *Report) readTasks() {
	r := rep.Runs[len(rep.Runs)-1]
	if _, err := os.Stat(filepath.Join(r.Dir, "_plan.json")); err != nil {
		return
	}
	var plan struct {
		Phases []struct {
			Name  string `json:"name"`
			Tasks int    `json:"tasks"`
		} `json:"phases"`
	}
	b, err := os.ReadFile(filepath.Join(r.Dir, "_plan.json"))
	if err != nil || json.Unmarshal(b, &plan) != nil {
		return
	}
	for _, ph := range plan.Phases {
		p := Phase{Name: ph.Name}
		for i := 0; i < ph.Tasks; i++ {
			for _, kind := range []string{"done", "failed"} {
				path := filepath.Join(r.Dir, "_work", "markers", fmt.Sprintf("%s-%05d.%s", ph.Name, i, kind))
				b, err := os.ReadFile(path)
				if err != nil {
					continue
				}
				var m struct {
					Host     string `json:"host"`
					Started  string `json:"started"`
					Finished string `json:"finished"`
					Error    string `json:"error"`
				}
				if json.Unmarshal(b, &m) != nil {
					continue
				}
				t := Task{Index: i, Host: m.Host, Error: m.Error}
				s, err1 := time.Parse(time.RFC3339Nano, m.Started)
				e, err2 := time.Parse(time.RFC3339Nano, m.Finished)
				if err1 == nil && err2 == nil {
					t.Seconds = e.Sub(s).Seconds()
					if p.firstStart.IsZero() || s.Before(p.firstStart) {
						p.firstStart = s
					}
					if e.After(p.lastE) {
						p.lastE = e
					}
				}
				if kind == "failed" {
					p.Failed++
				}
				p.Tasks = append(p.Tasks, t)
				break
			}
		}
		if len(p.Tasks) == 0 {
			continue
		}
		secs := make([]float64, len(p.Tasks))
		for i, t := range p.Tasks {
			secs[i] = t.Seconds
			p.TotalTaskSeconds += t.Seconds
		}
		slices.Sort(secs)
		p.Min, p.Median, p.Max = secs[0], secs[len(secs)/2], secs[len(secs)-1]
		if !p.firstStart.IsZero() {
			p.WallSeconds = p.lastE.Sub(p.firstStart).Seconds()
		}
		rep.Tasks = append(rep.Tasks, p)
	}
}
