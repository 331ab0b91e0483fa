package pii

import (
	"flag"
	"fmt"
	"github.com/sluice-data/sluice/internal/arrowtest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func mustMasker(t testing.TB, o Options) *Masker {
	t.Helper()
	m, err := NewMasker(o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// expand writes the default tokens for {E}, {P} and {I}.
func expand(s string) string {
	return strings.NewReplacer("{E}", DefaultReplacement[Email], "{P}", DefaultReplacement[Phone], "{I}", DefaultReplacement[IP]).Replace(s)
}

// tokenCounts counts the default tokens in s.
func tokenCounts(s string) (n [3]int) {
	for k := range Kind(numKinds) {
		n[k] = strings.Count(s, DefaultReplacement[k])
	}
	return n
}

// checkMask masks in with m and compares the result with want (in {E},
// {P}, {I} notation), the counts with the tokens added, and checks that
// masking the result changes nothing.
func checkMask(t *testing.T, m *Masker, in, want string) {
	t.Helper()
	want = expand(want)
	got, n := m.Mask(in)
	if got != want {
		t.Errorf("Mask(%q)\n got %q\nwant %q", in, got, want)
	}
	before, after := tokenCounts(in), tokenCounts(want)
	for k := range Kind(numKinds) {
		if n[k] != after[k]-before[k] {
			t.Errorf("Mask(%q): %s count %d, want %d", in, k, n[k], after[k]-before[k])
		}
	}
	if again, n2 := m.Mask(got); again != got || n2 != [3]int{} {
		t.Errorf("Mask(Mask(%q)) = %q %v, want %q unchanged", in, again, n2, got)
	}
}

func TestEmail(t *testing.T) {
	m := mustMasker(t, Options{})
	for _, tc := range []struct{ in, want string }{
		{"john@example.com", "{E}"},
		{"x@y.io", "{E}"},
		{"Contact: john.doe+tag@mail.example.co.uk.", "Contact: {E}."},
		{"<jane_doe@example.org>", "<{E}>"},
		{"mailto:a.b-c%d@x-y.io?subject=1", "mailto:{E}?subject=1"},
		{"A.B@EXAMPLE.COM, c@d.example", "{E}, {E}"},
		{"2831823829@example.com", "{E}"},
		{"1.2.3.4.john@example.com", "{E}"},
		{"283-182-3829.john@example.com", "{E}"},
		{"a..b@example.com", "a..{E}"},
		{".john@example.com", ".{E}"},
		{"john@example.com-", "{E}-"},
		{"john@example.com.", "{E}."},
		{"john@example.com..", "{E}.."},
		{"john@sub-domain.example.museum;", "{E};"},
		{"git@github.com:org/repo.git", "{E}:org/repo.git"},
		{"user:pass@host.example.com", "user:{E}"},
		{"電子メール:taro@example.jp", "電子メール:{E}"},
		{"адрес: ivan@example.ru", "адрес: {E}"},
		{"(x@y.com)", "({E})"},
		{"a@1john.example.com", "{E}"},
		{"|||EMAIL_ADDRESS|||john@example.com", "|||EMAIL_ADDRESS|||{E}"},
	} {
		t.Run(tc.in, func(t *testing.T) { checkMask(t, m, tc.in, tc.want) })
	}
}

func TestPhone(t *testing.T) {
	m := mustMasker(t, Options{})
	for _, tc := range []struct{ in, want string }{
		{"2831823829", "{P}"},
		{"(283)-182-3829", "{P}"},
		{"(283) 182 3829", "{P}"},
		{"(283) 182-3829", "{P}"},
		{"(283)182-3829", "{P}"},
		{"283-182-3829", "{P}"},
		{"283.182.3829", "{P}"},
		{"+1 283 182 3829", "{P}"},
		{"+1-283-182-3829", "{P}"},
		{"+1.283.182.3829", "{P}"},
		{"+1 (283) 182-3829", "{P}"},
		{"+12831823829", "{P}"},
		{"1 (283) 182-3829", "{P}"},
		{"1(283)182-3829", "{P}"},
		{"1-800-555-0199", "{P}"},
		{"1 283 182 3829", "{P}"},
		{"+44 20 7946 0958", "{P}"},
		{"+44 (0)20 7946 0958", "{P}"},
		{"+44 (0) 20 7946 0958", "{P}"},
		{"+442079460958", "{P}"},
		{"+33 1 23 45 67 89", "{P}"},
		{"+49 30 12345678", "{P}"},
		{"+49-30-1234-5678", "{P}"},
		{"+91 98765 43210", "{P}"},
		{"+86 138 0013 8000", "{P}"},
		{"+7 495 123-45-67", "{P}"},
		{"+44.20.7946.0958", "{P}"},
		{"Call 283-182-3829.", "Call {P}."},
		{"call me at 283-182-3829, or 283-182-3830", "call me at {P}, or {P}"},
		{"283-182-3829,283-182-3830", "{P},{P}"},
		{"tel:2831823829", "tel:{P}"},
		{"tel:+1-283-182-3829", "tel:{P}"},
		{"phone: (283) 182-3829 ext. 12", "phone: {P} ext. 12"},
		{"电话2831823829", "电话{P}"},
		{"+44 20 7946 0958 2021", "{P} 2021"},
		{"(283) 182-3829)", "{P})"},
		{"|||PHONE_NUMBER|||2831823829", "|||PHONE_NUMBER|||{P}"},
		{"2831823829|||PHONE_NUMBER|||", "{P}|||PHONE_NUMBER|||"},
	} {
		t.Run(tc.in, func(t *testing.T) { checkMask(t, m, tc.in, tc.want) })
	}
}

func TestIP(t *testing.T) {
	m := mustMasker(t, Options{})
	for _, tc := range []struct{ in, want string }{
		{"192.168.0.1", "{I}"},
		{"0.0.0.0 255.255.255.255", "{I} {I}"},
		{"10.0.0.1:8080", "{I}:8080"},
		{"10.0.0.0/8", "{I}/8"},
		{"(8.8.8.8)", "({I})"},
		{"ip=8.8.4.4;", "ip={I};"},
		{"addr:192.168.1.1", "addr:{I}"},
		{"root@10.0.0.1", "root@{I}"},
		{"Server 1.2.3.4.", "Server {I}."},
		{"version 1.2.3.4", "version {I}"},
		{"2001:db8::1", "{I}"},
		{"::1", "{I}"},
		{"::", "::"},
		{"fe80::1ff:fe23:4567:890a", "{I}"},
		{"FE80::1FF:FE23:4567:890A", "{I}"},
		{"2001:0db8:85a3:0000:0000:8a2e:0370:7334", "{I}"},
		{"1:2:3:4:5:6:7:8", "{I}"},
		{"::ffff:192.0.2.128", "{I}"},
		{"64:ff9b::192.0.2.33", "{I}"},
		{"1:2:3:4:5:6:1.2.3.4", "{I}"},
		{"fe80::", "{I}"},
		{"[2001:db8::1]:443", "[{I}]:443"},
		{"fe80::1%eth0", "{I}%eth0"},
		{"ip:fe80::1", "ip:{I}"},
		{"Host:2001:db8::2", "Host:{I}"},
		{"ID:fe80::1", "ID:{I}"},
		{"fe80::1.", "{I}."},
		{"1:2:3:4:5:6:7:8:1.2.3.4", "1:2:3:4:5:6:7:8:{I}"},
		{"|||IP_ADDRESS|||::1", "|||IP_ADDRESS|||{I}"},
	} {
		t.Run(tc.in, func(t *testing.T) { checkMask(t, m, tc.in, tc.want) })
	}
}

// TestNotMatched lists texts that look like personal data and are left
// alone.
func TestNotMatched(t *testing.T) {
	m := mustMasker(t, Options{})
	for _, in := range []string{
		// e-mail
		"@mention", "follow @dana_w now", "a@b", "user@localhost", "john.@example.com",
		"john@example", "john@example.c", "john@example.123", "john@example.com2",
		"john@-example.com", "john@@example.com", "josé@example.com", "éjohn@example.com",
		"a@b.com@c.com", "name@example.com_x", "john@example.comé",
		"https://twitter.com/@handle", "x@y.com::1",
		// phone: long digit runs, dates, prices, versions, years, plain numbers
		"1234567890123456", "12831823829", "28318238291", "4111 1111 1111 1111",
		"4111-1111-1111-1111", "2021-03-04", "03/04/2021", "2021.03.04", "$1,283.18",
		"1,283,182,3829", "1.2.3", "10.0.19041", "2021", "12345", "123456", "1614556800",
		"283 182 3829", "283-182-38291", "283-182-3829-1", "283-182-3829.5", "x283-182-3829",
		"283-182-3829x", "283-1823-829", "283-182.3829", "(123) 456-7890", "023-182-3829",
		"+3.14159265", "+0 123 456 789", "+12345", "+1 283 182 382", "+44 20", "abc+44 20 7946 0958",
		"ISBN 978-3-16-148410-0", "123-45-6789", "2831823829::1",
		// IPv4
		"999.1.1.1", "256.1.1.1", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1.02.3.4", "1.2.3.04",
		"v1.2.3.4", "1.2.3.4-beta", "1.2.3.4a", "1234.1.1.1", "1.2.3.4567", "1.2.3.4::1", "a.1.2.3.4",
		// IPv6, times, MACs, code
		"12:30", "12:30:45", "14:15:30.250", "aa:bb:cc:dd:ee:ff", "00:1A:2B:3C:4D:5E",
		"aa:bb:cc:dd:ee:ff:00:11", "std::vector", "A::B", "dead::beef", "x :: Int", "Foo::Bar2",
		"1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "1::2::3", "fe80::1::", "2001:db8::1g",
		"2001:db8:::1", "12345::1", "fe80::1.2.3", "fe80::1:", ":fe80::1", "fe80::1-x",
		"xfe80::1", "John 3:16", "ip::1",
	} {
		t.Run(in, func(t *testing.T) { checkMask(t, m, in, in) })
	}
}

// TestKinds checks that a Masker only replaces its own kinds.
func TestKinds(t *testing.T) {
	const in = "a@b.co 283-182-3829 10.0.0.1 ::1"
	for _, tc := range []struct {
		kinds []Kind
		want  string
	}{
		{[]Kind{Email}, "{E} 283-182-3829 10.0.0.1 ::1"},
		{[]Kind{Phone}, "a@b.co {P} 10.0.0.1 ::1"},
		{[]Kind{IP}, "a@b.co 283-182-3829 {I} {I}"},
		{[]Kind{IP, Email}, "{E} 283-182-3829 {I} {I}"},
		{nil, "{E} {P} {I} {I}"},
	} {
		t.Run(strings.Trim(strings.ReplaceAll(expand(tc.want), "|", ""), " "), func(t *testing.T) {
			checkMask(t, mustMasker(t, Options{Kinds: tc.kinds}), in, tc.want)
		})
	}
}

func TestReplacement(t *testing.T) {
	m := mustMasker(t, Options{Replacement: map[Kind]string{Email: "<email>", IP: "[ip]"}})
	got, n := m.Mask("a@b.co, 283-182-3829, ::1")
	if want := "<email>, " + DefaultReplacement[Phone] + ", [ip]"; got != want || n != [3]int{1, 1, 1} {
		t.Errorf("got %q %v, want %q [1 1 1]", got, n, want)
	}
	for _, tok := range []string{"", "EMAIL", "<x", "x>", "<\xff>", ".email.", "<a@b.co>", "[10.0.0.1]", "(x)"} {
		if _, err := NewMasker(Options{Replacement: map[Kind]string{Email: tok}}); err == nil {
			t.Errorf("replacement %q: no error", tok)
		}
	}
	if _, err := NewMasker(Options{Kinds: []Kind{Email, Email}}); err == nil {
		t.Error("kind given twice: no error")
	}
	if _, err := NewMasker(Options{Kinds: []Kind{3}}); err == nil {
		t.Error("unknown kind: no error")
	}
	if _, err := NewMasker(Options{Replacement: map[Kind]string{7: "<x>"}}); err == nil {
		t.Error("replacement for unknown kind: no error")
	}
}

func TestParseKinds(t *testing.T) {
	got, err := ParseKinds("email, Phone,ip")
	if err != nil || len(got) != 3 || got[0] != Email || got[1] != Phone || got[2] != IP {
		t.Errorf("ParseKinds = %v, %v", got, err)
	}
	if got, err := ParseKinds("ip"); err != nil || len(got) != 1 || got[0] != IP {
		t.Errorf("ParseKinds(ip) = %v, %v", got, err)
	}
	for in, msg := range map[string]string{
		"email,foo,bar": `pii: unknown kinds "foo", "bar" (known: email, phone, ip)`,
		"mail":          `pii: unknown kind "mail" (known: email, phone, ip)`,
		"":              `pii: empty kind name in ""`,
		"email,":        `pii: empty kind name in "email,"`,
		"ip,IP":         `pii: kind ip given twice in "ip,IP"`,
	} {
		if _, err := ParseKinds(in); err == nil || err.Error() != msg {
			t.Errorf("ParseKinds(%q) error %v, want %s", in, err, msg)
		}
	}
	for k, s := range map[Kind]string{Email: "email", Phone: "phone", IP: "ip", 9: "Kind(9)"} {
		if k.String() != s {
			t.Errorf("Kind(%d).String() = %q, want %q", k, k.String(), s)
		}
	}
}

// TestGolden masks testdata/sample.txt with all kinds and with each kind
// alone and compares the results with the golden files. Run with -update
// to rewrite them.
func TestGolden(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "sample.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		kinds []Kind
	}{{"all", nil}, {"email", []Kind{Email}}, {"phone", []Kind{Phone}}, {"ip", []Kind{IP}}} {
		t.Run(tc.name, func(t *testing.T) {
			m := mustMasker(t, Options{Kinds: tc.kinds})
			got, _ := m.AppendMasked(nil, in)
			path := filepath.Join("testdata", "sample."+tc.name+".golden")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("%s differs from the output:\n%s", path, got)
			}
			if again, _ := m.AppendMasked(nil, got); string(again) != string(got) {
				t.Errorf("masking the output again changes it:\n%s", again)
			}
		})
	}
}

func TestAppendMaskedAllocs(t *testing.T) {
	m := mustMasker(t, Options{})
	src := []byte(prose)
	dst := make([]byte, 0, 2*len(src))
	if n := testing.AllocsPerRun(100, func() { m.AppendMasked(dst[:0], src) }); n != 0 {
		t.Errorf("%v allocations per run, want 0", n)
	}
}

// texts is the Column test input; nil is a null.
var texts = []*string{
	ptr("mail john@example.com or call 283-182-3829"),
	nil,
	ptr(""),
	ptr("nothing here"),
	ptr("::1 ::1 ::1 ::1 ::1 ::1 ::1 ::1 ::1 ::1 ::1 ::1 ::1 ::1 ::1 ::1 ::1 ::1 ::1 ::1"),
	ptr("10.0.0.1 and 10.0.0.2 and a@b.co"),
	nil,
	ptr("héllo +44 20 7946 0958 wörld"),
	ptr("last 1.2.3.4.5"),
}

var (
	ptr          = arrowtest.Ptr
	buildStrings = arrowtest.Strings
)

func TestColumn(t *testing.T) {
	n := len(texts)
	for _, tc := range []struct {
		name     string
		from, to int
		kinds    []Kind
	}{
		{"whole", 0, n, nil},
		{"sliced", 1, n - 1, nil},
		{"sliced from a null", 1, 4, nil},
		{"sliced without nulls", 2, 6, nil},
		{"empty", 3, 3, nil},
		{"kinds in order ip, email", 0, n, []Kind{IP, Email}},
		{"sliced, phone only", 1, n - 1, []Kind{Phone}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			m := mustMasker(t, Options{Kinds: tc.kinds})
			arr := buildStrings(mem, texts)
			defer arr.Release()
			in := array.NewSlice(arr, int64(tc.from), int64(tc.to)).(*array.String)
			defer in.Release()
			out, counts := m.Column(mem, in)
			defer out.Release()
			for _, c := range counts {
				defer c.Release()
			}
			want := texts[tc.from:tc.to]
			if out.Len() != len(want) || len(counts) != len(m.Kinds()) {
				t.Fatalf("got %d rows and %d count columns, want %d and %d", out.Len(), len(counts), len(want), len(m.Kinds()))
			}
			for i, w := range want {
				for j, c := range counts {
					if c.Len() != len(want) || c.IsValid(i) != (w != nil) {
						t.Fatalf("row %d: count column %d: length %d, valid %v", i, j, c.Len(), c.IsValid(i))
					}
				}
				if w == nil {
					if out.IsValid(i) {
						t.Errorf("row %d: got %q, want null", i, out.Value(i))
					}
					continue
				}
				masked, nk := m.Mask(*w)
				if !out.IsValid(i) || out.Value(i) != masked {
					t.Errorf("row %d: got %q, want %q", i, out.Value(i), masked)
				}
				for j, k := range m.Kinds() {
					if got := counts[j].Value(i); got != int64(nk[k]) {
						t.Errorf("row %d: %s count %d, want %d", i, k, got, nk[k])
					}
				}
			}
		})
	}
}

// TestColumnGrowth masks a column whose texts grow far beyond the input
// size, so the output buffer is reallocated while masking.
func TestColumnGrowth(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	m := mustMasker(t, Options{Kinds: []Kind{IP}})
	vals := []*string{ptr(strings.Repeat("::1 ", 5000)), ptr("x"), ptr(strings.Repeat("::1,", 10))}
	arr := buildStrings(mem, vals)
	defer arr.Release()
	out, counts := m.Column(mem, arr)
	defer out.Release()
	defer counts[0].Release()
	for i, v := range vals {
		want, n := m.Mask(*v)
		if out.Value(i) != want || counts[0].Value(i) != int64(n[IP]) {
			t.Errorf("row %d: got %d bytes, count %d; want %d bytes, count %d", i, len(out.Value(i)), counts[0].Value(i), len(want), n[IP])
		}
	}
}

// TestColumnRuns masks columns where runs of rows without a match, nulls
// among them, lie between rows with one, and checks that a column without
// any match comes back as itself.
func TestColumnRuns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	m := mustMasker(t, Options{})
	plain := strings.Repeat("nothing to see here, 12 items. ", 40)
	var vals []*string
	for i := range 60 {
		switch {
		case i%11 == 4:
			vals = append(vals, nil)
		case i%13 == 7 || i == 59:
			vals = append(vals, ptr(fmt.Sprintf("row %d: mail a%d@example.com, ::1 ::1 ::1 ::1 ::1 ::1 ::1 ::1 %s", i, i, plain[:i])))
		default:
			vals = append(vals, ptr(plain[i:]))
		}
	}
	arr := buildStrings(mem, vals)
	defer arr.Release()
	for _, sl := range [][2]int{{0, 60}, {5, 40}, {8, 20}} {
		in := array.NewSlice(arr, int64(sl[0]), int64(sl[1])).(*array.String)
		out, counts := m.Column(mem, in)
		for i, v := range vals[sl[0]:sl[1]] {
			if v == nil {
				if out.IsValid(i) || counts[0].IsValid(i) {
					t.Errorf("%v row %d: want null", sl, i)
				}
				continue
			}
			want, n := m.Mask(*v)
			if out.Value(i) != want {
				t.Errorf("%v row %d: got %q, want %q", sl, i, out.Value(i), want)
			}
			for j, k := range m.Kinds() {
				if counts[j].Value(i) != int64(n[k]) {
					t.Errorf("%v row %d: %s count %d, want %d", sl, i, k, counts[j].Value(i), n[k])
				}
			}
		}
		if sl == [2]int{8, 20} && out != in {
			t.Errorf("%v: a column without matches was copied", sl)
		}
		out.Release()
		for _, c := range counts {
			c.Release()
		}
		in.Release()
	}
}
