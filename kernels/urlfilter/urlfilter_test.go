package urlfilter

import (
	"strings"
	"testing"
)

func TestDomainsMatchTheirSubdomainsOnly(t *testing.T) {
	m := New()
	err := m.LoadDomains("domains.txt", []byte("# blocked sites\nexample.com\n*.Spam.NET.  # trailing comment\n\n.ads.org\n"))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"https://example.com/":                       "domain:example.com",
		"http://www.EXAMPLE.com:8080/a?b=c":          "domain:example.com",
		"https://user:pw@deep.sub.example.com./x":    "domain:example.com",
		"https://notexample.com/":                    "",
		"https://example.com.evil.io/":               "",
		"https://spam.net/x":                         "domain:spam.net",
		"https://cdn.ads.org":                        "domain:ads.org",
		"https://example.org/?u=https://example.com": "",
		"mailto:someone@example.com":                 "",
		"":                                           "",
	}
	for u, want := range cases {
		if got := m.Match(u); got != want {
			t.Errorf("%q: got %q, want %q", u, got, want)
		}
	}
	if d, s := m.Len(); d != 3 || s != 0 {
		t.Fatalf("len %d %d", d, s)
	}
}

func TestSubstrings(t *testing.T) {
	m := New()
	if err := m.LoadSubstrings("subs.txt", []byte("/wp-login\nCASINO\n")); err != nil {
		t.Fatal(err)
	}
	m.AddDomain("blocked.io")
	for u, want := range map[string]string{
		"https://a.com/wp-login.php":       "substring:/wp-login",
		"https://best-Casino-online.net/":  "substring:casino",
		"https://blocked.io/casino":        "domain:blocked.io",
		"https://fine.example/blog/casing": "",
	} {
		if got := m.Match(u); got != want {
			t.Errorf("%q: got %q, want %q", u, got, want)
		}
	}
}

func TestBadEntriesNameTheLine(t *testing.T) {
	err := New().LoadDomains("d.txt", []byte("ok.com\n\nhttps://not a domain\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "d.txt:3: ") {
		t.Fatalf("err %v", err)
	}
}
