package quality

import (
	"strings"
	"testing"
)

// c4Lines is the default configuration without the sentence minimum, so
// that single lines show the line rules alone.
func c4Lines(profile string) Config {
	c, err := ProfileConfig(Profile(profile))
	if err != nil {
		panic(err)
	}
	c.C4.MinSentences = 0
	return c
}

func TestC4LineRules(t *testing.T) {
	long := strings.Repeat("a", 1000)
	cases := []struct {
		name, profile, text string
		kept                string // the rewritten text; "" when the line is removed
	}{
		{"five words", "paper", "One two three four five.", "One two three four five."},
		{"four words", "paper", "One two three four.", ""},
		{"punctuation is not a word", "paper", "One - two - three - four.", ""},
		{"three words (datatrove)", "datatrove", "One two three.", "One two three."},
		{"two words (datatrove)", "datatrove", "One two.", ""},
		{"word of 1000 characters", "paper", "Here is a long " + long + ".", "Here is a long " + long + "."},
		{"word of 1001 characters", "paper", "Here is a long " + long + "a.", ""},
		{"question", "paper", "Is this a real question?", "Is this a real question?"},
		{"exclamation", "paper", "This is a real exclamation!", "This is a real exclamation!"},
		{"straight quote", "paper", `He said "this is fine"`, `He said "this is fine"`},
		{"curly quote", "paper", "He said “this is fine.”", "He said “this is fine.”"},
		{"no end mark", "paper", "This line has no end mark", ""},
		{"ellipsis", "paper", "This line trails off into...", ""},
		{"unicode ellipsis", "paper", "This line trails off into…", ""},
		{"apostrophe end (datatrove)", "datatrove", "These are the students'", "These are the students'"},
		{"apostrophe end", "paper", "These are the students'", ""},
		{"trailing white space", "paper", "  Spaces around this line are trimmed.  \r", "Spaces around this line are trimmed."},
		{"citation", "paper", "The river floods every spring.[12]", "The river floods every spring."},
		{"citation then space", "paper", "The river floods every spring. [3]", "The river floods every spring."},
		{"citation needed", "paper", "The river floods every spring[citation needed].", "The river floods every spring."},
		{"edit", "paper", "History of the old mill [edit] in brief.", "History of the old mill  in brief."},
		{"empty citation", "paper", "The river floods every spring[].", "The river floods every spring."},
		{"not a citation", "paper", "The river [a] floods [1a] every spring.", "The river [a] floods [1a] every spring."},
		{"citations kept (dolma)", "dolma", "The river floods every spring.[12]", ""},
		{"javascript", "paper", "Please enable JavaScript to view this page.", ""},
		{"java script", "paper", "Please enable Java script to view this page.", "Please enable Java script to view this page."},
		{"policy", "paper", "By using this site you agree to our Terms of Use.", ""},
		{"cookies", "paper", "This website uses cookies to improve your experience.", ""},
		{"policy kept (dolma)", "dolma", "By using this site you agree to our Terms of Use.", "By using this site you agree to our Terms of Use."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := apply(t, "c4", c4Lines(tc.profile), tc.text)
			if o.rewritten != tc.kept {
				t.Errorf("rewritten %q, want %q", o.rewritten, tc.kept)
			}
			wantFail, kept, removed := "", 1.0, 0.0
			if tc.kept == "" {
				wantFail, kept, removed = "no_lines", 0, 1
			}
			if o.fail != wantFail || o.signals["c4_lines_kept"] != kept || o.signals["c4_lines_removed"] != removed {
				t.Errorf("fail %q, signals %v; want fail %q, %v kept, %v removed", o.fail, o.signals, wantFail, kept, removed)
			}
		})
	}
}

func TestC4DocumentRules(t *testing.T) {
	p := prose(t)
	body := strings.Join(p[:5], "\n")
	cases := []struct {
		name, text, fail string
	}{
		{"clean", body, ""},
		{"lorem ipsum", body + "\nLorem ipsum dolor sit amet, consectetur.", "lorem_ipsum"},
		// Only lines that survive the end-mark and length rules count, as in
		// the reference implementation.
		{"lorem ipsum in a removed line", body + "\nLorem ipsum dolor sit amet", ""},
		{"curly brace", body + "\nThe function body is { return x; } here.", "curly_brace"},
		{"curly brace in a removed line", body + "\nfunction f() { return x; }", ""},
		{"curly brace in a javascript line", body + "\nThis javascript snippet { x } is harmless.", ""},
		{"lorem before curly brace", body + "\nThe { brace } comes first here.\nLorem ipsum dolor sit amet, consectetur.", "lorem_ipsum"},
		{"no lines left", "menu\nhome\nabout us", "no_lines"},
		{"empty", "", "no_lines"},
		{"blank", " \n\t\n", "no_lines"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := apply(t, "c4", DefaultConfig(), tc.text)
			if o.fail != tc.fail {
				t.Errorf("fail %q, want %q (signals %v)", o.fail, tc.fail, o.signals)
			}
		})
	}
}

func TestC4MinSentences(t *testing.T) {
	three := "The mill stood by the river. It was very old.\nThe keeper opened the gate at night."
	two := "The mill stood by the river. It was very old.\nThe keeper opened the gate at night,"
	checkRule(t, "c4", DefaultConfig(), ruleCase{"sentences", "c4_sentences", three, two, 3, 2})

	// datatrove's defaults: five sentences.
	c, _ := ProfileConfig("datatrove")
	five := three + " Nobody knows why. Nobody asked the keeper."
	four := three + " Nobody knows why, nobody asked the keeper."
	checkRule(t, "c4", c, ruleCase{"sentences", "c4_sentences", five, four, 5, 4})
}

func TestC4Rewrite(t *testing.T) {
	text := "Home | About\n\nThe mill stood at the bend of the river for two centuries.[1]\n" +
		"Click here\r\n  It was rebuilt in concrete after a survey in the 1970s.  \n" +
		"We use cookies to improve this site for our readers.\n" +
		"Some residents said the new weir sounded exactly like the old one.\n"
	o := apply(t, "c4", DefaultConfig(), text)
	want := "The mill stood at the bend of the river for two centuries.\n" +
		"It was rebuilt in concrete after a survey in the 1970s.\n" +
		"Some residents said the new weir sounded exactly like the old one."
	if o.rewritten != want || o.fail != "" {
		t.Errorf("fail %q, rewritten\n%s\nwant\n%s", o.fail, o.rewritten, want)
	}
	if o.signals["c4_lines_kept"] != 3 || o.signals["c4_lines_removed"] != 3 || o.signals["c4_sentences"] != 3 {
		t.Errorf("signals %v", o.signals)
	}
}

func TestCountSentences(t *testing.T) {
	cases := []struct {
		text string
		want int
	}{
		{"", 0},
		{"One sentence.", 1},
		{"One. Two! Three? Four", 4},
		{"Ends with quote.\" Next one.", 2},
		{"He said “Go.” Then he left.", 2},
		{"Wait... what is this?", 2},
		{"It costs 3.50 dollars. Cheap.", 2},
		{"See e.g. the river. It floods.", 2},
		{"Mr. Smith met Dr. Jones. They talked.", 2},
		{"J. R. R. Tolkien wrote books.", 1},
		{"Visit example.com today.", 1},
		{"...", 0},
		{"中文句子。第二句！第三句？", 3},
		{"Ünïcode sentence. Ёщё одно.", 2},
	}
	for _, tc := range cases {
		if got := countSentences([]byte(tc.text)); got != tc.want {
			t.Errorf("countSentences(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

func TestRemoveCitations(t *testing.T) {
	cases := []struct{ in, out string }{
		{"a[1]b", "ab"},
		{"a[123][4]b", "ab"},
		{"a[]b", "ab"},
		{"[edit]x[citation needed]", "x"},
		{"[Edit] [1 ] [x]", "[Edit] [1 ] [x]"},
		{"[", "["},
		{"a[1", "a[1"},
		{"[[1]]", "[]"},
	}
	for _, tc := range cases {
		got, changed := removeCitations(nil, []byte(tc.in))
		if string(got) != tc.out || changed != (tc.in != tc.out) {
			t.Errorf("removeCitations(%q) = %q, %v; want %q", tc.in, got, changed, tc.out)
		}
	}
}

// TestCountSentencesPaths checks the ASCII path against the general one.
func TestCountSentencesPaths(t *testing.T) {
	pieces := []string{"a", "Word", " ", ".", "!", "?", "...", `"`, "'", ")", "e.g.", "Mr.", " the", "J.", "3.5", "\t"}
	seed := uint64(3)
	for trial := range 5000 {
		var b strings.Builder
		for range trial % 30 {
			seed = seed*6364136223846793005 + 1442695040888963407
			b.WriteString(pieces[(seed>>33)%uint64(len(pieces))])
		}
		s := b.String()
		// The general path, forced by a non-ASCII rune that is neither a
		// letter nor a terminator, at the end where it changes nothing.
		want := countSentences([]byte(s + " →"))
		if got := countSentencesASCII([]byte(s), allMarks); got != want {
			t.Fatalf("countSentencesASCII(%q) = %d, general path %d", s, got, want)
		}
		may := [3]bool{strings.Contains(s, "."), strings.Contains(s, "!"), strings.Contains(s, "?")}
		if got := countSentencesASCII([]byte(s), may); got != want {
			t.Fatalf("countSentencesASCII(%q, %v) = %d, general path %d", s, may, got, want)
		}
	}
}

func TestC4RulesOff(t *testing.T) {
	c := c4Lines("paper")
	c.C4.DropJavascriptLines = false
	c.C4.DropLoremIpsum = false
	c.C4.DropCurlyBrace = false
	text := "Please enable JavaScript to view this page.\nLorem ipsum dolor sit amet, consectetur.\n" +
		"The body is { return x; } here.\nBy using this site you agree to our terms of use."
	o := apply(t, "c4", c, text)
	want := "Please enable JavaScript to view this page.\nLorem ipsum dolor sit amet, consectetur.\nThe body is { return x; } here."
	if o.fail != "" || o.rewritten != want {
		t.Errorf("fail %q, rewritten\n%s\nwant\n%s", o.fail, o.rewritten, want)
	}
	c.C4.RequireEndMark = false
	c.C4.DropPolicyLines = false
	c.C4.RemoveCitations = false
	c.C4.MinWordsPerLine = 0
	text = "menu\nTerms of use [1]\nhome"
	if o := apply(t, "c4", c, text); o.rewritten != text || o.signals["c4_lines_kept"] != 3 {
		t.Errorf("with every line rule off: rewritten %q, signals %v", o.rewritten, o.signals)
	}
}
