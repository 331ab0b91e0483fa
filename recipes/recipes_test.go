package recipes

import (
	"errors"
	"io/fs"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sluice-data/sluice/kernels/quality"
	"github.com/sluice-data/sluice/pipeline/pipefile"
	"github.com/sluice-data/sluice/stages"
)

// stageNames are the stages of each recipe, in order, as the README's
// table of recipes lists them.
var stageNames = map[string]string{
	"default": "normalize gopher_quality gopher_repetition c4 fineweb",
	"fineweb": "lang gopher_repetition gopher_quality c4 fineweb dedup_minhash pii",
	"c4":      "c4 lang",
	"gopher":  "lang gopher_quality gopher_repetition dedup_exact dedup_minhash",
	"dolma":   "lang c4 gopher_quality gopher_repetition dedup_exact dedup_lines pii",
	"cs336":   "lang pii gopher_quality dedup_lines dedup_minhash",
}

// build parses a recipe and builds its stages as `sluice run` does.
func build(t *testing.T, r Recipe) (*pipefile.File, map[string]any) {
	t.Helper()
	f, err := r.Parse()
	if err != nil {
		t.Fatalf("%s: %v", r.Name, err)
	}
	common := pipefile.Common{TextField: f.TextField, Annotate: f.Annotate, Profile: f.Profile}
	configs := map[string]any{}
	var names []string
	for _, spec := range f.Stages {
		st, err := pipefile.Build(spec, common)
		if err != nil {
			t.Fatalf("%s: %v", r.Name, err)
		}
		if c, ok := st.(interface{ Config() any }); ok {
			configs[spec.Name] = c.Config()
		}
		names = append(names, spec.Name)
	}
	if got := strings.Join(names, " "); got != stageNames[r.Name] {
		t.Errorf("%s: stages %q, want %q", r.Name, got, stageNames[r.Name])
	}
	return f, configs
}

func TestEveryRecipeParsesAndBuilds(t *testing.T) {
	if len(All()) != len(stageNames) || Names()[0] != Default {
		t.Fatalf("recipes %v, want the default first and %d in all", Names(), len(stageNames))
	}
	for _, r := range All() {
		f, _ := build(t, r)
		// The listing shows the summary after the name, within 80 columns.
		if !strings.HasPrefix(string(r.Source), "# ") || r.Summary == "" ||
			len(r.Name)+2+utf8.RuneCountInString(r.Summary) > 80 {
			t.Errorf("%s: summary %q: want a first line `# SUMMARY` that fits the listing", r.Name, r.Summary)
		}
		// Input and output are the placeholders the user edits.
		if strings.Join(f.Input, ",") != "corpus/*.jsonl.zst" || f.Output != "clean/" {
			t.Errorf("%s: input %v, output %q", r.Name, f.Input, f.Output)
		}
		if f.Annotate || f.TextField != "text" || f.Workers != 0 || f.Overwrite {
			t.Errorf("%s: sets what belongs to the command line: %+v", r.Name, f)
		}
	}
}

// optionalStage starts a stage written in a comment: "- name:".
var optionalStage = regexp.MustCompile(`^( *)- [a-z0-9_]+:( |$)`)

// TestOptionalStepsInCommentsParse checks the stages the recipes offer in
// comments, for steps that need a file sluice does not ship: once
// uncommented they parse, and building them fails only for the missing
// file.
func TestOptionalStepsInCommentsParse(t *testing.T) {
	seen := 0
	for _, r := range All() {
		var block []string
		indent := -1
		flush := func() {
			if len(block) == 0 {
				return
			}
			f, err := pipefile.ParseFile(r.Path()+" (comment)", []byte("stages:\n"+strings.Join(block, "\n")+"\n"))
			if err != nil {
				t.Errorf("%s: %v\n%s", r.Name, err, strings.Join(block, "\n"))
				return
			}
			for _, spec := range f.Stages {
				seen++
				_, err := pipefile.Build(spec, pipefile.Common{TextField: "text", Profile: quality.ProfilePaper})
				if err != nil && !errors.Is(err, fs.ErrNotExist) && !strings.Contains(err.Error(), "no file matches") {
					t.Errorf("%s: optional stage %s: %v", r.Name, spec.Name, err)
				}
			}
			block, indent = nil, -1
		}
		for _, line := range strings.Split(string(r.Source), "\n") {
			body, ok := strings.CutPrefix(line, "#")
			if !ok {
				flush()
				continue
			}
			if m := optionalStage.FindStringSubmatch(body); m != nil {
				if len(m[1]) != indent {
					flush()
				}
				indent = len(m[1])
				block = append(block, "  "+body[indent:])
				continue
			}
			if indent >= 0 && len(body)-len(strings.TrimLeft(body, " ")) > indent && strings.TrimSpace(body) != "" {
				block = append(block, "  "+body[indent:])
				continue
			}
			flush()
		}
		flush()
	}
	if seen < 6 {
		t.Errorf("found %d optional stages in the recipes' comments, want the URL filter, decontamination and the classifiers", seen)
	}
}

// TestRecipeThresholds checks the values where a recipe departs from the
// stage defaults, as its comments and the README say.
func TestRecipeThresholds(t *testing.T) {
	get := func(name string) map[string]any {
		r, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		_, configs := build(t, r)
		return configs
	}

	fw := get("fineweb")
	if c := fw["c4"].(*quality.C4Config); c.RequireEndMark || c.MinWordsPerLine != 3 || c.MinSentences != 5 {
		t.Errorf("fineweb c4: %+v", c)
	}
	if c := fw["fineweb"].(*quality.FineWebConfig); !c.CountBlankLines || strings.Join(c.EndMarks, "") != `.'"!?` || c.MinLinePunctFrac != 0.12 {
		t.Errorf("fineweb fineweb: %+v", c)
	}
	if p := fw["lang"].(stages.LangParams); *p.MinScore != 0.65 || strings.Join(p.Languages, ",") != "en" {
		t.Errorf("fineweb lang: %+v", p)
	}
	if p := fw["dedup_minhash"].(stages.MinHashParams); p.NumPerm != 112 || p.Bands != 14 || p.NGram != 5 || p.Threshold != 0.75 {
		t.Errorf("fineweb minhash: %+v", p)
	}

	if p := get("gopher")["dedup_minhash"].(stages.MinHashParams); p.NumPerm != 450 || p.NGram != 13 || p.Threshold != 0.8 {
		t.Errorf("gopher minhash: %+v", p)
	}

	dolma := get("dolma")
	if c := dolma["gopher_repetition"].(*quality.GopherRepetitionConfig); c.MaxDupLineCharFrac != 0.3 || c.MaxDupParaFrac != 1 {
		t.Errorf("dolma repetition: %+v", c)
	}
	if c := dolma["c4"].(*quality.C4Config); !c.RequireEndMark || c.MinWordsPerLine != 0 || c.DropCurlyBrace || c.DropPolicyLines {
		t.Errorf("dolma c4: %+v", c)
	}

	if c := get("cs336")["gopher_quality"].(*quality.GopherQualityConfig); c.MinStopWords != 0 || c.MaxBulletLinesFrac != 1 ||
		c.MinWordCount != 50 || c.MaxEllipsisLinesFrac != 0.3 || c.MinAlphaWordsFrac != 0.8 {
		t.Errorf("cs336 gopher_quality: %+v", c)
	}
	if p := get("c4")["lang"].(stages.LangParams); *p.MinScore != 0.99 {
		t.Errorf("c4 lang: %+v", p)
	}
}

func TestGetUnknownRecipe(t *testing.T) {
	for _, name := range []string{"finweb", "", "../recipes", "default.yaml"} {
		if _, err := Get(name); err == nil || !strings.Contains(err.Error(), "want one of default, c4, cs336, dolma, fineweb, gopher") {
			t.Errorf("Get(%q): %v", name, err)
		}
	}
}
