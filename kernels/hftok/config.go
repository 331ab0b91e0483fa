package hftok

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// fileJSON is the part of tokenizer.json that counting reads.
type fileJSON struct {
	AddedTokens  []addedTokenJSON `json:"added_tokens"`
	Normalizer   json.RawMessage  `json:"normalizer"`
	PreTokenizer json.RawMessage  `json:"pre_tokenizer"`
	Model        json.RawMessage  `json:"model"`
}

type addedTokenJSON struct {
	ID         int64  `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized *bool  `json:"normalized"`
	Special    bool   `json:"special"`
}

type bpeJSON struct {
	Type                    string            `json:"type"`
	Vocab                   map[string]int64  `json:"vocab"`
	Merges                  []json.RawMessage `json:"merges"`
	UnkToken                *string           `json:"unk_token"`
	ContinuingSubwordPrefix *string           `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string           `json:"end_of_word_suffix"`
	FuseUnk                 bool              `json:"fuse_unk"`
	ByteFallback            bool              `json:"byte_fallback"`
	IgnoreMerges            bool              `json:"ignore_merges"`
}

// componentJSON is a normalizer or pre-tokenizer: a type and its options.
type componentJSON struct {
	Type string `json:"type"`
	// Sequence
	Normalizers   []json.RawMessage `json:"normalizers"`
	PreTokenizers []json.RawMessage `json:"pretokenizers"`
	// ByteLevel
	AddPrefixSpace *bool `json:"add_prefix_space"`
	UseRegex       *bool `json:"use_regex"`
	// Split
	Pattern  *patternJSON `json:"pattern"`
	Behavior string       `json:"behavior"`
	Invert   bool         `json:"invert"`
	// Digits
	IndividualDigits bool `json:"individual_digits"`
}

type patternJSON struct {
	String *string `json:"String"`
	Regex  *string `json:"Regex"`
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

func parse(data []byte) (*Tokenizer, error) {
	var f fileJSON
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("invalid tokenizer.json: %w", err)
	}
	if isNull(f.Model) {
		return nil, errors.New("tokenizer.json has no model")
	}
	t := &Tokenizer{}
	if err := t.parseModel(f.Model); err != nil {
		return nil, err
	}
	var err error
	if t.forms, err = parseNormalizer(f.Normalizer); err != nil {
		return nil, err
	}
	if t.steps, err = parsePreTokenizer(f.PreTokenizer); err != nil {
		return nil, err
	}
	if err := t.parseAdded(f.AddedTokens); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *Tokenizer) parseModel(raw json.RawMessage) error {
	var m bpeJSON
	var probe struct {
		Type   string          `json:"type"`
		Merges json.RawMessage `json:"merges"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	switch {
	case probe.Type == "BPE", probe.Type == "" && !isNull(probe.Merges):
	case probe.Type == "":
		return errors.New("model has no type")
	default:
		return fmt.Errorf("%w model type %q: only byte-level BPE is supported", ErrUnsupported, probe.Type)
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if m.ContinuingSubwordPrefix != nil && *m.ContinuingSubwordPrefix != "" {
		return fmt.Errorf("%w BPE continuing_subword_prefix %q", ErrUnsupported, *m.ContinuingSubwordPrefix)
	}
	if m.EndOfWordSuffix != nil && *m.EndOfWordSuffix != "" {
		return fmt.Errorf("%w BPE end_of_word_suffix %q", ErrUnsupported, *m.EndOfWordSuffix)
	}
	if len(m.Vocab) == 0 {
		return errors.New("model has an empty vocab")
	}

	t.vocab = make(map[string]int32, len(m.Vocab))
	for tok, id := range m.Vocab {
		if id < 0 || id > math.MaxInt32 {
			return fmt.Errorf("vocab: token %q has id %d", tok, id)
		}
		t.vocab[tok] = int32(id)
	}
	t.ignoreMerges = m.IgnoreMerges
	t.fuseUnk = m.FuseUnk
	t.unkID = -1
	if m.UnkToken != nil {
		id, ok := t.vocab[*m.UnkToken]
		if !ok {
			return fmt.Errorf("unk_token %q is not in the vocab", *m.UnkToken)
		}
		t.unkID = id
	}
	var buf []byte
	for b := range 256 {
		buf = appendByteLevel(buf[:0], []byte{byte(b)})
		id, ok := t.vocab[string(buf)]
		if !ok {
			id = -1
			if m.ByteFallback {
				t.fallback[b] = t.byteFallbackIDs(buf)
			}
		}
		t.byteIDs[b] = id
	}

	t.merges = make(map[uint64]uint64, len(m.Merges))
	for rank, raw := range m.Merges {
		a, b, err := parseMerge(raw)
		if err != nil {
			return fmt.Errorf("merge %d: %w", rank, err)
		}
		aID, okA := t.vocab[a]
		bID, okB := t.vocab[b]
		id, ok := t.vocab[a+b]
		switch {
		case !okA:
			return fmt.Errorf("merge %d: token %q is not in the vocab", rank, a)
		case !okB:
			return fmt.Errorf("merge %d: token %q is not in the vocab", rank, b)
		case !ok:
			return fmt.Errorf("merge %d: merged token %q is not in the vocab", rank, a+b)
		}
		t.merges[pairKey(aID, bID)] = uint64(rank)<<32 | uint64(uint32(id))
	}
	return nil
}

// byteFallbackIDs returns the ids of the <0xXX> tokens of the bytes of
// sym, or nil if one is missing.
func (t *Tokenizer) byteFallbackIDs(sym []byte) []int32 {
	ids := make([]int32, 0, len(sym))
	for _, c := range sym {
		id, ok := t.vocab[fmt.Sprintf("<0x%02X>", c)]
		if !ok {
			return nil
		}
		ids = append(ids, id)
	}
	return ids
}

// parseMerge reads a merge written either "a b" or ["a", "b"].
func parseMerge(raw json.RawMessage) (string, string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", "", err
		}
		a, b, ok := strings.Cut(s, " ")
		if !ok || a == "" || b == "" {
			return "", "", fmt.Errorf("%q is not two tokens separated by a space", s)
		}
		return a, b, nil
	}
	var pair []string
	if err := json.Unmarshal(raw, &pair); err != nil {
		return "", "", fmt.Errorf("%s is neither \"a b\" nor [\"a\", \"b\"]", raw)
	}
	if len(pair) != 2 {
		return "", "", fmt.Errorf("%s is not a pair", raw)
	}
	return pair[0], pair[1], nil
}

func parseNormalizer(raw json.RawMessage) ([]norm.Form, error) {
	if isNull(raw) {
		return nil, nil
	}
	var c componentJSON
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("normalizer: %w", err)
	}
	switch c.Type {
	case "NFC":
		return []norm.Form{norm.NFC}, nil
	case "NFD":
		return []norm.Form{norm.NFD}, nil
	case "NFKC":
		return []norm.Form{norm.NFKC}, nil
	case "NFKD":
		return []norm.Form{norm.NFKD}, nil
	case "Sequence":
		var forms []norm.Form
		for _, n := range c.Normalizers {
			f, err := parseNormalizer(n)
			if err != nil {
				return nil, err
			}
			forms = append(forms, f...)
		}
		return forms, nil
	}
	return nil, fmt.Errorf("%w normalizer %q", ErrUnsupported, c.Type)
}

// parsePreTokenizer flattens the pre-tokenizer into steps. ByteLevel must
// come last: it adds the prefix space and GPT-2's split, and what follows
// it is byte-level BPE.
func parsePreTokenizer(raw json.RawMessage) ([]step, error) {
	if isNull(raw) {
		return nil, fmt.Errorf("%w pre_tokenizer null: a byte-level BPE needs a ByteLevel pre-tokenizer", ErrUnsupported)
	}
	var steps []step
	byteLevel := false
	var add func(raw json.RawMessage) error
	add = func(raw json.RawMessage) error {
		var c componentJSON
		if err := json.Unmarshal(raw, &c); err != nil {
			return fmt.Errorf("pre_tokenizer: %w", err)
		}
		if byteLevel {
			return fmt.Errorf("%w pre_tokenizer %q after ByteLevel", ErrUnsupported, c.Type)
		}
		switch c.Type {
		case "Sequence":
			for _, p := range c.PreTokenizers {
				if err := add(p); err != nil {
					return err
				}
			}
		case "ByteLevel":
			byteLevel = true
			if c.AddPrefixSpace == nil || *c.AddPrefixSpace {
				steps = append(steps, step{kind: stepPrefixSpace})
			}
			if c.UseRegex == nil || *c.UseRegex {
				re, err := compilePattern(gpt2Pattern)
				if err != nil {
					return err
				}
				steps = append(steps, step{kind: stepRegex, re: re, behavior: isolated})
			}
		case "Split":
			s := step{invert: c.Invert}
			var err error
			if s.behavior, err = parseBehavior(c.Behavior); err != nil {
				return err
			}
			switch {
			case c.Pattern != nil && c.Pattern.Regex != nil:
				s.kind = stepRegex
				if s.re, err = compilePattern(*c.Pattern.Regex); err != nil {
					return err
				}
			case c.Pattern != nil && c.Pattern.String != nil:
				s.kind = stepLiteral
				s.literal = []byte(*c.Pattern.String)
			default:
				return errors.New("pre_tokenizer: Split has no String or Regex pattern")
			}
			steps = append(steps, s)
		case "Digits":
			s := step{kind: stepDigits, behavior: contiguous}
			if c.IndividualDigits {
				s.behavior = isolated
			}
			steps = append(steps, s)
		default:
			return fmt.Errorf("%w pre_tokenizer %q", ErrUnsupported, c.Type)
		}
		return nil
	}
	if err := add(raw); err != nil {
		return nil, err
	}
	if !byteLevel {
		return nil, fmt.Errorf("%w pre_tokenizer without ByteLevel: only byte-level BPE is supported", ErrUnsupported)
	}
	return steps, nil
}

// parseAdded sorts the added tokens into those matched on the raw text and
// those matched on the normalized text. A set with no token that is not
// special finds nothing to keep and is dropped.
func (t *Tokenizer) parseAdded(list []addedTokenJSON) error {
	var raw, normed []addedToken
	rawKeeps, normKeeps := false, false
	for _, a := range list {
		if a.Content == "" {
			continue
		}
		if a.ID < 0 || a.ID > math.MaxInt32 {
			return fmt.Errorf("added token %q has id %d", a.Content, a.ID)
		}
		tok := addedToken{
			content:    []byte(a.Content),
			id:         int32(a.ID),
			special:    a.Special,
			singleWord: a.SingleWord,
			lstrip:     a.LStrip,
			rstrip:     a.RStrip,
		}
		if a.Normalized == nil || *a.Normalized {
			for _, f := range t.forms {
				tok.content = f.Bytes(tok.content)
			}
			if len(tok.content) == 0 {
				continue
			}
			normed = append(normed, tok)
			normKeeps = normKeeps || !a.Special
		} else {
			raw = append(raw, tok)
			rawKeeps = rawKeeps || !a.Special
		}
	}
	if rawKeeps {
		t.rawAdded = newAddedSet(raw)
	}
	if normKeeps {
		t.normAdded = newAddedSet(normed)
	}
	return nil
}
