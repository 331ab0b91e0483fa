package columnar

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestMemberFieldNamesWhatIsMissing(t *testing.T) {
	s := arrow.NewSchema([]arrow.Field{
		{Name: "text", Type: arrow.BinaryTypes.String},
		{Name: "meta", Type: arrow.StructOf(arrow.Field{Name: "source", Type: arrow.BinaryTypes.String})},
	}, nil)
	if f, err := MemberField(s, "meta.source"); err != nil || f.Name != "source" {
		t.Fatalf("meta.source: %v %v", f, err)
	}
	for path, want := range map[string]string{
		"lang":        `no column "lang" (columns: text, meta)`,
		"text.x":      `"text.x": text is not a struct`,
		"meta.author": `"meta.author": meta has no member "author"`,
	} {
		if _, err := MemberField(s, path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %s", path, err, want)
		}
	}
}
