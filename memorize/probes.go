package memorize

import (
	"container/heap"
	"encoding/binary"
	"fmt"
	"math/bits"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"

	"github.com/sluice-data/sluice/kernels/tokenize"
)

// ProbeParams say how probes are sampled and cut.
type ProbeParams struct {
	N            int    `json:"n"`
	PrefixTokens int    `json:"prefix_tokens"`
	SuffixTokens int    `json:"suffix_tokens"`
	Tokenizer    string `json:"tokenizer"`
	Seed         uint64 `json:"seed"`
	// StratifyBy is "", "source" or "dup_count": with a stratum, the N
	// probes are shared equally among the strata (a stratum with too few
	// documents gives its share to the others).
	StratifyBy string `json:"stratify_by,omitempty"`
	// Offset is where in a document the probe starts: "start" (token 0)
	// or "random" (uniform over the places where prefix and suffix fit).
	Offset string `json:"offset"`
}

// Validate lists every problem with p.
func (p ProbeParams) Validate() error {
	var problems []string
	if p.N < 1 {
		problems = append(problems, "n must be at least 1")
	}
	if p.PrefixTokens < 1 || p.SuffixTokens < 1 {
		problems = append(problems, "prefix and suffix tokens must be at least 1")
	}
	switch p.StratifyBy {
	case "", "source", "dup_count":
	default:
		problems = append(problems, fmt.Sprintf("stratify by source or dup_count, not %q", p.StratifyBy))
	}
	switch p.Offset {
	case "start", "random":
	default:
		problems = append(problems, fmt.Sprintf("offset must be start or random, not %q", p.Offset))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

// Probe is one memorization probe.
type Probe struct {
	ID       string `json:"id"`
	SourceID string `json:"source_id"` // the document's id, or file:line
	Source   string `json:"source,omitempty"`
	DupCount *int64 `json:"dup_count,omitempty"` // copies of the document in the corpus, when dedup annotations say
	Stratum  string `json:"stratum,omitempty"`
	// Tokens of the document: the prefix is [TokenStart, TokenSplit), the
	// suffix [TokenSplit, TokenEnd); bytes likewise.
	Tokenizer  string `json:"tokenizer"`
	TokenStart int    `json:"token_start"`
	TokenSplit int    `json:"token_split"`
	TokenEnd   int    `json:"token_end"`
	ByteStart  int    `json:"byte_start"`
	ByteSplit  int    `json:"byte_split"`
	ByteEnd    int    `json:"byte_end"`
	Prefix     string `json:"prefix"`
	Suffix     string `json:"suffix"`
	PrefixIDs  []int  `json:"prefix_ids"`
	SuffixIDs  []int  `json:"suffix_ids"`
	key        uint64
	pos        uint64
}

// before orders probes by key, then by place in input order (documents
// with equal ids have equal keys).
func (p *Probe) before(key, pos uint64) bool {
	return p.key < key || p.key == key && p.pos < pos
}

// Doc is a document offered to a Sampler.
type Doc struct {
	ID       string // kept: the caller gives a string of its own
	Source   string // may view memory the caller reuses: copied when kept
	DupCount int64  // 0: unknown
	Pos      uint64 // its place in input order (any increasing number)
	Text     []byte // read only during Offer
}

// Sampler keeps, per stratum, the N eligible documents with the smallest
// keys. It is safe for concurrent use.
type Sampler struct {
	p   ProbeParams
	enc *tokenize.Encoding

	mu       sync.Mutex
	strata   map[string]*probeHeap
	counters chan *tokenize.Counter
	Offered  int64 // documents offered
	TooShort int64 // candidates without room for prefix and suffix
}

// NewSampler checks p and loads its tokenizer.
func NewSampler(p ProbeParams) (*Sampler, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	enc, err := tokenize.Get(p.Tokenizer)
	if err != nil {
		return nil, err
	}
	return &Sampler{p: p, enc: enc, strata: map[string]*probeHeap{}, counters: make(chan *tokenize.Counter, 64)}, nil
}

// Params returns the sampler's parameters.
func (s *Sampler) Params() ProbeParams { return s.p }

// Key returns the sampling key of a document id under seed.
func Key(seed uint64, id string) uint64 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	d := xxhash.New()
	d.Write(b[:])
	d.WriteString(id)
	return d.Sum64()
}

// DupStratum names the stratum of a duplicate count: "1", "2", "3-4",
// "5-8", ... powers of two; "unknown" for 0.
func DupStratum(n int64) string {
	switch {
	case n <= 0:
		return "unknown"
	case n <= 2:
		return strconv.FormatInt(n, 10)
	}
	hi := int64(1) << bits.Len64(uint64(n-1))
	return strconv.FormatInt(hi/2+1, 10) + "-" + strconv.FormatInt(hi, 10)
}

func (s *Sampler) stratum(d Doc) string {
	switch s.p.StratifyBy {
	case "source":
		return d.Source
	case "dup_count":
		return DupStratum(d.DupCount)
	}
	return ""
}

// Offer considers a document.
func (s *Sampler) Offer(d Doc) {
	key := Key(s.p.Seed, d.ID)
	st := s.stratum(d)
	s.mu.Lock()
	s.Offered++
	h := s.strata[st]
	full := h != nil && h.Len() >= s.p.N && (*h)[0].before(key, d.Pos)
	s.mu.Unlock()
	if full {
		return
	}
	// The probe and its stratum outlive the batch the source may view.
	d.Source = strings.Clone(d.Source)
	st = s.stratum(d)
	var c *tokenize.Counter
	select {
	case c = <-s.counters:
	default:
		c = s.enc.NewCounter()
	}
	pr, ok := s.cut(c, d, key)
	select {
	case s.counters <- c:
	default:
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ok {
		s.TooShort++
		return
	}
	pr.Stratum = st
	if h = s.strata[st]; h == nil {
		h = &probeHeap{}
		s.strata[st] = h
	}
	if h.Len() < s.p.N {
		heap.Push(h, pr)
	} else if !(*h)[0].before(key, d.Pos) {
		(*h)[0] = pr
		heap.Fix(h, 0)
	}
}

// cut tokenizes the document and cuts the probe, at a place where every
// cut falls on a character boundary.
func (s *Sampler) cut(c *tokenize.Counter, d Doc, key uint64) (Probe, bool) {
	ids := c.AppendTokens(nil, d.Text)
	need := s.p.PrefixTokens + s.p.SuffixTokens
	if len(ids) < need {
		return Probe{}, false
	}
	offs := make([]int, len(ids)+1)
	for i, id := range ids {
		offs[i+1] = offs[i] + len(s.enc.Token(id))
	}
	boundary := func(t int) bool { return offs[t] == len(d.Text) || utf8.RuneStart(d.Text[offs[t]]) }
	places := len(ids) - need + 1
	first := 0
	if s.p.Offset == "random" {
		first = int(splitmix(key) % uint64(places))
	}
	for k := 0; k < places; k++ {
		start := (first + k) % places
		split, end := start+s.p.PrefixTokens, start+need
		if !boundary(start) || !boundary(split) || !boundary(end) {
			continue
		}
		var dup *int64
		if d.DupCount > 0 {
			n := d.DupCount
			dup = &n
		}
		return Probe{SourceID: d.ID, Source: d.Source, DupCount: dup, Tokenizer: s.enc.Name(),
			TokenStart: start, TokenSplit: split, TokenEnd: end,
			ByteStart: offs[start], ByteSplit: offs[split], ByteEnd: offs[end],
			Prefix: string(d.Text[offs[start]:offs[split]]), Suffix: string(d.Text[offs[split]:offs[end]]),
			PrefixIDs: append([]int(nil), ids[start:split]...), SuffixIDs: append([]int(nil), ids[split:end]...),
			key: key, pos: d.Pos}, true
	}
	return Probe{}, false
}

// Probes returns the sample: N probes shared equally among the strata in
// name order (smallest keys first within a stratum), then numbered. A
// stratum with fewer documents than its share gives the rest to the others.
func (s *Sampler) Probes() []Probe {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.strata))
	sorted := map[string][]Probe{}
	for name, h := range s.strata {
		names = append(names, name)
		ps := append([]Probe(nil), (*h)...)
		sort.Slice(ps, func(i, j int) bool { return ps[i].before(ps[j].key, ps[j].pos) })
		sorted[name] = ps
	}
	sort.Strings(names)
	taken := map[string]int{}
	total := 0
	for total < s.p.N {
		progress := false
		for _, name := range names {
			if total < s.p.N && taken[name] < len(sorted[name]) {
				taken[name]++
				total++
				progress = true
			}
		}
		if !progress {
			break
		}
	}
	var out []Probe
	for _, name := range names {
		out = append(out, sorted[name][:taken[name]]...)
	}
	width := len(strconv.Itoa(len(out)))
	for i := range out {
		out[i].ID = fmt.Sprintf("probe-%0*d", width, i+1)
	}
	return out
}

// splitmix returns the SplitMix64 output after x.
func splitmix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}

// probeHeap is a max-heap on key: the root is the probe to drop first.
type probeHeap []Probe

func (h probeHeap) Len() int           { return len(h) }
func (h probeHeap) Less(i, j int) bool { return h[j].before(h[i].key, h[i].pos) }
func (h probeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *probeHeap) Push(x any)        { *h = append(*h, x.(Probe)) }
func (h *probeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
