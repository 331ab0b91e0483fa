package normalize

import (
	"fmt"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// Form is the Unicode normal form AppendText produces.
type Form uint8

const (
	// NFC is canonical composition: precomposed characters, nothing else
	// folded.
	NFC Form = iota
	// NFKC is compatibility composition: NFC plus folding of full-width
	// forms, ligatures, super- and subscripts, circled digits and the like
	// to their plain characters.
	NFKC
)

// ParseForm parses "nfc" or "nfkc" (in any letter case).
func ParseForm(s string) (Form, error) {
	switch strings.ToLower(s) {
	case "nfc":
		return NFC, nil
	case "nfkc":
		return NFKC, nil
	}
	return 0, fmt.Errorf("normalize: unknown form %q (want nfc or nfkc)", s)
}

// String returns "nfc" or "nfkc", the spelling ParseForm accepts.
func (f Form) String() string {
	switch f {
	case NFC:
		return "nfc"
	case NFKC:
		return "nfkc"
	}
	return fmt.Sprintf("Form(%d)", uint8(f))
}

// MarshalText encodes f as its String, so configs and manifests read "nfc".
func (f Form) MarshalText() ([]byte, error) {
	if f > NFKC {
		return nil, fmt.Errorf("normalize: invalid form %d", uint8(f))
	}
	return []byte(f.String()), nil
}

// UnmarshalText decodes a form with ParseForm.
func (f *Form) UnmarshalText(b []byte) error {
	v, err := ParseForm(string(b))
	if err != nil {
		return err
	}
	*f = v
	return nil
}

// norm returns the x/text form for f; anything other than NFKC is NFC.
func (f Form) norm() norm.Form {
	if f == NFKC {
		return norm.NFKC
	}
	return norm.NFC
}
