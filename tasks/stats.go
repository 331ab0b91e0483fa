package tasks

import "github.com/sluice-data/sluice/stats"

// Stats sizes a task file for training: examples, turns and tokens. It is
// filled in input order and keeps constant memory (mergeable histograms).
type Stats struct {
	examples, valid int64
	turns           stats.Histogram
	tokens          stats.Histogram
	roleTokens      [numRoles]stats.Histogram
	counted         bool // tokens were counted
	overLimit       int64
	epochTokens     int64
}

// add records one example; valid says it has no error.
func (st *Stats) add(s *exampleSummary, valid bool, maxTokens int) {
	st.examples++
	st.turns.Add(s.turns)
	if valid {
		st.valid++
	}
	if s.tokens < 0 {
		return
	}
	st.counted = true
	st.tokens.Add(s.tokens)
	for r := Role(0); r < numRoles; r++ {
		if s.roles&(1<<r) != 0 {
			st.roleTokens[r].Add(s.roleTokens[r])
		}
	}
	if maxTokens > 0 && s.tokens > int64(maxTokens) {
		st.overLimit++
	}
	if valid {
		st.epochTokens += s.tokens
	}
}

// Distribution summarizes a histogram.
type Distribution struct {
	Count int64 `json:"count"`
	P50   int64 `json:"p50"`
	P90   int64 `json:"p90"`
	Max   int64 `json:"max"`
	Total int64 `json:"total"`
}

func distribution(h *stats.Histogram) Distribution {
	return Distribution{Count: h.Count(), P50: h.Quantile(0.5), P90: h.Quantile(0.9), Max: h.Max(), Total: h.Sum()}
}

// RoleTokens are the tokens per example of each role, over the examples
// in which the role speaks.
type RoleTokens struct {
	System    *Distribution `json:"system,omitempty"`
	User      *Distribution `json:"user,omitempty"`
	Assistant *Distribution `json:"assistant,omitempty"`
	Tool      *Distribution `json:"tool,omitempty"`
}

// StatsReport is the statistics part of a validation report.
type StatsReport struct {
	// Examples are the lines read as examples, ValidExamples those of them
	// without errors.
	Examples      int64        `json:"examples"`
	ValidExamples int64        `json:"valid_examples"`
	Turns         Distribution `json:"turns_per_example"`
	// The token figures are present when tokens were counted.
	Tokens     *Distribution `json:"tokens_per_example,omitempty"`
	RoleTokens *RoleTokens   `json:"tokens_per_role,omitempty"`
	// Truncated counts the examples over the token limit: a trainer would
	// cut them (or drop them).
	Truncated int64 `json:"truncated"`
	// EpochTokens is the tokens of the examples without errors: what one
	// epoch of training reads.
	EpochTokens int64 `json:"training_tokens_per_epoch"`
}

func (st *Stats) report() StatsReport {
	r := StatsReport{Examples: st.examples, ValidExamples: st.valid, Turns: distribution(&st.turns),
		Truncated: st.overLimit, EpochTokens: st.epochTokens}
	if !st.counted {
		return r
	}
	d := distribution(&st.tokens)
	r.Tokens = &d
	r.RoleTokens = &RoleTokens{}
	for role, dst := range map[Role]**Distribution{System: &r.RoleTokens.System, User: &r.RoleTokens.User,
		Assistant: &r.RoleTokens.Assistant, Tool: &r.RoleTokens.Tool} {
		if st.roleTokens[role].Count() > 0 {
			d := distribution(&st.roleTokens[role])
			*dst = &d
		}
	}
	return r
}
