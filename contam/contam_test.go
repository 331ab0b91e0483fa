package contam

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/pqio"
)

const (
	question = "Which of the following best describes the function of the mitochondria in eukaryotic cells during aerobic respiration?"
	answer   = "It produces most of the ATP of the cell through oxidative phosphorylation"
	other    = "In the novel, why does the narrator decide to leave the small coastal town after the storm destroys the harbor?"
)

func testIndex(t *testing.T, p Params, examples ...Example) *Index {
	t.Helper()
	x, err := NewIndex(p, []EvalSet{{Name: "mmlu", Path: "mmlu.jsonl"}}, examples)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func matched(x *Index, text string) []string {
	_, found := NewMatcher(x).Match([]byte(text), nil)
	var keys []string
	for _, e := range found {
		keys = append(keys, x.ExampleKey(e))
	}
	return keys
}

func TestPlantedPassagesAreFound(t *testing.T) {
	examples := []Example{
		{ID: "q1", Line: 1, Text: question + "\n" + answer},
		{ID: "q2", Line: 2, Text: other},
	}
	cases := []struct {
		name, text string
		at13, at8  bool
	}{
		{"verbatim in a web page", "Biology homework help. " + question + " Post your answer below, thanks!", true, true},
		{"re-punctuated and re-cased", "Quiz: WHICH of the following -- best describes the FUNCTION of the mitochondria, in eukaryotic cells; during aerobic respiration!!", true, true},
		{"accents and full-width letters", "Whích of thé following best describes the functiön of the mitochondria in eukaryotic cells during aerobic ｒｅｓｐｉｒａｔｉｏｎ", true, true},
		{"paraphrase", "What role do mitochondria play inside eukaryotic cells when those cells respire aerobically? They make ATP.", false, false},
		{"unrelated text sharing 12 words", "Teachers ask which of the following best describes the function of the mitochondria in plants and animals, every year.", false, true},
		{"unrelated text", "The harbor town was quiet after the storm, and nobody left.", false, false},
	}
	for _, n := range []int{13, 8} {
		p := DefaultParams()
		p.NGram = n
		x := testIndex(t, p, examples...)
		for _, c := range cases {
			want := c.at13
			if n == 8 {
				want = c.at8
			}
			got := matched(x, c.text)
			if want != slices.Equal(got, []string{"mmlu:q1"}) || !want && len(got) > 0 {
				t.Errorf("n=%d %s: matched %v, want found=%v", n, c.name, got, want)
			}
		}
	}
}

func TestCommonNGramsAreIgnored(t *testing.T) {
	template := "Answer the following multiple choice question by giving the single most appropriate response."
	var examples []Example
	questions := []string{
		"What is the boiling point of water at sea level in degrees Celsius?",
		"Which planet of the solar system has the largest number of known moons?",
		"Who wrote the play about the prince of Denmark who avenges his father?",
	}
	for i := 0; i < 11; i++ {
		examples = append(examples, Example{ID: string(rune('a' + i)), Line: int64(i + 1), Text: template + "\n" + questions[i%3]})
	}
	page := "Tips for exams: " + template + " Good luck with your studies."
	p := DefaultParams()
	x := testIndex(t, p, examples...)
	if x.Ignored == 0 {
		t.Fatal("no n-gram ignored")
	}
	if got := matched(x, page); len(got) != 0 {
		t.Fatalf("the shared template matched %v", got)
	}
	// A question itself is still found (with the template's n-grams gone).
	if got := matched(x, template+" "+questions[1]); len(got) != 4 || got[0] != "mmlu:b" {
		t.Fatalf("a question with its template matched %v, want the 4 examples asking it", got)
	}
	p.MaxNGramExamples = 0
	x = testIndex(t, p, examples...)
	if got := matched(x, page); len(got) != 11 {
		t.Fatalf("with every n-gram kept the template matched %d examples, want 11", len(got))
	}
	p.MaxNGramExamples = 11
	x = testIndex(t, p, examples...)
	if x.Ignored != 0 || len(matched(x, page)) != 11 {
		t.Fatal("n-grams in exactly MaxNGramExamples examples are dropped")
	}
}

func TestMinOverlapAndFraction(t *testing.T) {
	text := "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty"
	p := DefaultParams()
	p.NGram = 5
	x := testIndex(t, p, Example{ID: "x", Text: text}) // 16 n-grams
	if x.NGrams(0) != 16 {
		t.Fatalf("%d n-grams, want 16", x.NGrams(0))
	}
	part := "one two three four five six seven eight" // 4 n-grams
	hits, _ := NewMatcher(x).Match([]byte(part+" and again "+part), nil)
	if hits != 4 {
		t.Fatalf("a repeated passage counts %d distinct n-grams, want 4", hits)
	}
	for _, c := range []struct {
		overlap  int
		fraction float64
		want     bool
	}{{1, 0, true}, {4, 0, true}, {5, 0, false}, {1, 0.25, true}, {1, 0.26, false}, {5, 0.1, false}} {
		p.MinOverlap, p.MinFraction = c.overlap, c.fraction
		x := testIndex(t, p, Example{ID: "x", Text: text})
		if got := len(matched(x, part)) == 1; got != c.want {
			t.Errorf("overlap %d fraction %v: matched %v, want %v", c.overlap, c.fraction, got, c.want)
		}
	}
}

func TestTooShortExamplesAreCounted(t *testing.T) {
	x := testIndex(t, DefaultParams(), Example{ID: "short", Text: "What is two plus two?"})
	if x.TooShort[0] != 1 || x.Distinct != 0 {
		t.Fatalf("too short %v, distinct %d", x.TooShort, x.Distinct)
	}
	if got := matched(x, "What is two plus two? Four."); len(got) != 0 {
		t.Fatal("an example shorter than n matched")
	}
}

func TestReadEvalsJSONL(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "arc.jsonl")
	os.WriteFile(path, []byte(`{"id":"Q1","question":{"stem":"Which gas do plants absorb?"},"choices":["oxygen","carbon dioxide"],"answer":1}`+"\n"+
		"\n"+
		`{"question":{"stem":"Why is the sky blue?"},"choices":[{"label":"A","text":"scattering"}]}`+"\n"), 0o644)
	files, _ := input.Expand([]string{path})
	sets, exs, err := ReadEvals(files, EvalOptions{Fields: []string{"question.stem", "choices"}, IDField: "id"})
	if err != nil {
		t.Fatal(err)
	}
	if sets[0].Name != "arc" || len(exs) != 2 {
		t.Fatalf("sets %v, %d examples", sets, len(exs))
	}
	if exs[0].ID != "Q1" || exs[0].Text != "Which gas do plants absorb?\noxygen\ncarbon dioxide\n" {
		t.Fatalf("example 1: %+v", exs[0])
	}
	if exs[1].ID != "3" || exs[1].Line != 3 || exs[1].Text != "Why is the sky blue?\nA\nscattering\n" {
		t.Fatalf("example 2: %+v", exs[1])
	}
	_, exs, _ = ReadEvals(files, EvalOptions{IDField: "id"})
	if exs[0].Text != "Which gas do plants absorb?\noxygen\ncarbon dioxide\n1\n" {
		t.Fatalf("all fields: %q", exs[0].Text)
	}

	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"question":"ok"}`+"\n"+`{"question": oops}`+"\n"), 0o644)
	files, _ = input.Expand([]string{bad})
	if _, _, err := ReadEvals(files, EvalOptions{Fields: []string{"question"}}); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2:") {
		t.Fatalf("malformed line: %v", err)
	}
	os.WriteFile(bad, []byte(`{"question":"ok"}`+"\n"+`{"prompt":"no question"}`+"\n"), 0o644)
	if _, _, err := ReadEvals(files, EvalOptions{Fields: []string{"question"}}); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2: none of the evaluation fields question") {
		t.Fatalf("row without the fields: %v", err)
	}
}

func TestReadEvalsParquet(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "q", Type: arrow.StructOf(arrow.Field{Name: "stem", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
		{Name: "choices", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, s)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"a1", ""}, []bool{true, false})
	qb := b.Field(1).(*array.StructBuilder)
	qb.AppendValues([]bool{true, true})
	qb.FieldBuilder(0).(*array.StringBuilder).AppendValues([]string{"Stem one?", "Stem two?"}, nil)
	lb := b.Field(2).(*array.ListBuilder)
	lb.Append(true)
	lb.ValueBuilder().(*array.StringBuilder).AppendValues([]string{"x", "y"}, nil)
	lb.AppendNull()
	rec := b.NewRecordBatch()
	defer rec.Release()
	data, err := pqio.EncodePiece(mem, rec, pqio.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "set.parquet")
	os.WriteFile(path, data, 0o644)
	files, _ := input.Expand([]string{path})
	_, exs, err := ReadEvals(files, EvalOptions{Fields: []string{"q.stem", "choices"}, IDField: "id"})
	if err != nil {
		t.Fatal(err)
	}
	if len(exs) != 2 || exs[0].ID != "a1" || exs[0].Text != "Stem one?\nx\ny\n" || exs[1].ID != "2" || exs[1].Text != "Stem two?\n" {
		t.Fatalf("got %+v", exs)
	}
}

func TestTallyIsOrderFree(t *testing.T) {
	x := testIndex(t, DefaultParams(), Example{ID: "q1", Line: 1, Text: question})
	a, b := &Batch{}, &Batch{}
	a.Row(5<<32|1, "late", "web", []int{0})
	a.Row(5<<32|2, "clean", "web", nil)
	b.Row(2<<32|7, "early", "books", []int{0})
	var reports []string
	for _, order := range [][]*Batch{{a, b}, {b, a}} {
		tl := NewTally(x)
		for _, bt := range order {
			tl.Add(bt)
		}
		var sb strings.Builder
		tl.Report().WriteJSON(&sb)
		reports = append(reports, sb.String())
	}
	if reports[0] != reports[1] {
		t.Fatal("the report depends on the order of batches")
	}
	r := NewTally(x)
	r.Add(a)
	r.Add(b)
	rep := r.Report()
	if rep.Rows != 3 || rep.ContaminatedRows != 2 || rep.EvalSets[0].Contaminated != 1 ||
		rep.EvalSets[0].Found[0].Rows != 2 || rep.EvalSets[0].Found[0].FirstRow != "early" {
		t.Fatalf("report %+v", rep)
	}
	if len(rep.Sources) != 2 || rep.Sources[0] != (SourceReport{"books", 1, 1}) || rep.Sources[1] != (SourceReport{"web", 2, 1}) {
		t.Fatalf("sources %+v", rep.Sources)
	}
}

func TestReadEvalsParquetDeepPath(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	stem := arrow.Field{Name: "stem", Type: arrow.BinaryTypes.String, Nullable: true}
	q := arrow.Field{Name: "q", Type: arrow.StructOf(stem), Nullable: true}
	s := arrow.NewSchema([]arrow.Field{{Name: "item", Type: arrow.StructOf(q), Nullable: true}}, nil)
	b := array.NewRecordBuilder(mem, s)
	defer b.Release()
	item := b.Field(0).(*array.StructBuilder)
	qb := item.FieldBuilder(0).(*array.StructBuilder)
	sb := qb.FieldBuilder(0).(*array.StringBuilder)
	item.Append(true) // item.q.stem = "Stem one?"
	qb.Append(true)
	sb.Append("Stem one?")
	item.AppendNull() // item is null: its stem is too
	qb.Append(true)
	sb.Append("hidden by the null item")
	rec := b.NewRecordBatch()
	defer rec.Release()
	data, err := pqio.EncodePiece(mem, rec, pqio.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "deep.parquet")
	os.WriteFile(path, data, 0o644)
	files, _ := input.Expand([]string{path})
	_, exs, err := ReadEvals(files, EvalOptions{Fields: []string{"item.q.stem"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(exs) != 2 || exs[0].Text != "Stem one?\n" || exs[1].Text != "" {
		t.Fatalf("got %+v", exs)
	}
}

// Reports of consecutive parts of a corpus merge into the report of one
// scan over all of it: an example found in two parts counts once, with its
// rows added and its first row from the earlier part.
func TestMergeEqualsOneTally(t *testing.T) {
	x := testIndex(t, DefaultParams(), Example{ID: "q1", Line: 1, Text: question},
		Example{ID: "q2", Line: 2, Text: "an entirely different question about the boiling point of water at altitude and pressure"})
	rows := []struct {
		id, source string
		matched    []int
	}{{"r0", "web", nil}, {"r1", "web", []int{0}}, {"", "books", []int{1}}, {"r3", "books", []int{0, 1}}, {"r4", "web", nil}, {"r5", "code", []int{0}}}
	all := NewTally(x)
	var parts []Report
	for _, cut := range [][2]int{{0, 2}, {2, 4}, {4, 6}} {
		part := NewTally(x)
		for i := cut[0]; i < cut[1]; i++ {
			for _, tl := range []*Tally{all, part} {
				b := &Batch{}
				b.Row(uint64(i), rows[i].id, rows[i].source, rows[i].matched)
				tl.Add(b)
			}
		}
		parts = append(parts, part.Report())
	}
	merged, err := Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	var got, want strings.Builder
	merged.WriteJSON(&got)
	all.Report().WriteJSON(&want)
	if got.String() != want.String() {
		t.Fatalf("merged\n%s\none tally\n%s", got.String(), want.String())
	}
	if merged.EvalSets[0].Contaminated != 2 || merged.EvalSets[0].Found[1].FirstRow != "" {
		t.Fatalf("merged sets %+v", merged.EvalSets)
	}
	parts[1].Params.NGram++
	if _, err := Merge(parts); err == nil {
		t.Fatal("reports made with other parameters merged")
	}
}
