package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Parse reads a schema file. The format is JSON that looks like the rows it
// describes: an object maps field names, in column order, to types; a type
// is one of "string", "int", "float", "bool", "json" (any JSON value, kept as
// its text), an object (a struct), or a one-element array (a list of that
// element type). For example:
//
//	{"id": "string", "text": "string", "meta": {"source": "string", "year": "int"}, "tags": ["string"]}
func Parse(data []byte) (*Type, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	t, err := parseType(dec, "")
	if err != nil {
		return nil, err
	}
	if t.Kind != Struct {
		return nil, errors.New("schema: the top level must be an object of fields")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("schema: unexpected data after the top-level object")
	}
	return t, nil
}

func parseType(dec *json.Decoder, path string) (*Type, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("schema: %s: %w", where(path), err)
	}
	switch tok := tok.(type) {
	case string:
		for k, name := range kindNames {
			if name == tok && Kind(k) != Struct && Kind(k) != List && Kind(k) != Null {
				return Scalar(Kind(k)), nil
			}
		}
		return nil, fmt.Errorf("schema: %s: unknown type %q (want string, int, float, bool, json, an object or a one-element array)", where(path), tok)
	case json.Delim:
		switch tok {
		case '{':
			t := &Type{Kind: Struct}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("schema: %s: %w", where(path), err)
				}
				name := kt.(string)
				if f, _ := t.Field(name); f != nil {
					return nil, fmt.Errorf("schema: %s: field %q appears twice", where(path), name)
				}
				ft, err := parseType(dec, join(path, name))
				if err != nil {
					return nil, err
				}
				t.Fields = append(t.Fields, Field{Name: name, Type: ft})
			}
			_, err := dec.Token() // '}'
			return t, err
		case '[':
			if !dec.More() {
				return nil, fmt.Errorf("schema: %s: a list type needs its element type, e.g. [\"string\"]", where(path))
			}
			elem, err := parseType(dec, path+"[]")
			if err != nil {
				return nil, err
			}
			if dec.More() {
				return nil, fmt.Errorf("schema: %s: a list type has exactly one element type", where(path))
			}
			_, err = dec.Token() // ']'
			return &Type{Kind: List, Elem: elem}, err
		}
	}
	return nil, fmt.Errorf("schema: %s: unexpected %v", where(path), tok)
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func where(path string) string {
	if path == "" {
		return "top level"
	}
	return "field " + path
}
