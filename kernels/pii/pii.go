package pii

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind is a kind of personal data.
type Kind uint8

const (
	Email Kind = iota // e-mail address
	Phone             // phone number
	IP                // IPv4 or IPv6 address

	numKinds = 3
)

var kindNames = [numKinds]string{"email", "phone", "ip"}

// String returns the kind's name: "email", "phone" or "ip".
func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// ParseKinds parses a comma-separated list of kind names, such as
// "email,phone,ip". Names are case-insensitive and may be surrounded by
// spaces; an unknown, empty or repeated name is an error.
func ParseKinds(s string) ([]Kind, error) {
	var kinds []Kind
	var unknown []string
	var seen [numKinds]bool
	for _, f := range strings.Split(s, ",") {
		name := strings.ToLower(strings.TrimSpace(f))
		k := Kind(0)
		for k < numKinds && kindNames[k] != name {
			k++
		}
		switch {
		case name == "":
			return nil, fmt.Errorf("pii: empty kind name in %q", s)
		case k == numKinds:
			unknown = append(unknown, strconv.Quote(strings.TrimSpace(f)))
		case seen[k]:
			return nil, fmt.Errorf("pii: kind %s given twice in %q", k, s)
		default:
			seen[k] = true
			kinds = append(kinds, k)
		}
	}
	if len(unknown) > 0 {
		noun := "kind"
		if len(unknown) > 1 {
			noun = "kinds"
		}
		return nil, fmt.Errorf("pii: unknown %s %s (known: %s)", noun, strings.Join(unknown, ", "), strings.Join(kindNames[:], ", "))
	}
	return kinds, nil
}

// DefaultReplacement is the token that replaces each kind when
// Options.Replacement does not name one. The tokens are those of the
// CS336 masking exercise, also used by datatrove's PIIFormatter.
var DefaultReplacement = map[Kind]string{
	Email: "|||EMAIL_ADDRESS|||",
	Phone: "|||PHONE_NUMBER|||",
	IP:    "|||IP_ADDRESS|||",
}

// Options configure a Masker.
type Options struct {
	// Kinds to detect, in the order of Column's count columns. Empty means
	// Email, Phone, IP.
	Kinds []Kind
	// Replacement maps a kind to the token that replaces its matches; a
	// nil map or a missing kind takes DefaultReplacement. See NewMasker
	// for what a token may be.
	Replacement map[Kind]string
}

// neutralEdge lists the bytes a replacement token may start and end with:
// ASCII punctuation that no match contains and no match boundary looks
// at, so that a token never joins with the text around it.
const neutralEdge = "!\"#$&'*,/;<=>?[\\]^`{|}~"

// Masker finds and replaces personal data. It is immutable and safe for
// concurrent use.
type Masker struct {
	kinds   []Kind
	on      [numKinds]bool
	repl    [numKinds][]byte
	trigger [256]bool // bytes at which a match is looked for
}

// NewMasker returns a Masker for o. It is an error to name an unknown
// kind, to name a kind twice, or to give a replacement token that is not
// valid UTF-8, does not start and end with one of
// ! " # $ & ' * , / ; < = > ? [ \ ] ^ ` { | } ~
// (so that it cannot join with the text around it), or itself contains a
// match. These rules make masking idempotent.
func NewMasker(o Options) (*Masker, error) {
	m := &Masker{kinds: append([]Kind(nil), o.Kinds...)}
	if len(m.kinds) == 0 {
		m.kinds = []Kind{Email, Phone, IP}
	}
	for _, k := range m.kinds {
		if k >= numKinds {
			return nil, fmt.Errorf("pii: unknown kind %s", k)
		}
		if m.on[k] {
			return nil, fmt.Errorf("pii: kind %s given twice", k)
		}
		m.on[k] = true
	}
	for k := range o.Replacement {
		if k >= numKinds {
			return nil, fmt.Errorf("pii: replacement for unknown kind %s", k)
		}
	}
	if m.on[Email] {
		m.trigger['@'] = true
	}
	if m.on[Phone] {
		m.trigger['+'], m.trigger['('] = true, true
	}
	if m.on[IP] {
		m.trigger[':'] = true
	}
	if m.on[Phone] || m.on[IP] {
		for b := '0'; b <= '9'; b++ {
			m.trigger[b] = true
		}
	}
	var errs []error
	for _, k := range m.kinds {
		tok, ok := o.Replacement[k]
		if !ok {
			tok = DefaultReplacement[k]
		}
		m.repl[k] = []byte(tok)
		switch {
		case !utf8.ValidString(tok):
			errs = append(errs, fmt.Errorf("pii: replacement for %s is not valid UTF-8", k))
		case tok == "" || !strings.ContainsRune(neutralEdge, rune(tok[0])) || !strings.ContainsRune(neutralEdge, rune(tok[len(tok)-1])):
			errs = append(errs, fmt.Errorf("pii: replacement %q for %s must start and end with one of %s", tok, k, neutralEdge))
		}
	}
	if len(errs) == 0 {
		for _, k := range m.kinds {
			if _, n := m.AppendMasked(nil, m.repl[k]); n != [numKinds]int{} {
				errs = append(errs, fmt.Errorf("pii: replacement %q for %s contains personal data itself", m.repl[k], k))
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return m, nil
}

// Kinds returns the kinds m detects, in the order of Column's count
// columns.
func (m *Masker) Kinds() []Kind { return append([]Kind(nil), m.kinds...) }

// AppendMasked appends src to dst with every match replaced by its kind's
// token, and returns the extended buffer and the number of replacements
// per kind, indexed by Kind. Text between matches is copied byte for byte,
// invalid UTF-8 included; matches are ASCII, so valid UTF-8 stays valid.
// Matches do not overlap: see the package documentation for which wins.
func (m *Masker) AppendMasked(dst, src []byte) ([]byte, [3]int) {
	var counts [numKinds]int
	var f finder
	for {
		k, start, end := m.next(&f, src)
		if start < 0 {
			break
		}
		dst = append(dst, src[f.last:start]...)
		dst = append(dst, m.repl[k]...)
		counts[k]++
		f.last, f.i = end, end
	}
	dst = append(dst, src[f.last:]...)
	return dst, counts
}

// finder is the state of a search for matches.
type finder struct {
	last     int // src[:last] is done: matched or copied
	i        int // where to look next
	colonEnd int // colons before colonEnd were examined
}

// next returns the next match at or after f.i, or start < 0. The caller
// sets f.last and f.i to the end of the match.
func (m *Masker) next(f *finder, src []byte) (kind Kind, start, end int) {
	n := len(src)
	i := f.i
	for {
		if i >= n || !m.trigger[src[i]] { // in text dense with triggers, often one
			i = m.skip(src, i)
		}
		if i >= n {
			f.i = n
			return 0, -1, -1
		}
		start = -1
		switch c := src[i]; c {
		case '@':
			start, end = emailAt(src, f.last, i)
			kind = Email
		case ':':
			if i >= f.colonEnd {
				start, end, f.colonEnd = ipv6At(src, f.last, i)
				kind = IP
			}
		case '+', '(':
			if i+1 < n && isDigit(src[i+1]) && leftOK(src, f.last, i) {
				if e := phoneEnd(src, i); e >= 0 {
					start, end, kind = i, e, Phone
				}
			}
		default: // a digit
			if i > f.last && isWord(src[i-1]) {
				// Inside a word: nothing starts here, nor before the
				// word's end.
				i = skipWord(src, i)
				continue
			}
			// What can start here depends on the run of digits.
			d := digitRun(src, i)
			next := byte(neutral)
			if i+d < n {
				next = src[i+d]
			}
			ip := m.on[IP] && d <= 3 && next == '.'
			phone := m.on[Phone] && (d == 10 || d == 3 && isPhoneSep(next) ||
				d == 1 && c == '1' && (isPhoneSep(next) || next == '('))
			if (ip || phone) && leftOK(src, f.last, i) {
				if ip {
					if e := ipv4Match(src, i); e >= 0 {
						start, end, kind = i, e, IP
					}
				}
				if start < 0 && phone {
					if e := phoneEnd(src, i); e >= 0 {
						start, end, kind = i, e, Phone
					}
				}
			}
			if start < 0 {
				i = skipWord(src, i+d)
				continue
			}
		}
		if start >= 0 {
			return kind, start, end
		}
		i++
	}
}

// skip returns the first trigger of src at or after i, or len(src).
func (m *Masker) skip(src []byte, i int) int {
	n := len(src)
	// The next eight bytes first: in text dense with triggers (digits) one
	// is often among them.
	if i+8 <= n {
		if j := m.firstTrigger(src, i, triggers(binary.LittleEndian.Uint64(src[i:]))); j >= 0 {
			return j
		}
		i += 8
	}
	for i+32 <= n {
		// Then 32 bytes at a time while no trigger shows, and the bytes
		// triggers marks, one after the other.
		q := src[i : i+32 : i+32]
		t0 := triggers(binary.LittleEndian.Uint64(q))
		t1 := triggers(binary.LittleEndian.Uint64(q[8:]))
		t2 := triggers(binary.LittleEndian.Uint64(q[16:]))
		t3 := triggers(binary.LittleEndian.Uint64(q[24:]))
		if t0|t1|t2|t3 != 0 {
			for k, t := range [4]uint64{t0, t1, t2, t3} {
				if j := m.firstTrigger(src, i+8*k, t); j >= 0 {
					return j
				}
			}
		}
		i += 32
	}
	for ; i < n; i++ {
		if m.trigger[src[i]] {
			return i
		}
	}
	return n
}

// triggers sets the high bit of each of the eight bytes of w that may be a
// trigger: of every digit, ':', '@', '+' and '(' (the triggers of every
// kind), and of some other bytes; a byte whose bit is clear is no trigger.
func triggers(w uint64) uint64 {
	const (
		lsb = 0x0101010101010101
		msb = 0x8080808080808080
	)
	y := w &^ msb
	// y+(0x80-lo) has its high bit set where y >= lo; no byte carries.
	digitColon := (y + (0x80-'0')*lsb) &^ (y + (0x80-':'-1)*lsb)
	at, plus, paren := w^('@'*lsb), w^('+'*lsb), w^('('*lsb)
	// A zero byte of at, plus or paren has its high bit set in
	// (v - lsb) &^ v; a byte above one may too, never one of a word
	// without a zero byte.
	zero := (at-lsb)&^at | (plus-lsb)&^plus | (paren-lsb)&^paren
	return (digitColon | zero) & msb
}

// firstTrigger returns the first trigger of m among the bytes of src from
// i on that t, from triggers, marks, or -1.
func (m *Masker) firstTrigger(src []byte, i int, t uint64) int {
	for ; t != 0; t &= t - 1 {
		if j := i + bits.TrailingZeros64(t)/8; m.trigger[src[j]] {
			return j
		}
	}
	return -1
}

// Mask returns s with every match replaced, and the number of replacements
// per kind.
func (m *Masker) Mask(s string) (string, [3]int) {
	out, n := m.AppendMasked(make([]byte, 0, len(s)+len(s)/8), []byte(s))
	return string(out), n
}
