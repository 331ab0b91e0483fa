package command

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sluice-data/sluice/recipes"
)

// recipeCorpus writes rows that each fail one step of the recipes, or
// pass them all.
func recipeCorpus(t *testing.T, dir string) string {
	t.Helper()
	river := "The history of the river is long, and the people who live near it have many stories to tell about the water. " +
		"They say that the river was once wider and that the boats that came up from the sea were larger than any seen today. " +
		"In the spring the snow melts and the water rises, and the farmers move their animals to higher ground. " +
		"Children learn to swim in the shallow bends, and old men fish from the stone bridge in the evening. " +
		"Every summer there is a festival with music and food, and visitors come from the towns along the coast."
	orchard := "The orchard on the hill was planted by the grandmother of the present owner, and it has been tended with care ever since. " +
		"Each autumn the apples are picked by hand and stored in the cool cellar beneath the old farmhouse. " +
		"Some of the fruit is pressed into cider, which the family sells at the market in the nearby village. " +
		"The trees are pruned in winter, when the branches are bare and the shape of each tree can be seen clearly. " +
		"Visitors often ask about the varieties, and the owner is happy to explain the history of each one."
	withContacts := river + "\n\nWrite to jane.doe@example.com or call 283-182-3829, and the office at 198.51.100.7 will answer."
	library := []string{
		"The library in the old town opened its doors to the public more than a century ago.",
		"Its reading room has tall windows that let in the light of the afternoon sun.",
		"Students come to study there, and retired teachers read the newspapers of the day.",
		"The librarians know many of the visitors by name and keep a list of their favourite books.",
		"Read more about it here.",
		"A small garden behind the building has benches where people sit to read in summer.",
		"Every month there is a talk by a local writer, and the room is always full of listeners.",
		"The collection of maps is the pride of the library and draws scholars from abroad.",
		"Read more about it here.",
		"On the first floor, a room is kept for children, with picture books and soft chairs.",
	}
	rows := [][2]string{
		{"river", withContacts},
		// French: not English, and without an English stop word.
		{"french", "L'histoire de la rivière est longue, et les gens qui vivent près d'elle ont beaucoup d'histoires à raconter sur l'eau. " +
			"Ils disent que la rivière était autrefois plus large et que les bateaux qui venaient de la mer étaient plus grands. " +
			"Au printemps, la neige fond et l'eau monte, et les paysans déplacent leurs animaux vers les hauteurs. " +
			"Les enfants apprennent à nager dans les méandres peu profonds, et les vieux pêchent depuis le pont de pierre le soir."},
		// One line ten times: Gopher's duplicate-line rule.
		{"repeated", strings.Repeat("The weather is nice today and the children are playing in the park near the school.\n", 10)},
		// Fewer than 50 words.
		{"short", "The cat sat on the warm mat by the door and watched the birds in the garden with great interest all through the afternoon."},
		// Placeholder text: C4.
		{"lorem", orchard + "\nLorem ipsum dolor sit amet, consectetur adipiscing elit, and the rest of the text."},
		// A repeated line of 4% of the characters: FineWeb's limit is 1%,
		// Gopher's 20%.
		{"library", strings.Join(library, "\n")},
		// The first row with one word changed: a near duplicate.
		{"river-copy", strings.Replace(withContacts, "festival with music", "festival with dancing", 1)},
		{"orchard", orchard},
	}
	var b strings.Builder
	for _, r := range rows {
		line, _ := json.Marshal(map[string]string{"id": r[0], "text": r[1]})
		b.Write(line)
		b.WriteByte('\n')
	}
	p := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// outcome lists a dataset's kept ids and its removed rows as
// id:stage:reason, each sorted, and the kept rows by id.
func outcome(t *testing.T, out string) (string, map[string]map[string]any) {
	t.Helper()
	var kept, removed []string
	byID := map[string]map[string]any{}
	for _, r := range rowsOf(t, filepath.Join(out, "data")) {
		kept = append(kept, r["id"].(string))
		byID[r["id"].(string)] = r
	}
	if _, err := os.Stat(filepath.Join(out, "removed")); err == nil {
		for _, r := range rowsOf(t, filepath.Join(out, "removed")) {
			removed = append(removed, fmt.Sprintf("%s:%s:%s", r["id"], r["_stage"], r["_reason"]))
		}
	}
	sort.Strings(kept)
	sort.Strings(removed)
	return strings.Join(kept, " ") + " | " + strings.Join(removed, " "), byID
}

// manifestStages returns the names of the stages a manifest records.
func manifestStages(t *testing.T, out string) string {
	t.Helper()
	var names []string
	for _, st := range readManifest(t, filepath.Join(out, "manifest.json"))["stages"].([]any) {
		names = append(names, st.(map[string]any)["name"].(string))
	}
	return strings.Join(names, " ")
}

func TestCleanWithoutStageFlagsRunsTheDefaultRecipe(t *testing.T) {
	dir := t.TempDir()
	in := recipeCorpus(t, dir)
	out := filepath.Join(dir, "out")
	stdout, _ := runMain(t, "clean", in, "-o", out)
	if !strings.Contains(stdout, "recipe: default (`sluice recipe default`") {
		t.Errorf("the summary does not name the recipe:\n%s", stdout)
	}
	if got, want := manifestStages(t, out), "normalize gopher_quality gopher_repetition c4 fineweb"; got != want {
		t.Errorf("stages %q, want %q", got, want)
	}
	got, kept := outcome(t, out)
	want := "orchard river river-copy | french:gopher_quality:stop_words library:fineweb:dup_line_char_frac " +
		"lorem:c4:lorem_ipsum repeated:gopher_repetition:dup_line_frac short:gopher_quality:word_count"
	if got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	// No PII masking in the default recipe.
	if text := kept["river"]["text"].(string); !strings.Contains(text, "jane.doe@example.com") {
		t.Errorf("river: %q", text)
	}

	// --annotate with the default recipe keeps every row and marks the
	// same ones.
	ann := filepath.Join(dir, "ann")
	runMain(t, "clean", in, "-o", ann, "--annotate")
	var marked []string
	for _, r := range rowsOf(t, filepath.Join(ann, "data")) {
		if r["keep"] == false {
			marked = append(marked, fmt.Sprintf("%s:%s", r["id"], r["drop_reason"]))
		}
	}
	sort.Strings(marked)
	if got := strings.Join(marked, " "); got != "french:gopher_quality:stop_words library:fineweb:dup_line_char_frac "+
		"lorem:c4:lorem_ipsum repeated:gopher_repetition:dup_line_frac short:gopher_quality:word_count" {
		t.Errorf("annotate marks %s", got)
	}
}

func TestCleanRecipeFineWeb(t *testing.T) {
	dir := t.TempDir()
	in := recipeCorpus(t, dir)
	out := filepath.Join(dir, "out")
	stdout, _ := runMain(t, "clean", in, "-o", out, "--recipe", "fineweb")
	if !strings.Contains(stdout, "recipe: fineweb") {
		t.Errorf("the summary does not name the recipe:\n%s", stdout)
	}
	if got, want := manifestStages(t, out), "lang gopher_repetition gopher_quality c4 fineweb dedup_minhash pii"; got != want {
		t.Errorf("stages %q, want %q", got, want)
	}
	got, kept := outcome(t, out)
	want := "orchard river | french:lang:lang library:fineweb:dup_line_char_frac lorem:c4:lorem_ipsum " +
		"repeated:gopher_repetition:dup_line_frac river-copy:dedup_minhash:near_dup short:gopher_quality:word_count"
	if got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	// FineWeb masks e-mail and IP addresses, not phone numbers.
	text := kept["river"]["text"].(string)
	if !strings.Contains(text, "Write to |||EMAIL_ADDRESS||| or call 283-182-3829, and the office at |||IP_ADDRESS||| will answer.") {
		t.Errorf("river: %q", text)
	}
	if kept["river"]["lang"] != "en" {
		t.Errorf("river: lang %v", kept["river"]["lang"])
	}

	// The recipe's profile is datatrove; --profile replaces it.
	c4Config := func(out string) map[string]any {
		for _, st := range readManifest(t, filepath.Join(out, "manifest.json"))["stages"].([]any) {
			if st := st.(map[string]any); st["name"] == "c4" {
				return st["config"].(map[string]any)
			}
		}
		t.Fatalf("%s: no c4 stage", out)
		return nil
	}
	if c := c4Config(out); c["min_words_per_line"] != 3.0 || c["require_end_mark"] != false {
		t.Errorf("fineweb's c4: %v", c)
	}
	paper := filepath.Join(dir, "paper")
	runMain(t, "clean", in, "-o", paper, "--recipe", "fineweb", "--profile", "paper")
	if c := c4Config(paper); c["min_words_per_line"] != 5.0 || c["require_end_mark"] != false {
		t.Errorf("fineweb's c4 with --profile paper: %v", c)
	}
}

// TestRecipePrintsAPipelineFile: what `sluice recipe NAME` prints, with
// its input and output set, is what `sluice run` runs, and it removes
// what `sluice clean --recipe NAME` removes.
func TestRecipePrintsAPipelineFile(t *testing.T) {
	dir := t.TempDir()
	in := recipeCorpus(t, dir)
	for _, r := range recipes.All() {
		stdout, _ := runMain(t, "recipe", r.Name)
		if stdout != string(r.Source) {
			t.Fatalf("sluice recipe %s prints something else than the recipe", r.Name)
		}
	}

	printed, _ := runMain(t, "recipe", "fineweb")
	file := filepath.Join(dir, "pipeline.yaml")
	edited := strings.Replace(printed, "input: [corpus/*.jsonl.zst]", fmt.Sprintf("input: [%q]", in), 1)
	edited = strings.Replace(edited, "output: clean/", fmt.Sprintf("output: %q", filepath.Join(dir, "run")), 1)
	if edited == printed {
		t.Fatal("the printed recipe has no input and output placeholders")
	}
	os.WriteFile(file, []byte(edited), 0o644)
	runMain(t, "run", file)
	// The output given as a flag instead of in the file.
	runMain(t, "run", file, "-o", filepath.Join(dir, "run-o"))
	runMain(t, "clean", in, "-o", filepath.Join(dir, "clean"), "--recipe", "fineweb")
	want, _ := outcome(t, filepath.Join(dir, "clean"))
	for _, out := range []string{"run", "run-o"} {
		if got, _ := outcome(t, filepath.Join(dir, out)); got != want {
			t.Errorf("sluice run of the printed recipe (%s):\n got %s\nwant %s", out, got, want)
		}
	}
}

func TestRecipeListsEveryRecipe(t *testing.T) {
	stdout, _ := runMain(t, "recipe")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	for i, r := range recipes.All() {
		if !strings.HasPrefix(lines[i], r.Name+" ") || !strings.HasSuffix(lines[i], r.Summary) {
			t.Errorf("line %d %q, want %s and its summary", i, lines[i], r.Name)
		}
	}
	for _, l := range lines {
		if utf8.RuneCountInString(l) > 80 {
			t.Errorf("a line of %d characters: %s", utf8.RuneCountInString(l), l)
		}
	}
	if !strings.Contains(stdout, "--recipe NAME") {
		t.Errorf("the listing does not say how to run a recipe:\n%s", stdout)
	}
}
