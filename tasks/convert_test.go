package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/pqio"
)

// convert writes lines to a file, converts it with ConvertFiles and
// returns the output lines parsed.
func convert(t *testing.T, lines []string, to Format, system string) ([]map[string]any, error) {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.jsonl")
	files, err := input.Expand([]string{in})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ConvertFiles(context.Background(), files, out, ConvertOptions{To: to, System: system}, nil, "test"); err != nil {
		if _, statErr := os.Stat(out); statErr == nil {
			t.Errorf("a failed conversion left %s behind", out)
		}
		return nil, err
	}
	return readObjects(t, out), nil
}

func readObjects(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var res []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%s: %v: %s", path, err, l)
		}
		res = append(res, m)
	}
	return res
}

func marshalAll(t *testing.T, objs []map[string]any) []string {
	var lines []string
	for _, o := range objs {
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	return lines
}

func parseAll(t *testing.T, lines []string) []map[string]any {
	var res []map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		res = append(res, m)
	}
	return res
}

func TestRoundTrips(t *testing.T) {
	cases := []struct {
		name    string
		from    []string
		via     Format
		back    Format
		viaWant []string // the intermediate lines, when checked
	}{
		{name: "instruction to chat and back",
			from: []string{`{"instruction":"Say hi.","input":"","output":"Hi!","id":7}`,
				`{"instruction":"Be polite.","input":"","output":"Please.","system":"You are kind.","meta":{"src":"x"}}`},
			via: Chat, back: Instruction,
			viaWant: []string{`{"messages":[{"role":"user","content":"Say hi."},{"role":"assistant","content":"Hi!"}],"id":7}`,
				`{"messages":[{"role":"system","content":"You are kind."},{"role":"user","content":"Be polite."},{"role":"assistant","content":"Please."}],"meta":{"src":"x"}}`}},
		{name: "completion to chat and back",
			from: []string{`{"prompt":"Q: 2+2?\nA:","completion":" 4\n","source":"math"}`, `{"prompt":"  spaced  ","completion":"é ü \u2028"}`},
			via:  Chat, back: Completion},
		{name: "chat to instruction and back",
			from: []string{`{"messages":[{"role":"system","content":"S"},{"role":"user","content":"U"},{"role":"assistant","content":"A"}],"id":"x"}`},
			via:  Instruction, back: Chat,
			viaWant: []string{`{"instruction":"U","input":"","output":"A","system":"S","id":"x"}`}},
		{name: "chat to completion and back",
			from: []string{`{"messages":[{"role":"user","content":"U\n\nmore"},{"role":"assistant","content":"A"}]}`},
			via:  Completion, back: Chat},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mid, err := convert(t, c.from, c.via, "")
			if err != nil {
				t.Fatal(err)
			}
			if c.viaWant != nil && !reflect.DeepEqual(mid, parseAll(t, c.viaWant)) {
				t.Errorf("converted to %s:\n got %v\nwant %v", c.via, mid, parseAll(t, c.viaWant))
			}
			back, err := convert(t, marshalAll(t, mid), c.back, "")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, parseAll(t, c.from)) {
				t.Errorf("round trip:\n got %v\nwant %v", back, parseAll(t, c.from))
			}
		})
	}
}

func TestConvertShareGPTAndSystem(t *testing.T) {
	got, err := convert(t, []string{
		`{"system":"Be brief.","conversations":[{"from":"human","value":"Hi"},{"from":"gpt","value":"Hello"},{"from":"human","value":"Bye"},{"from":"gpt","value":"Bye!"}],"id":1}`,
	}, Chat, "")
	if err != nil {
		t.Fatal(err)
	}
	want := parseAll(t, []string{`{"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello"},{"role":"user","content":"Bye"},{"role":"assistant","content":"Bye!"}],"id":1}`})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	got, err = convert(t, []string{
		`{"instruction":"Translate.","input":"Bonjour","output":"Hello"}`,
		`{"instruction":"Greet.","output":"Hi","system":"Own prompt."}`,
	}, Chat, "You translate.")
	if err != nil {
		t.Fatal(err)
	}
	want = parseAll(t, []string{
		`{"messages":[{"role":"system","content":"You translate."},{"role":"user","content":"Translate.\n\nBonjour"},{"role":"assistant","content":"Hello"}]}`,
		`{"messages":[{"role":"system","content":"Own prompt."},{"role":"user","content":"Greet."},{"role":"assistant","content":"Hi"}]}`,
	})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestConvertRefusesLoss(t *testing.T) {
	cases := []struct {
		name, line string
		to         Format
		reason     string
	}{
		{"multi-turn to instruction", `{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"},{"role":"assistant","content":"d"}]}`, Instruction, "one user turn and one answer"},
		{"system to completion", `{"messages":[{"role":"system","content":"s"},{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}`, Completion, "no place for the system message"},
		{"weight to instruction", `{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b","weight":1}]}`, Instruction, "members beyond role and content"},
		{"tools to completion", `{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}],"tools":[]}`, Completion, "declares tools"},
		{"sharegpt tool turn to chat", `{"conversations":[{"from":"human","value":"a"},{"from":"function_call","value":"{}"},{"from":"observation","value":"1"},{"from":"gpt","value":"b"}]}`, Chat, "tool-use turn"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fine := `{"messages":[{"role":"user","content":"fine"},{"role":"assistant","content":"yes"}]}`
			if strings.Contains(c.line, "conversations") {
				fine = `{"conversations":[{"from":"human","value":"fine"},{"from":"gpt","value":"yes"}]}`
			}
			_, err := convert(t, []string{fine, c.line}, c.to, "")
			var loss *LossError
			if !errors.As(err, &loss) || !strings.Contains(err.Error(), c.reason) || !strings.Contains(err.Error(), "in.jsonl:2:") {
				t.Fatalf("error %v, want a LossError on in.jsonl:2 about %q", err, c.reason)
			}
		})
	}
	_, err := convert(t, []string{`{"prompt":"fine","completion":"yes"}`, `{"prompt":"","completion":"x"}`}, Chat, "")
	if err == nil || !strings.Contains(err.Error(), "in.jsonl:2: empty_content") {
		t.Fatalf("an invalid line: error %v", err)
	}
}

func TestConvertParquet(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(`{"instruction":"Add.","input":"1 and 2","output":"3","id":"a"}
{"conversations":[{"from":"human","value":"Hi"},{"from":"gpt","value":"Hello"}]}
not json
`), 0o644)
	files, _ := input.Expand([]string{in})
	out := filepath.Join(dir, "out.parquet")
	if _, err := ConvertFiles(context.Background(), files, out, ConvertOptions{From: Auto}, nil, "test"); err == nil {
		t.Fatal("mixed formats and a bad line converted without --skip-invalid")
	}
	m, err := ConvertFiles(context.Background(), files, out, ConvertOptions{SkipInvalid: true}, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	if m.Counts.RowsIn != 3 || m.Counts.RowsOut != 1 || m.Counts.Quarantined != 2 {
		t.Fatalf("counts %+v, want 3 in, 1 out (the mixed ShareGPT line and the bad line quarantined)", m.Counts)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r, err := pqio.Open(mem, out, 100)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rec, err := r.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	msgs := rec.Column(0).(*array.List)
	structs := msgs.ListValues().(*array.Struct)
	roles, contents := structs.Field(0).(*array.String), structs.Field(1).(*array.String)
	start, end := msgs.ValueOffsets(0)
	var got []string
	for i := start; i < end; i++ {
		got = append(got, roles.Value(int(i))+": "+contents.Value(int(i)))
	}
	want := []string{"user: Add.\n\n1 and 2", "assistant: 3"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("messages %q, want %q", got, want)
	}
	if extra := rec.Column(1).(*array.String).Value(0); extra != `{"id":"a"}` {
		t.Errorf("extra %q", extra)
	}
}
