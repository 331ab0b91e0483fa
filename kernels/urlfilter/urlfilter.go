// Package urlfilter matches URLs against block lists: domains, which also
// block their subdomains, and substrings of the URL.
//
// A list file has one entry a line; blank lines and lines starting with #
// are skipped, and so is anything after " #" on a line. Domains compare
// without regard to case and without a trailing dot; an entry may be
// written "*.example.com" or ".example.com", which mean the same as
// "example.com". Substrings compare with the URL lowercased, so entries are
// lowercased too.
package urlfilter

import (
	"bufio"
	"bytes"
	"fmt"
	"net/url"
	"strings"
)

// Matcher holds block lists.
type Matcher struct {
	domains    map[string]struct{}
	substrings []string
}

// New returns an empty matcher.
func New() *Matcher { return &Matcher{domains: map[string]struct{}{}} }

// Len returns the number of domains and substrings held.
func (m *Matcher) Len() (domains, substrings int) { return len(m.domains), len(m.substrings) }

// AddDomain adds a blocked domain. It fails for an entry that cannot be a
// host name.
func (m *Matcher) AddDomain(d string) error {
	d = strings.ToLower(strings.TrimSpace(d))
	d = strings.TrimPrefix(strings.TrimPrefix(d, "*."), ".")
	d = strings.TrimSuffix(d, ".")
	if d == "" || strings.ContainsAny(d, " \t/:@?#*") {
		return fmt.Errorf("%q is not a domain", d)
	}
	m.domains[d] = struct{}{}
	return nil
}

// AddSubstring adds a blocked substring.
func (m *Matcher) AddSubstring(s string) error {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return fmt.Errorf("empty substring")
	}
	m.substrings = append(m.substrings, s)
	return nil
}

// LoadDomains adds the domains of a list file's contents; name is the
// file's name for error messages, which give its line.
func (m *Matcher) LoadDomains(name string, data []byte) error { return load(name, data, m.AddDomain) }

// LoadSubstrings adds the substrings of a list file's contents.
func (m *Matcher) LoadSubstrings(name string, data []byte) error {
	return load(name, data, m.AddSubstring)
}

func load(name string, data []byte, add func(string) error) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		entry := sc.Text()
		if i := strings.Index(entry, " #"); i >= 0 {
			entry = entry[:i]
		}
		entry = strings.TrimSpace(entry)
		if entry == "" || strings.HasPrefix(entry, "#") {
			continue
		}
		if err := add(entry); err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// Match returns the rule that blocks rawURL: "domain:<entry>" or
// "substring:<entry>", or "" when none does. Domains are checked first.
func (m *Matcher) Match(rawURL string) string {
	if len(m.domains) > 0 {
		if host := Host(rawURL); host != "" {
			for h := host; ; {
				if _, ok := m.domains[h]; ok {
					return "domain:" + h
				}
				dot := strings.IndexByte(h, '.')
				if dot < 0 {
					break
				}
				h = h[dot+1:]
			}
		}
	}
	if len(m.substrings) > 0 {
		lower := strings.ToLower(rawURL)
		for _, s := range m.substrings {
			if strings.Contains(lower, s) {
				return "substring:" + s
			}
		}
	}
	return ""
}

// Host returns the lowercased host of a URL, without port or trailing dot,
// or "" when it has none.
func Host(rawURL string) string {
	rest := rawURL
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	} else if strings.HasPrefix(rest, "//") {
		rest = rest[2:]
	} else {
		return ""
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[i+1:]
	}
	if strings.HasPrefix(rest, "[") { // IPv6 literal
		if i := strings.IndexByte(rest, ']'); i >= 0 {
			return strings.ToLower(rest[:i+1])
		}
	}
	if i := strings.LastIndexByte(rest, ':'); i >= 0 {
		rest = rest[:i]
	}
	if strings.Contains(rest, "%") {
		if u, err := url.PathUnescape(rest); err == nil {
			rest = u
		}
	}
	return strings.TrimSuffix(strings.ToLower(rest), ".")
}
