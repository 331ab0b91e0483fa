package demo

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestDemoSample(t *testing.T) {
	data := Sample()
	if len(data) == 0 {
		t.Fatal("sample is empty")
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(lines) < 250 {
		t.Errorf("sample has %d lines, want at least 250", len(lines))
	}
	malformed := 0
	for _, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var obj map[string]any
		if json.Unmarshal(line, &obj) != nil {
			malformed++
		}
	}
	if malformed == 0 {
		t.Error("sample has no malformed line")
	}
	t.Logf("%d lines, %d malformed", len(lines), malformed)
}
