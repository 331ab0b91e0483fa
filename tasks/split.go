package tasks

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/bits"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cespare/xxhash/v2"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/jsonl"
	"github.com/sluice-data/sluice/kernels/normalize"
	"github.com/sluice-data/sluice/kernels/texthash"
)

// SplitBy is what keeps examples together in a split.
type SplitBy uint8

// The grouping keys.
const (
	// ByPrompt groups examples whose prompts (the turns before the last
	// assistant turn) have the same matching normal form: lowercase, no
	// punctuation, no accents, collapsed white space.
	ByPrompt SplitBy = iota
	// ByID groups examples by the value of the id member.
	ByID
	// ByField groups examples by the value of a chosen member.
	ByField
)

var splitByNames = [...]string{"prompt", "id", "field"}

func (b SplitBy) String() string { return splitByNames[b] }

// MarshalText writes the key's name.
func (b SplitBy) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// ParseSplitBy maps prompt, id or field onto a SplitBy.
func ParseSplitBy(s string) (SplitBy, error) {
	for i, n := range splitByNames {
		if s == n {
			return SplitBy(i), nil
		}
	}
	return 0, fmt.Errorf("unknown grouping %q (want prompt, id or field)", s)
}

// SplitOptions configure SplitFiles.
type SplitOptions struct {
	Ratios []float64 `json:"ratios"`
	Names  []string  `json:"names"`
	By     SplitBy   `json:"by"`
	// Field is the member ByID and ByField read (dots reach into objects:
	// meta.source). An example without it is grouped by its content.
	Field        string `json:"field,omitempty"`
	Seed         uint64 `json:"seed"`
	Hash         string `json:"hash"` // always xxhash64, recorded for readers of the manifest
	Format       Format `json:"format"`
	Overwrite    bool   `json:"overwrite"`
	MaxLineBytes int    `json:"max_line_bytes,omitempty"`
}

// DefaultSplitNames names the splits for 2 and 3 ratios.
func DefaultSplitNames(n int) []string {
	switch n {
	case 2:
		return []string{"train", "test"}
	case 3:
		return []string{"train", "validation", "test"}
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("split%d", i)
	}
	return names
}

// Validate lists every problem of the options.
func (o *SplitOptions) Validate() error {
	var problems []string
	sum := 0.0
	for _, r := range o.Ratios {
		if !(r > 0) || r > 1 {
			problems = append(problems, fmt.Sprintf("ratio %v is not in (0, 1]", r))
		}
		sum += r
	}
	if len(o.Ratios) < 2 || len(o.Ratios) > 32 {
		problems = append(problems, fmt.Sprintf("%d ratios given, want 2 to 32", len(o.Ratios)))
	} else if math.Abs(sum-1) > 1e-6 {
		problems = append(problems, fmt.Sprintf("the ratios add up to %v, not 1", sum))
	}
	if len(o.Names) != len(o.Ratios) {
		problems = append(problems, fmt.Sprintf("%d names for %d ratios", len(o.Names), len(o.Ratios)))
	}
	seen := map[string]bool{}
	for _, n := range o.Names {
		if n == "" || strings.ContainsAny(n, `/\`) || n == "." || n == ".." || n == "manifest" {
			problems = append(problems, fmt.Sprintf("%q cannot name a split file", n))
		}
		if seen[n] {
			problems = append(problems, fmt.Sprintf("split name %q given twice", n))
		}
		seen[n] = true
	}
	if o.By != ByPrompt && o.Field == "" {
		problems = append(problems, "grouping by "+o.By.String()+" needs a field name")
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

// SplitSize is one split of a SplitReport.
type SplitSize struct {
	Name     string  `json:"name"`
	Path     string  `json:"path"`
	Examples int64   `json:"examples"`
	Groups   int64   `json:"groups"`
	Share    float64 `json:"share"`
}

// Overlap is what the split found shared between splits: prompts (in
// matching normal form) with examples in more than one split. Grouping by
// prompt leaves none by construction; grouping by id or a field may not.
type Overlap struct {
	Prompts  int64    `json:"prompts"`
	Examples int64    `json:"examples"`
	Samples  []string `json:"samples,omitempty"` // the first few, as file:line pairs
}

// SplitReport is what SplitFiles did.
type SplitReport struct {
	Options        SplitOptions `json:"options"`
	Examples       int64        `json:"examples"`
	Splits         []SplitSize  `json:"splits"`
	KeyedByContent int64        `json:"keyed_by_content"` // examples without the field, grouped by their content
	Overlap        Overlap      `json:"overlap"`
	Manifest       string       `json:"manifest"`
}

// SplitFiles assigns every line of files to one split by a seeded hash of
// its group key and writes the lines, as they are, to DIR/<name>.jsonl, with
// DIR/manifest.json recording the options (seed included), the inputs and
// the outputs. An example's split depends only on its key and the seed:
// the same example lands in the same split when the file grows, shrinks
// or is reordered. Every line must be readable as an example; the first
// that is not stops the split with its file and line.
func SplitFiles(ctx context.Context, files []input.File, dir string, o SplitOptions, command []string, version string) (*SplitReport, error) {
	start := time.Now()
	o.Hash = "xxhash64"
	if err := o.Validate(); err != nil {
		return nil, err
	}
	final := dataset.Target{Path: filepath.Clean(dir), Kind: dataset.Directory}
	out, err := dataset.Begin(ctx, final, o.Overwrite)
	if err != nil {
		return nil, err
	}
	defer out.Abort() // after Commit it does nothing
	t := out.Target()
	rep := &SplitReport{Options: o, Manifest: final.SidePath("manifest.json")}
	writers := make([]*dataset.Writer, len(o.Ratios))
	bufs := make([][]byte, len(o.Ratios))
	rows := make([]int64, len(o.Ratios))
	abort := func() {
		for _, w := range writers {
			if w != nil {
				w.Abort()
			}
		}
	}
	for i, name := range o.Names {
		path := filepath.Join(t.Path, name+".jsonl")
		w, err := dataset.NewWriter(memory.DefaultAllocator, dataset.Target{Path: path, Kind: dataset.JSONLFile}, ParquetSchema, dataset.Options{})
		if err != nil {
			return nil, err
		}
		writers[i] = w
		rep.Splits = append(rep.Splits, SplitSize{Name: name, Path: filepath.Join(final.Path, name+".jsonl")})
	}
	flush := func(i int) error {
		if len(bufs[i]) == 0 {
			return nil
		}
		err := writers[i].Write(dataset.Piece{Data: bufs[i], Rows: rows[i]})
		bufs[i], rows[i] = nil, 0 // the writer recycles the buffer
		return err
	}
	bounds := cumulative(o.Ratios)
	src := newLineSource(files, o.MaxLineBytes)
	chk := newLineChecker(o.Format, nil, &CheckOptions{})
	formats := fileFormats{given: o.Format}
	digest := xxhash.NewWithSeed(o.Seed)
	groups := map[uint64]struct{}{} // group hashes seen, to count groups
	prompts := map[texthash.Hash]promptSplits{}
	var key, form []byte
	var r lineResult
	for {
		ref, line, ok, err := src.next()
		if err == nil && ok {
			err = ctx.Err()
		}
		if err != nil {
			abort()
			return nil, err
		}
		if !ok {
			break
		}
		ex := chk.check(line, &r)
		prob, mixed := formats.mixed(ref.File, r.format)
		if ex == nil || mixed || ref.Err != nil {
			switch {
			case ref.Err != nil:
				prob = problem{NotJSON, ref.Err.Error()}
			case ex == nil:
				prob, _ = firstError(r.problems)
			}
			abort()
			return nil, fmt.Errorf("%v (split needs every line to be an example)",
				Issue{File: src.name(ref), Line: ref.Line, Kind: prob.kind, Msg: prob.msg})
		}
		d := chk.p.Doc()
		form = promptForm(form[:0], ex)
		key = key[:0]
		switch o.By {
		case ByPrompt:
			key = append(key, form...)
		default:
			if v := memberAt(d, ex.Root, o.Field); v >= 0 {
				key = d.AppendJSON(append(key, 'v'), v)
			} else {
				rep.KeyedByContent++
				h := r.sum.example.Bytes()
				key = append(append(key, 'c'), h[:]...)
			}
		}
		digest.ResetWithSeed(o.Seed)
		digest.Write(key)
		h := digest.Sum64()
		split := pick(bounds, h)
		if _, seen := groups[h]; !seen {
			groups[h] = struct{}{}
			rep.Splits[split].Groups++
		}
		rep.Splits[split].Examples++
		rep.Examples++
		ph := texthash.Of(form)
		ps := prompts[ph]
		if ps.mask != 0 && ps.mask&(1<<split) == 0 {
			if len(rep.Overlap.Samples) < 5 {
				rep.Overlap.Samples = append(rep.Overlap.Samples, fmt.Sprintf("%s:%d (%s) and %s:%d (%s)",
					src.files[ps.first.file].Label(), ps.first.line, o.Names[ps.firstSplit], src.name(ref), ref.Line, o.Names[split]))
			}
		}
		if ps.mask == 0 {
			ps.first, ps.firstSplit = lineRef{ref.File, ref.Line}, split
		}
		ps.mask |= 1 << split
		ps.count++
		prompts[ph] = ps
		bufs[split] = append(append(bufs[split], line...), '\n')
		rows[split]++
		if len(bufs[split]) >= 1<<20 {
			if err := flush(split); err != nil {
				abort()
				return nil, err
			}
		}
	}
	m := &dataset.Manifest{Tool: "sluice", Version: version, Command: command, Options: o,
		Started: start.UTC().Format(time.RFC3339)}
	for i, w := range writers {
		if err := flush(i); err != nil {
			abort()
			return nil, err
		}
		outs, err := w.Close()
		if err != nil {
			return nil, err
		}
		m.Outputs = append(m.Outputs, outs...)
		m.Counts.RowsOut += outs[0].Rows
	}
	for _, ps := range prompts {
		if bits.OnesCount32(ps.mask) > 1 {
			rep.Overlap.Prompts++
			rep.Overlap.Examples += ps.count
		}
	}
	for i := range rep.Splits {
		if rep.Examples > 0 {
			rep.Splits[i].Share = float64(rep.Splits[i].Examples) / float64(rep.Examples)
		}
	}
	inputs, err := src.inputs()
	if err != nil {
		return nil, err
	}
	m.Inputs = inputs
	m.Counts.RowsIn = rep.Examples
	m.WallSecs = time.Since(start).Seconds()
	if err := m.Counts.Check(); err != nil {
		return nil, err
	}
	return rep, out.Commit(m)
}

// promptSplits is where the examples of one prompt went.
type promptSplits struct {
	mask       uint32 // bit i: some example is in split i
	count      int64
	first      lineRef
	firstSplit int
}

// cumulative returns the upper bounds of the splits on [0, 2^64).
func cumulative(ratios []float64) []uint64 {
	b := make([]uint64, len(ratios))
	acc := 0.0
	for i, r := range ratios {
		acc += r
		if i == len(ratios)-1 || acc >= 1 {
			b[i] = math.MaxUint64
		} else {
			b[i] = uint64(acc * (1 << 63) * 2)
		}
	}
	return b
}

// pick returns the split whose range holds h.
func pick(bounds []uint64, h uint64) int {
	for i, b := range bounds {
		if h < b || b == math.MaxUint64 {
			return i
		}
	}
	return len(bounds) - 1
}

// promptForm appends the matching normal form of ex's prompt: the turns
// before its last assistant turn (all of them when it has none), each
// with its role.
func promptForm(dst []byte, ex *Example) []byte {
	last := ex.lastAssistant()
	if last < 0 {
		last = len(ex.Messages)
	}
	for i := range ex.Messages[:last] {
		m := &ex.Messages[i]
		dst = append(dst, byte(m.Role)+'0', ' ')
		dst = normalize.AppendMatchForm(dst, m.Content)
		dst = append(dst, '\n')
	}
	return dst
}

// memberAt returns the node at a dotted path of members under obj, or -1.
func memberAt(d *jsonl.Doc, obj int32, path string) int32 {
	n := obj
	for rest, more := path, true; more; {
		var name string
		name, rest, more = strings.Cut(rest, ".")
		if d.Node(n).Kind != jsonl.KindObject {
			return -1
		}
		found := int32(-1)
		for _, c := range d.Children(n) {
			if string(d.Key(c)) == name {
				found = c
				break
			}
		}
		if found < 0 {
			return -1
		}
		n = found
	}
	return n
}

// WriteText prints the report for people.
func (r *SplitReport) WriteText(w io.Writer) error {
	var b strings.Builder
	o := r.Options
	by := "prompt"
	switch {
	case o.By == ByID && o.Field == "id":
		by = "id"
	case o.By != ByPrompt:
		by = "member " + o.Field
	}
	fmt.Fprintf(&b, "%d examples split by %s (xxhash64, seed %d):\n", r.Examples, by, o.Seed)
	width := 0
	for _, s := range r.Splits {
		width = max(width, len(s.Name))
	}
	for i, s := range r.Splits {
		fmt.Fprintf(&b, "  %-*s  %8d  %5.1f%% (ratio %g)  %d groups  %s\n", width, s.Name, s.Examples, 100*s.Share, o.Ratios[i], s.Groups, s.Path)
	}
	if r.KeyedByContent > 0 {
		fmt.Fprintf(&b, "%d examples without %s, grouped by their content\n", r.KeyedByContent, o.Field)
	}
	if r.Overlap.Prompts == 0 {
		b.WriteString("overlap: no prompt is in more than one split\n")
	} else {
		fmt.Fprintf(&b, "overlap: %d prompts (%d examples) are in more than one split, e.g.\n", r.Overlap.Prompts, r.Overlap.Examples)
		for _, s := range r.Overlap.Samples {
			fmt.Fprintf(&b, "  %s\n", s)
		}
	}
	fmt.Fprintf(&b, "manifest: %s\n", r.Manifest)
	_, err := io.WriteString(w, b.String())
	return err
}
